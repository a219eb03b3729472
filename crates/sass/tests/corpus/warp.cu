// Warp intrinsics: votes, shuffles, match, reductions, active masks and warp syncs.
extern "C" __global__ void votes(unsigned *out, const int *in) {
  int t = threadIdx.x;
  int v = in[t];
  unsigned m = __activemask();
  unsigned b = __ballot_sync(m, v & 1);
  int a = __all_sync(0xffffffff, v > 0);
  int y = __any_sync(0xffffffff, v < -5);
  int u = __uni_sync(0xffffffff, v);
  out[t] = b + a * 2 + y * 4 + u * 8 + m;
}

extern "C" __global__ void shuffles(float *out, const float *in, int lane) {
  int t = threadIdx.x;
  float v = in[t];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  float w = __shfl_sync(0xffffffff, v, lane);
  float x = __shfl_up_sync(0xffffffff, w, 3, 16);
  out[t] = v + w + x + __shfl_xor_sync(0x0000ffff, x, 5);
}

extern "C" __global__ void matches(unsigned *out, const int *in, const long long *wide) {
  int t = threadIdx.x;
  unsigned a = __match_any_sync(0xffffffff, in[t]);
  int pred;
  unsigned b = __match_all_sync(0xffffffff, in[t] >> 3, &pred);
  unsigned c = __match_any_sync(0xffffffff, wide[t]);
  out[t] = a ^ b ^ c ^ pred;
}

extern "C" __global__ void reductions(unsigned *out, const unsigned *in) {
  int t = threadIdx.x;
  unsigned v = in[t];
#if __CUDA_ARCH__ >= 800
  unsigned s = __reduce_add_sync(0xffffffff, v);
  unsigned mn = __reduce_min_sync(0xffffffff, v);
  int mx = __reduce_max_sync(0xffffffff, (int)v);
  unsigned o = __reduce_or_sync(0xffffffff, v);
  unsigned an = __reduce_and_sync(0xffffffff, v);
  unsigned x = __reduce_xor_sync(0xffffffff, v);
  out[t] = s + mn + mx + o + an + x;
#else
  out[t] = v;
#endif
  if (v & 1) {
    __syncwarp(__activemask());
    out[t + 64] = __ballot_sync(__activemask(), v > 100);
  }
}
