// Bit tests of one value: ptxas sets several predicates at once with R2P.
extern "C" __global__ void bit_tests(int *out, const int *in, unsigned mask) {
  int t = threadIdx.x;
  unsigned m = in[t];
  int acc = in[t + 32];
  if (m & 1) out[t] = acc + 1;
  if (m & 2) out[t + 32] = acc + 2;
  if (m & 4) out[t + 64] = acc + 3;
  if (m & 8) out[t + 96] = acc + 4;
  if (m & 16) out[t + 128] = acc + 5;
  if (m & 0x100) out[t + 160] = acc + 6;
  if (m & 0x200) out[t + 192] = acc + 7;
  if (m & 0x400) out[t + 224] = acc + 8;
}
