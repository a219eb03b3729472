// corpus-flags: -maxrregcount=24
// Register spills (integer): many live values under a low register limit.
extern "C" __global__ void spill_int(int *out, const int *in, int n) {
  int t = threadIdx.x;
  int v[24];
#pragma unroll
  for (int i = 0; i < 24; i++) v[i] = in[t + i * n] * (i + 3);
#pragma unroll 1
  for (int k = 0; k < n; k++) {
#pragma unroll
    for (int i = 0; i < 24; i++) v[i] = (v[i] ^ v[(i + 5) % 24]) + k * i;
  }
  int s = 0;
#pragma unroll
  for (int i = 0; i < 24; i++) s += v[i] * (i + 1);
  out[t] = s;
}
