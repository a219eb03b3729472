// Atomics of every type, scope and memory order as GPU programmers write them: libcu++'s
// cuda::atomic_ref (thread_scope_block/device/system; relaxed, acquire, release, acq_rel,
// seq_cst loads, stores, exchanges and read-modify-writes), the CUDA atomics on double,
// half2, bfloat162, 16-bit and 64-bit words, shared-memory atomics of each width, and the
// wrapping increment and decrement. corpus-needs marks the libcu++ header (CCCL).
// corpus-needs: cccl
// corpus-o0: by hand
#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

using cuda::memory_order_acq_rel;
using cuda::memory_order_acquire;
using cuda::memory_order_relaxed;
using cuda::memory_order_release;
using cuda::memory_order_seq_cst;

template <cuda::thread_scope S> __device__ int scoped(int *p, unsigned long long *q, int v) {
    cuda::atomic_ref<int, S> a(*p);
    cuda::atomic_ref<unsigned long long, S> b(*q);
    int r = a.fetch_add(v, memory_order_relaxed);
    r += a.fetch_max(v, memory_order_acquire);
    r += a.fetch_and(v, memory_order_release);
    r += a.exchange(v, memory_order_acq_rel);
    int expected = r;
    a.compare_exchange_strong(expected, v + 1, memory_order_seq_cst);
    a.store(v, memory_order_release);
    r += a.load(memory_order_acquire) + expected;
    r += (int)b.fetch_or((unsigned long long)v << 40, memory_order_relaxed);
    r += (int)b.fetch_min((unsigned long long)v, memory_order_acq_rel);
    b.fetch_xor(3ull, memory_order_relaxed);
    return r;
}

extern "C" __global__ void atomic_scopes(int *p, unsigned long long *q, int *out) {
    int t = threadIdx.x;
    int r = scoped<cuda::thread_scope_block>(p, q, t);
    r += scoped<cuda::thread_scope_device>(p + 1, q + 1, t);
    r += scoped<cuda::thread_scope_system>(p + 2, q + 2, t);
    cuda::atomic_ref<float, cuda::thread_scope_device> f(*(float *)(p + 3));
    r += (int)f.fetch_add(1.5f, memory_order_relaxed);
    cuda::atomic_ref<long long, cuda::thread_scope_device> s64(*(long long *)(q + 3));
    r += (int)s64.fetch_min(-(long long)t, memory_order_relaxed);
    out[t] = r;
}

extern "C" __global__ void atomic_types(double *d, __half2 *h, __nv_bfloat162 *bh, __half *hs,
                                        unsigned short *u16, long long *s64,
                                        unsigned long long *u64, unsigned *u, float *f) {
    int t = threadIdx.x;
    double old = atomicAdd(d, (double)t);
    atomicAdd(d + 1, 0.25);
    atomicAdd(h + t % 4, __floats2half2_rn(1.0f, 2.0f));
    __half2 hr = atomicAdd(h + 4, __floats2half2_rn(0.5f, (float)t));
    atomicAdd(bh + t % 4, __floats2bfloat162_rn(1.0f, 2.0f));
    atomicAdd(hs + t % 8, __float2half(0.5f));
    unsigned short prev = atomicCAS(u16 + t % 2, (unsigned short)t, (unsigned short)(t + 1));
    atomicExch(u + 4, (unsigned)prev);
    atomicMin(s64, (long long)-t);
    atomicMax(s64 + 1, (long long)t);
    atomicAnd(u64, ~(1ull << (t & 63)));
    atomicXor(u64 + 1, (unsigned long long)t << 32);
    atomicMin(u64 + 2, (unsigned long long)t);
    unsigned long long was = atomicCAS(u64 + 3, 0ull, (unsigned long long)t);
    atomicExch(u64 + 4, was);
    unsigned inc = atomicInc(u + 0, 15u) + atomicDec(u + 1, 15u);
    float fmax = atomicExch(f, (float)t);
    atomicAdd_system(d + 2, 1.0);
    atomicMax_block(u + 2, inc);
    atomicCAS_system(u + 3, inc, 0u);
    d[8 + t] = old + __low2float(hr) + fmax;
}

extern "C" __global__ void atomic_shared(int *out, unsigned long long *wide, float *fo) {
    __shared__ int si[64];
    __shared__ unsigned long long sw[32];
    __shared__ float sf[32];
    __shared__ double sd[8];
    __shared__ unsigned short sh[64];
    int t = threadIdx.x;
    si[t & 63] = 0;
    sw[t & 31] = 0;
    sf[t & 31] = 0;
    sd[t & 7] = 0;
    sh[t & 63] = 0;
    __syncthreads();
    atomicAdd(si + (t & 7), t);
    atomicMin(si + 8 + (t & 7), -t);
    atomicXor(si + 16, t);
    atomicExch(si + 17, t);
    int c = atomicCAS(si + 18, 0, t);
    unsigned i = atomicInc((unsigned *)si + 19, 7u);
    atomicAdd(sw + (t & 3), (unsigned long long)t);
    atomicMax(sw + 4, (unsigned long long)t << 33);
    unsigned long long x = atomicCAS(sw + 5, 0ull, (unsigned long long)t);
    atomicAdd(sf + (t & 3), 0.5f);
    atomicAdd(sd + (t & 1), 0.125);
    atomicCAS(sh + (t & 3), (unsigned short)0, (unsigned short)t);
    cuda::atomic_ref<int, cuda::thread_scope_block> a(si[20]);
    a.fetch_add(1, memory_order_release);
    __syncthreads();
    out[t] = si[t & 31] + c + (int)i + sh[t & 63];
    wide[t] = sw[t & 31] + x;
    fo[t] = sf[t & 31] + (float)sd[t & 7];
}
