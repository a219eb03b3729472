// corpus-flags: -maxrregcount=24
// Register spills (float): many live values under a low register limit.
extern "C" __global__ void spill_float(float *out, const float *in, float a, int n) {
  int t = threadIdx.x;
  float v[24];
#pragma unroll
  for (int i = 0; i < 24; i++) v[i] = in[t + i * n] * a + i;
#pragma unroll 1
  for (int k = 0; k < n; k++) {
#pragma unroll
    for (int i = 0; i < 24; i++) v[i] = v[i] * v[(i + 7) % 24] + a * k;
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < 24; i++) s += v[i] * (i + 1);
  out[t] = s;
}
