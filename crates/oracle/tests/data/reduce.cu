// Warp reduction: REDUX needs sm_80 or newer.
__global__ void warp_sum(const unsigned *in, unsigned *out) {
    unsigned v = in[threadIdx.x];
    unsigned s = __reduce_add_sync(0xffffffffu, v);
    if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = s;
}
