// CUB's device-wide reduction (headers from the nvidia-cuda-cccl package, the third party):
// an explicit kernel that drives the block-level agent the way cub::DeviceReduce's own
// kernels do (vectorised tile loads, an even share of tiles per block, a block reduction),
// and cub::DeviceReduce / cub::DeviceScan called from host code, which makes nvcc
// instantiate CUB's own kernels for each SM's tuning policy.
// corpus-needs: cccl
// corpus-o0: by hand
#include <cub/agent/agent_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/grid/grid_even_share.cuh>

using Policy = cub::detail::agent_reduce_policy<256, 16, int, 4, cub::BLOCK_REDUCE_WARP_REDUCTIONS,
                                                cub::LOAD_LDG>;
using Agent = cub::detail::reduce::AgentReduce<Policy, const int *, int, cuda::std::plus<>, int>;

extern "C" __global__ void __launch_bounds__(256)
    agent_reduce(const int *in, int *partials, cub::GridEvenShare<int> share) {
    __shared__ typename Agent::TempStorage tmp;
    share.BlockInit<Policy::ITEMS_PER_THREAD * 256, cub::GRID_MAPPING_RAKE>();
    int block = Agent(tmp, in, cuda::std::plus<>{}).ConsumeTiles(share);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = block;
    }
}

// Host code: nvcc instantiates the kernels these launch (DeviceReduceKernel, the single-tile
// kernel, the scan kernels with their decoupled look-back).
cudaError_t device_sum(const float *in, float *out, int n, void *tmp, size_t &bytes,
                       cudaStream_t s) {
    return cub::DeviceReduce::Sum(tmp, bytes, in, out, n, s);
}

cudaError_t device_scan(const unsigned *in, unsigned *out, int n, void *tmp, size_t &bytes,
                        cudaStream_t s) {
    return cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n, s);
}
