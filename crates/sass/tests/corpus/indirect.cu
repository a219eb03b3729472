// Control flow as GPU programmers write it: calls through function pointers (a table of
// device functions chosen per thread, a virtual method), recursion (a recursive tree walk
// and a recursive divergent function that synchronises the warp: ptxas saves and restores
// its convergence barriers around the calls with BMOV), a dense switch (NVVM 13.5 lowers it
// to a tree of compares, not a jump table: the `brx.idx` jump table is jump.ptx), and
// convergence barriers kept live across calls in deeply nested divergent code.

typedef int (*unary_fn)(int);

__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int square(int x) { return x * x; }
__device__ __noinline__ int negate(int x) { return -x; }
__device__ __noinline__ int ballot_count(int x) {
    return __popc(__ballot_sync(__activemask(), x & 1)) + x;
}

__device__ unary_fn fn_table[4] = {twice, square, negate, ballot_count};

struct Shape {
    __device__ virtual float area(float s) const = 0;
};
struct Square : Shape {
    __device__ float area(float s) const override { return s * s; }
};
struct Circle : Shape {
    __device__ float area(float s) const override { return 3.14159265f * s * s; }
};

extern "C" __global__ void indirect_calls(const int *in, int *out, float *area) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    unary_fn f = fn_table[v & 3];
    int r = f(v);
    if (r > 10) {
        r = fn_table[(r >> 2) & 3](r);
    }
    out[t] = r;
    Square sq;
    Circle ci;
    const Shape *s = (v & 4) ? (const Shape *)&sq : (const Shape *)&ci;
    area[t] = s->area((float)v);
}

// Recursion: ptxas cannot inline it, keeps a stack frame in local memory and saves the
// caller's convergence barriers around each call.
__device__ int depth_sum(const int *tree, int node, int n) {
    if (node >= n) {
        return 0;
    }
    int v = tree[node];
    if (v & 1) {
        v += __shfl_xor_sync(__activemask(), v, 1);
    }
    return v + depth_sum(tree, 2 * node + 1, n) + depth_sum(tree, 2 * node + 2, n);
}

__device__ int collatz_depth(unsigned x, int d) {
    if (x <= 1 || d > 64) {
        return d;
    }
    __syncwarp(__activemask());
    return collatz_depth((x & 1) ? 3 * x + 1 : x / 2, d + 1);
}

extern "C" __global__ void recursion(const int *tree, int n, int *out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int s = 0;
    if (t < n) {
        s = depth_sum(tree, t, n);
    }
    out[t] = s + collatz_depth((unsigned)tree[t % n], 0);
}

// A dense switch with sixteen cases.
extern "C" __global__ void jump_table(const int *in, int *out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    int r;
    switch (v & 15) {
    case 0: r = v + 1; break;
    case 1: r = v * 3; break;
    case 2: r = v ^ 0x55; break;
    case 3: r = v >> 2; break;
    case 4: r = __popc(v); break;
    case 5: r = __clz(v); break;
    case 6: r = v * v; break;
    case 7: r = -v; break;
    case 8: r = __brev(v); break;
    case 9: r = v & 0xff; break;
    case 10: r = __ffs(v); break;
    case 11: r = v | 0x100; break;
    case 12: r = v - 7; break;
    case 13: r = v << 3; break;
    default: r = 0; break;
    }
    out[t] = r;
}

// Nested divergent regions, each ending in warp-synchronous work after a call: every level
// keeps a convergence barrier live across the call below it.
__device__ __noinline__ int sync_leaf(int x) {
    if (x & 1) {
        x += __shfl_down_sync(__activemask(), x, 1);
    }
    return x + (int)__activemask();
}

#define LEVEL(bit, body)                                                                   \
    if ((v >> (bit)) & 1) {                                                                \
        body;                                                                              \
        v = sync_leaf(v + (bit));                                                          \
    }                                                                                      \
    v += __shfl_xor_sync(__activemask(), v, 1);

extern "C" __global__ void barrier_pressure(const int *in, int *out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    LEVEL(0, LEVEL(1, LEVEL(2, LEVEL(3, LEVEL(4, LEVEL(5, LEVEL(6, LEVEL(7, LEVEL(8,
        LEVEL(9, LEVEL(10, LEVEL(11, LEVEL(12, LEVEL(13, LEVEL(14, LEVEL(15, LEVEL(16,
        LEVEL(17, v = sync_leaf(v)))))))))))))))))))
    out[t] = v;
}
