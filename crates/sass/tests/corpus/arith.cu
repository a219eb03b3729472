// Integer, float and 64-bit arithmetic.
extern "C" __global__ void integer(int *out, const int *in, unsigned k) {
  int t = threadIdx.x;
  int a = in[t], b = in[t + 1];
  unsigned ua = (unsigned)a;
  int r = a * b + (a >> 3) - (b << 5);
  r ^= __popc(ua) + __clz(a) + __ffs(b) + (int)__brev(ua);
  r += abs(b) + min(a, b) + max(a, (int)k) + (int)min(ua, k);
  r += a / 7 + (int)(ua % k) + (int)(ua >> (k & 31)) + __funnelshift_l(ua, k, b);
  r += (int)__byte_perm(ua, k, 0x3210 + t) + __mulhi(a, b) + (int)__umulhi(ua, k);
  r += (a & b) | (~a & k);
  out[t] = r;
}

extern "C" __global__ void floats(float *out, const float *in, int *iout) {
  int t = threadIdx.x;
  float x = in[t], y = in[t + 1];
  float r = x * y + 2.5f;
  r = fmaf(r, x, -y);
  r += sqrtf(fabsf(x)) + __expf(y) + __logf(fabsf(r) + 1.0f) + 1.0f / y;
  r += __sinf(x) * __cosf(y) + rsqrtf(fabsf(y) + 1.0f);
  r = fminf(r, 100.0f) + fmaxf(x, y);
  iout[t] = (int)r + __float2int_rn(x) + (int)(unsigned)y;
  out[t] = r + (float)t + (float)(unsigned)iout[t + 3];
  if (x < y || r != r) out[t + 64] = r * 0.5f;
}

extern "C" __global__ void wide(long long *out, const long long *in, double *d) {
  int t = threadIdx.x;
  long long a = in[t], b = in[t + 1];
  unsigned long long ua = (unsigned long long)a;
  long long r = a + b * 3 - (a >> 7) + (long long)(ua >> 13) + (b << 9);
  r ^= (long long)__popcll(ua) + __clzll(b);
  r += a / 11 + (a < b ? a : b);
  double x = d[t];
  double y = x * 1.5 + d[t + 1];
  y = fma(y, x, 3.0) + (double)r;
  d[t] = y > 0.0 ? y : -y;
  out[t] = r + (long long)y;
}
