// Atomics, shared memory and barriers.
extern "C" __global__ void atomics(int *g, unsigned *u, float *f, unsigned long long *w) {
  int t = threadIdx.x;
  int old = atomicAdd(g, t);
  atomicAdd(g + 1, 1);
  atomicMax(g + 2, t);
  atomicMin(g + 3, old);
  atomicAnd(u, ~(1u << (t & 31)));
  atomicOr(u + 1, 1u << (t & 31));
  atomicXor(u + 2, t);
  unsigned prev = atomicCAS(u + 3, 0u, (unsigned)t);
  atomicExch(g + 4, prev);
  atomicInc(u + 4, 100u);
  atomicAdd(f, 1.5f);
  atomicAdd(w, (unsigned long long)t);
  g[8 + t] = old;
}

extern "C" __global__ void shared(int *out, const int *in) {
  __shared__ int tile[256];
  __shared__ unsigned counter;
  int t = threadIdx.x;
  if (t == 0) counter = 0;
  tile[t] = in[t + blockIdx.x * 256];
  __syncthreads();
  int s = 0;
  for (int k = 1; k < 256; k <<= 1) {
    s += tile[(t + k) & 255];
    __syncthreads();
  }
  atomicAdd(&counter, s & 15);
  atomicMax((int *)&tile[t & 7], s);
  __threadfence_block();
  __syncthreads();
  out[t] = s + counter + tile[t ^ 1];
  __threadfence();
}
