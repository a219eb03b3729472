// Control flow: loops with breaks and continues, nested divergent branches, switches,
// early returns, and calls that are not inlined.
extern "C" __device__ __noinline__ int collatz_steps(int x) {
  int steps = 0;
  while (x != 1 && steps < 1000) {
    x = (x & 1) ? 3 * x + 1 : x >> 1;
    steps++;
  }
  return steps;
}

extern "C" __global__ void loops(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int acc = 0;
  for (int j = 0; j < v; j++) {
    if ((j ^ v) & 4) continue;
    if (acc > 1000) break;
    acc += j * v;
    if (acc & 1) {
      acc = __ballot_sync(__activemask(), acc > 17) + acc;
    }
  }
  out[i] = acc + collatz_steps(v);
}

extern "C" __global__ void switches(int *out, const int *in) {
  int i = threadIdx.x;
  int v = in[i];
  int r;
  switch (v & 7) {
    case 0: r = v * 3; break;
    case 1: r = v - 9; break;
    case 2: r = v << 2; break;
    case 3: r = __shfl_xor_sync(0xffffffff, v, 1); break;
    case 5: r = ~v; break;
    default: r = 0;
  }
  __syncwarp();
  if (r > 0) {
    if (r & 2) out[i] = __popc(r);
    else out[i + 32] = r;
  } else {
    do { r += 3; } while (r < 0);
    out[i] = r;
  }
}
