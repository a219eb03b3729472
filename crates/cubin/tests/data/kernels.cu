// Kernels compiled by ptxas for every SM in tests/ptxas.rs; their code is rewritten into a
// cubin by tangle-cubin and compared with ptxas's. Each exercises one attribute.

// Parameters of mixed sizes and alignments; two EXITs (one predicated).
extern "C" __global__ void params(int *a, int n, char c, double d, long long e, float f) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) a[i] = a[i] + c + (int)__double_as_longlong(d) + (int)(e >> 7) + __float_as_int(f);
}

// No parameters: the smallest register count.
extern "C" __global__ void nothing() {}

// Static shared memory and barrier 0.
extern "C" __global__ void shared(int *a) {
  __shared__ int s[64];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[63 - threadIdx.x];
}

// Named barrier 3 (four barriers) and launch bounds.
extern "C" __global__ void __launch_bounds__(256) named_barrier(int *a) {
  __shared__ int s[256];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[255 - threadIdx.x];
  asm volatile("bar.sync 3, 64;");
}

// A local-memory frame.
extern "C" __global__ void frame(int *a, int n) {
  volatile int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = a[i] * n;
  a[threadIdx.x] = buf[a[0] & 15];
}

// A divergent loop with a break: BSSY/BSYNC.
extern "C" __global__ void loop_break(int *a, int n) {
  int i = threadIdx.x;
  int v = a[i];
  while (v < n) {
    if ((v & 7) == 3) break;
    v = v * 3 + 1;
  }
  a[i] = v + __activemask();
}

// Many live values: a high register count.
extern "C" __global__ void pressure(float *a) {
  float r[24];
  for (int k = 0; k < 24; k++) r[k] = a[threadIdx.x + 32 * k];
  for (int j = 0; j < 4; j++)
    for (int k = 0; k < 24; k++) r[k] = r[k] * r[(k + j + 1) % 24] + 1.0f;
  float s = 0;
  for (int k = 0; k < 24; k++) s += r[k];
  a[threadIdx.x] = s;
}

// A register limit.
extern "C" __global__ void __maxnreg__(40) limited(float *a) {
  a[threadIdx.x] = a[threadIdx.x] * 2.0f;
}

// A warp vote of the source: ptxas lists it in EIATTR_COOP_GROUP_INSTR_OFFSETS, which the
// writer does not write (docs/cubin.md).
extern "C" __global__ void ballot(int *a) {
  a[threadIdx.x] = __ballot_sync(0xffffffffu, a[threadIdx.x] > 0);
}
