// CUB's block- and warp-level collectives (headers from the nvidia-cuda-cccl package, the
// third party), instantiated the way a GPU programmer uses them: block reductions and scans,
// warp reductions and scans, a block radix sort, and block loads and stores with the
// vectorised and transposing algorithms.
// corpus-needs: cccl
// corpus-o0: by hand
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>

constexpr int kThreads = 128;
constexpr int kItems = 4;

extern "C" __global__ void __launch_bounds__(kThreads)
    cub_block_reduce(const int *in, int *out, float *fout) {
    using Reduce = cub::BlockReduce<int, kThreads>;
    using ReduceRaking = cub::BlockReduce<float, kThreads, cub::BLOCK_REDUCE_RAKING>;
    __shared__ typename Reduce::TempStorage tmp;
    __shared__ typename ReduceRaking::TempStorage tmp_f;
    int v = in[blockIdx.x * kThreads + threadIdx.x];
    int sum = Reduce(tmp).Sum(v);
    // A partial tile: only `valid` threads contribute.
    int valid = in[0] & (kThreads - 1);
    float fmax = ReduceRaking(tmp_f).Reduce(float(v) * 0.5f, cuda::maximum<>{}, valid);
    if (threadIdx.x == 0) {
        out[blockIdx.x] = sum;
        fout[blockIdx.x] = fmax;
    }
}

extern "C" __global__ void __launch_bounds__(kThreads)
    cub_block_scan(const int *in, int *out, int *total) {
    using Scan = cub::BlockScan<int, kThreads>;
    using ScanWarps = cub::BlockScan<int, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;
    __shared__ typename Scan::TempStorage tmp;
    __shared__ typename ScanWarps::TempStorage tmp_w;
    int items[kItems];
    for (int i = 0; i < kItems; ++i) {
        items[i] = in[(blockIdx.x * kThreads + threadIdx.x) * kItems + i];
    }
    int aggregate;
    Scan(tmp).ExclusiveSum(items, items, aggregate);
    __syncthreads();
    int m = items[0];
    ScanWarps(tmp_w).InclusiveScan(m, m, cuda::maximum<>{});
    for (int i = 0; i < kItems; ++i) {
        out[(blockIdx.x * kThreads + threadIdx.x) * kItems + i] = items[i] + m;
    }
    if (threadIdx.x == 0) {
        total[blockIdx.x] = aggregate;
    }
}

extern "C" __global__ void cub_warp(const int *in, int *out, long long *wide) {
    using WarpReduce = cub::WarpReduce<int>;
    using WarpReduce16 = cub::WarpReduce<long long, 16>;
    using WarpScan = cub::WarpScan<int>;
    __shared__ typename WarpReduce::TempStorage red[4];
    __shared__ typename WarpReduce16::TempStorage red16[8];
    __shared__ typename WarpScan::TempStorage scan[4];
    int warp = threadIdx.x / 32;
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int sum = WarpReduce(red[warp]).Sum(v);
    // Segmented: heads where the value's low bits change.
    int head = (v & 7) == 0;
    int seg = WarpReduce(red[warp]).HeadSegmentedSum(v, head);
    long long w = WarpReduce16(red16[threadIdx.x / 16]).Reduce((long long)v * v, cuda::minimum<>{});
    int incl, excl;
    WarpScan(scan[warp]).Scan(v, incl, excl, cuda::maximum<>{});
    int prefix;
    WarpScan(scan[warp]).ExclusiveSum(v, prefix);
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum + seg + incl + excl + prefix;
    if (threadIdx.x % 16 == 0) {
        wide[threadIdx.x / 16] = w;
    }
}

extern "C" __global__ void __launch_bounds__(kThreads)
    cub_radix_sort(unsigned *keys, int *values, unsigned short *small) {
    using Sort = cub::BlockRadixSort<unsigned, kThreads, kItems, int>;
    using SortSmall = cub::BlockRadixSort<unsigned short, kThreads, 2>;
    __shared__ union {
        typename Sort::TempStorage sort;
        typename SortSmall::TempStorage small;
    } tmp;
    unsigned k[kItems];
    int v[kItems];
    for (int i = 0; i < kItems; ++i) {
        k[i] = keys[threadIdx.x * kItems + i];
        v[i] = values[threadIdx.x * kItems + i];
    }
    Sort(tmp.sort).SortDescendingBlockedToStriped(k, v);
    for (int i = 0; i < kItems; ++i) {
        keys[i * kThreads + threadIdx.x] = k[i];
        values[i * kThreads + threadIdx.x] = v[i];
    }
    __syncthreads();
    unsigned short s[2] = {small[threadIdx.x * 2], small[threadIdx.x * 2 + 1]};
    SortSmall(tmp.small).Sort(s, 4, 12);
    small[threadIdx.x * 2] = s[0];
    small[threadIdx.x * 2 + 1] = s[1];
}

extern "C" __global__ void __launch_bounds__(kThreads)
    cub_load_store(const float *in, float *out, const short *in16, short *out16, int n) {
    using LoadVec = cub::BlockLoad<float, kThreads, kItems, cub::BLOCK_LOAD_VECTORIZE>;
    using LoadTr = cub::BlockLoad<float, kThreads, kItems, cub::BLOCK_LOAD_TRANSPOSE>;
    using LoadWarpTr = cub::BlockLoad<short, kThreads, 8, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using StoreVec = cub::BlockStore<float, kThreads, kItems, cub::BLOCK_STORE_VECTORIZE>;
    using StoreTr = cub::BlockStore<float, kThreads, kItems, cub::BLOCK_STORE_TRANSPOSE>;
    using StoreWarpTr = cub::BlockStore<short, kThreads, 8, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename LoadTr::TempStorage load;
        typename StoreTr::TempStorage store;
        typename LoadWarpTr::TempStorage load16;
        typename StoreWarpTr::TempStorage store16;
    } tmp;
    int base = blockIdx.x * kThreads * kItems;
    float a[kItems], b[kItems];
    LoadVec().Load(in + base, a);
    LoadTr(tmp.load).Load(in + base + n, b, n, -1.0f);
    __syncthreads();
    for (int i = 0; i < kItems; ++i) {
        a[i] = a[i] * b[i] + 1.0f;
    }
    StoreVec().Store(out + base, a);
    StoreTr(tmp.store).Store(out + base + n, b, n);
    __syncthreads();
    short h[8];
    LoadWarpTr(tmp.load16).Load(in16 + blockIdx.x * kThreads * 8, h);
    __syncthreads();
    for (int i = 0; i < 8; ++i) {
        h[i] = (short)(h[i] * 3 + i);
    }
    StoreWarpTr(tmp.store16).Store(out16 + blockIdx.x * kThreads * 8, h);
}
