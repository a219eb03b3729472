// Cooperative groups (the CUDA runtime's headers) as GPU programmers use them: static and
// dynamic tiles, coalesced groups inside divergent code, labeled partitions, cg::reduce and
// cg::inclusive_scan, tile shuffles and votes, block sync, and a grid-wide sync (the headers
// need CCCL's <nv/target>).
// corpus-needs: cccl
// corpus-o0: by hand
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cg_tiles(const int *in, int *out) {
    cg::thread_block block = cg::this_thread_block();
    int v = in[block.thread_rank()];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> oct = cg::tiled_partition<8>(warp);
    int s = cg::reduce(warp, v, cg::plus<int>());
    int m = cg::reduce(oct, v, cg::greater<int>());
    int x = cg::inclusive_scan(oct, v, cg::bit_xor<int>());
    int e = cg::exclusive_scan(warp, v);
    int shuffled = oct.shfl_down(v, 1) + warp.shfl_xor(v, 3);
    unsigned any = warp.ballot(v > 10);
    bool all = oct.all(v != 0);
    block.sync();
    // A dynamic tile of the block (partition size at run time).
    cg::thread_group dyn = cg::tiled_partition(block, 4);
    dyn.sync();
    out[block.thread_rank()] = s + m + x + e + shuffled + (int)any + all + (int)dyn.thread_rank();
}

extern "C" __global__ void cg_coalesced(const int *in, int *out, unsigned *counter) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    if (v & 1) {
        // The lanes that took this branch: an aggregated atomic, leader elected.
        cg::coalesced_group active = cg::coalesced_threads();
        unsigned base = 0;
        if (active.thread_rank() == 0) {
            base = atomicAdd(counter, active.num_threads());
        }
        base = active.shfl(base, 0);
        out[t] = base + active.thread_rank();
        int sum = cg::reduce(active, v, cg::plus<int>());
        if (v & 2) {
            cg::coalesced_group inner = cg::coalesced_threads();
            out[t + 4096] = inner.any(v > 100) + sum;
        }
    } else {
        // Lanes grouped by a run-time label.
        cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
        cg::coalesced_group same = cg::labeled_partition(warp, v & 12);
        int s = cg::reduce(same, v, cg::plus<int>());
        cg::coalesced_group odd = cg::binary_partition(warp, v > 50);
        out[t] = s + odd.size() + (int)same.meta_group_rank();
    }
}

extern "C" __global__ void cg_grid(int *data, int *result, int n) {
    cg::grid_group grid = cg::this_grid();
    int i = grid.thread_rank();
    if (i < n) {
        atomicAdd(result, data[i]);
    }
    grid.sync();
    if (i < n) {
        data[i] = *result - data[i];
    }
    grid.sync();
    if (i == 0) {
        result[1] = (int)grid.num_blocks();
    }
}
