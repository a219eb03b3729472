// __syncwarp with a runtime mask in divergent code and warp votes under it: SM90 brackets
// the synchronisation with WARPSYNC.COLLECTIVE ... ENDCOLLECTIVE.
__global__ void warpsync_collective(int *p, unsigned m) {
    int i = threadIdx.x;
    int v = p[i];
    if (v > 3) {
        __syncwarp(m);
        v = __shfl_sync(m, v, 0);
    }
    __syncwarp(m & 0xffff);
    v += __ballot_sync(m, v > 0);
    p[i] = v;
}
