// Fences and barriers as GPU programmers write them: __threadfence_block/__threadfence/
// __threadfence_system, libcu++'s atomic_thread_fence at each scope and order, named
// barriers (bar.sync / bar.arrive with an id and a thread count, a producer-consumer split
// of the block), __syncthreads_count/_and/_or, __syncwarp with a partial mask, and a
// release/acquire flag handshake between blocks.
// corpus-needs: cccl
#include <cuda/atomic>

__device__ __forceinline__ void named_sync(int id, int count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void named_arrive(int id, int count) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

extern "C" __global__ void fences(int *data, volatile int *flag, int *out) {
    int t = threadIdx.x;
    data[t] = t;
    __threadfence_block();
    data[t + 256] = t * 2;
    __threadfence();
    data[t + 512] = t * 3;
    __threadfence_system();
    cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_block);
    cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_system);
    if (t == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> f(*(int *)flag);
        f.store(1, cuda::memory_order_release);
        while (f.load(cuda::memory_order_acquire) < (int)gridDim.x) {
        }
    }
    __syncthreads();
    out[t] = data[(t + 1) & 255] + flag[1];
}

// Warps 0-1 produce into shared memory, warps 2-3 consume: named barrier 1 for "full",
// barrier 2 for "empty", 128 threads each.
extern "C" __global__ void named_barriers(const int *in, int *out, int rounds) {
    __shared__ int buf[64];
    int t = threadIdx.x;
    for (int r = 0; r < rounds; ++r) {
        if (t < 64) {
            named_sync(2, 128);
            buf[t] = in[r * 64 + t];
            named_arrive(1, 128);
        } else {
            named_arrive(2, 128);
            named_sync(1, 128);
            out[r * 64 + t - 64] = buf[127 - t] * 2;
        }
    }
    int votes = __syncthreads_count(t & 1);
    int all = __syncthreads_and(t < 200);
    int any = __syncthreads_or(t == 5);
    if (t & 1) {
        __syncwarp(0xaaaaaaaa);
    }
    out[4096 + t] = votes + all + any;
}
