// Global atomics and reductions of every integer type, min/max/and/or/xor/exch/cas, float
// add, 64-bit operations, system and block scopes, and 8/16-bit global stores: the RED and
// ATOMG type and scope fields (issue #12's misses in ordinary CUDA code).
__global__ void atomics(int *p, unsigned *u, long long *q, unsigned long long *uq, float *f,
                        int *out) {
    int i = threadIdx.x;
    atomicMax(p + i, i);
    atomicMin(p + i + 32, i);
    atomicOr(u + i, i);
    atomicXor(u + i + 32, i);
    atomicAnd(u + i + 64, i);
    atomicAdd(u + i + 96, 3u);
    atomicMax(u + i + 128, (unsigned)i);
    atomicMin(u + i + 160, (unsigned)i);
    atomicAdd(uq + i, 5ull);
    atomicMax(q + i, (long long)i);
    atomicOr(uq + i + 32, 7ull);
    atomicAdd(f + i, 1.0f);
    out[i] = atomicAdd(p + 200 + i, 1) + atomicMax(p + 300 + i, 2) + atomicOr(p + 400 + i, 4) +
             atomicExch(p + 500 + i, 3) + (int)atomicAdd(uq + 600 + i, 1ull) +
             atomicCAS(p + 700 + i, 1, 2);
    atomicAdd_system(p + 900 + i, 1);
    atomicAdd_block(p + 1000 + i, 1);
    ((short *)out)[i + 8192] = (short)i;
}
