// Non-inlined calls inside divergent code, whose callees diverge and synchronise the warp:
// sub-function symbols and CALL/RET targets in the cubin listing, convergence barriers
// cleared before the calls (BMOV.32.CLEAR RZ, Bn).
//
// Restoring a saved barrier (BMOV.32 Bn, Rx, opcode 0x356) appears only where ptxas
// cannot see the callee's barriers (recursion, indirect calls); those kernels also spill to
// local memory (STL/LDL), which tangle does not model yet, so they are not in the corpus.
// The 0x356 form is checked from scratch (tests/scratch.rs).

__device__ __noinline__ int leaf(int x)
{
    if (x & 1) {
        x = __shfl_xor_sync(0xffffffff, x, 1) + 3;
    }
    __syncwarp();
    return x * 5;
}

__device__ __noinline__ int mid(int x)
{
    int acc = 0;
    for (int i = 0; i < 4; ++i) {
        if ((x >> i) & 1) {
            acc += leaf(x + i);
        }
    }
    return acc;
}

extern "C" __global__ void nested_call(int *out, const int *in)
{
    int t = threadIdx.x;
    int v = in[t];
    if (v > 7) {
        if (v & 2) {
            v = mid(v) + t;
        } else {
            v = leaf(v);
        }
    }
    out[t] = v;
}
