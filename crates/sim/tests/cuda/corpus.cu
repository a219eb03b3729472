// The simulator's CUDA corpus: each kernel's expected output is computed by hand-written
// Rust in tests/corpus.rs (an independent reference, not the simulator). Kernels take
// `in` (inputs) and `out` (results) and are launched with 2 blocks of 64 threads.

// Integer arithmetic, logic, shifts, comparisons and bit operations.
__global__ void int_ops(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int a = in[t], b = in[(t * 7 + 3) & 127];
  unsigned ua = a, ub = b;
  int *o = out + t * 16;
  o[0] = a + b;
  o[1] = a - b;
  o[2] = a * b;
  o[3] = b != 0 ? a / b : 0;
  o[4] = b != 0 ? a % b : 0;
  o[5] = ub != 0 ? ua / ub : 0;
  o[6] = (int)(ua << (ub & 31));
  o[7] = a >> (b & 31);
  o[8] = (int)(ua >> (ub & 31));
  o[9] = (a & b) ^ (a | ~b);
  o[10] = min(a, b);
  o[11] = (int)max(ua, ub);
  o[12] = __popc(a) + __clz(b);
  o[13] = (int)__brev(ua) ^ __ffs(b);
  o[14] = __mulhi(a, b) + (int)__umulhi(ua, ub);
  o[15] = abs(a) + (a < b) + 2 * (ua < ub) + 4 * (a == b);
}

// 64-bit integer arithmetic (no division: ptxas's 64-bit division converts with an I2F form
// the SASS layer does not decode yet).
__global__ void i64_ops(const long long *in, long long *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  long long a = in[t], b = in[(t * 5 + 1) & 127];
  unsigned long long ua = a, ub = b;
  long long *o = out + t * 8;
  o[0] = a + b;
  o[1] = a - b;
  o[2] = a * b;
  o[3] = (a ^ b) + (a >> 40);
  o[4] = (long long)(ua >> (ub & 63));
  o[5] = a >> (b & 63);
  o[6] = (long long)(ua << (ub & 63));
  o[7] = (a < b) + 2 * (ua < ub) + 4 * (a == b) + 8 * (a <= b);
}

// Single and double precision (no division or double square root: FCHK and DFMA with |x|,, which ptxas puts in front of the slow path
// which ptxas uses there, are not decoded by the SASS layer yet).
__global__ void float_ops(const float *in, const double *din, float *out, double *dout) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float a = in[t], b = in[(t * 3 + 2) & 127], c = in[(t * 11 + 5) & 127];
  float *o = out + t * 12;
  o[0] = a + b;
  o[1] = a * b;
  o[2] = fmaf(a, b, c);
  o[3] = a * 0.5f - b;
  o[4] = sqrtf(fabsf(a));
  o[5] = fminf(a, b);
  o[6] = fmaxf(a, c);
  o[7] = (float)(int)a;
  o[8] = (float)(t * 3 - 100);
  o[9] = (a < b) ? b : c;
  o[10] = -a * fabsf(c);
  o[11] = (float)(unsigned)(fabsf(b) * 1000.0f);
  double da = din[t], db = din[(t * 3 + 2) & 127];
  double *d = dout + t * 4;
  d[0] = fma(da, db, da);
  d[1] = da - db;
  d[2] = fma(da, da, -db);
  d[3] = (double)(long long)__dmul_rn(da, db);
}

// Shared memory with a block barrier, local memory with a dynamic index, bytes and halves
// (loads only: SM75's byte store through a uniform address is not decoded yet).
__global__ void mem_ops(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  int g = blockIdx.x * blockDim.x + t;
  s[t] = in[g] * 3;
  __syncthreads();
  int local[8];
  for (int i = 0; i < 8; i++) local[i] = in[(g + i) & 127] ^ i;
  int k = in[g] & 7;
  int *o = out + g * 4;
  o[0] = s[63 - t];
  o[1] = local[k];
  const unsigned char *bytes = (const unsigned char *)in;
  const short *halves = (const short *)in;
  o[2] = bytes[g * 3 + 1] + halves[g * 2 + 1];
  o[3] = (unsigned char)(in[g] + 1);
}

// Global and shared atomics.
__global__ void atomic_ops(const int *in, int *out) {
  __shared__ int hist[8];
  int t = threadIdx.x;
  int g = blockIdx.x * blockDim.x + t;
  if (t < 8) hist[t] = 0;
  __syncthreads();
  atomicAdd(&hist[in[g] & 7], ((in[g] >> 3) & 1) + 1);
  atomicAdd(&out[0], in[g]);
  atomicMax(&out[1], in[g]);
  atomicMin(&out[2], in[g]);
  atomicOr(&out[3], 1 << (g & 31));
  atomicAdd((unsigned long long *)&out[4], (unsigned long long)(in[g] & 0xff) << 20);
  __syncthreads();
  if (t < 8) atomicAdd(&out[8 + t], hist[t]);
}

// Warp-wide operations with the full mask.
__global__ void warp_ops(const int *in, int *out) {
  int t = threadIdx.x;
  int g = blockIdx.x * blockDim.x + t;
  int v = in[g];
  int *o = out + g * 8;
  o[0] = __ballot_sync(0xffffffffu, v & 1);
  o[1] = __shfl_sync(0xffffffffu, v, (t * 5) & 31);
  o[2] = __shfl_up_sync(0xffffffffu, v, 3);
  o[3] = __shfl_down_sync(0xffffffffu, v, 5);
  o[4] = __shfl_xor_sync(0xffffffffu, v, 6);
  o[5] = __any_sync(0xffffffffu, v > 90) + 2 * __all_sync(0xffffffffu, v > -100);
  o[6] = __match_any_sync(0xffffffffu, v & 3);
#if __CUDA_ARCH__ >= 800
  o[7] = __reduce_add_sync(0xffffffffu, v) ^ (int)__reduce_max_sync(0xffffffffu, (unsigned)v);
#else
  o[7] = 0;
#endif
}

// Divergent control flow with warp operations inside branches.
__global__ void diverge_ops(const int *in, int *out) {
  int t = threadIdx.x;
  int g = blockIdx.x * blockDim.x + t;
  int v = in[g];
  int s = 0;
  for (int i = 0; i < (v & 7); i++) {
    if ((v + i) % 3 == 0) continue;
    s += i * v;
    if (s > 200) break;
  }
  unsigned m = __ballot_sync(0xffffffffu, s & 1);
  if (v & 1) {
    s += 5;
  } else {
    s -= 1;
  }
  out[g * 2] = s;
  out[g * 2 + 1] = (int)m;
}
