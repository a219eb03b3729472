// Local memory: arrays indexed at run time, one per access width.
extern "C" __global__ void local_mem(int *out, const int *in, int k) {
  int t = threadIdx.x;
  unsigned char a8[40]; signed char s8[40]; unsigned short a16[40]; short s16[40];
  int a32[40]; long long a64[40]; int4 a128[20];
#pragma unroll 1
  for (int i = 0; i < 40; i++) {
    a8[i] = in[i] + t; s8[i] = in[i] - t; a16[i] = in[i] * t; s16[i] = in[i] ^ t;
    a32[i] = in[i + t]; a64[i] = (long long)in[i] * t;
    a128[i % 20] = make_int4(in[i], t, i, k);
  }
  int j = in[t] % 40, j2 = in[t + 1] % 20;
  int4 v = a128[j2];
  out[t] = a8[j] + s8[j + k] + a16[j] + s16[j] + a32[j] + (int)a64[j] + v.x + v.y + v.z + v.w
         + a8[j + 3] + s16[j + 2] + a32[j + 1];
}
