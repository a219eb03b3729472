// Host versions of the CUDA device functions the sweep's kernels call, written from the
// CUDA programming guide's and PTX ISA's definitions (not from any device code), so that
// each kernel body compiled for the host computes the expected output independently of
// the simulator. Compiled with g++ -frounding-math -ffp-contract=off.
#pragma once
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

using std::isinf;
using std::isnan;

#define __device__
#define __host__

typedef unsigned long long ull;
typedef long long ll;

// Integer intrinsics.
static int __popc(unsigned x) { return __builtin_popcount(x); }
static int __popcll(ull x) { return __builtin_popcountll(x); }
static int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static int __clzll(ll x) { return x == 0 ? 64 : __builtin_clzll((ull)x); }
static int __ffs(int x) { return __builtin_ffs(x); }
static int __ffsll(ll x) { return __builtin_ffsll(x); }
static unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
static ull __brevll(ull x) {
  ull r = 0;
  for (int i = 0; i < 64; i++) r |= ((x >> i) & 1ull) << (63 - i);
  return r;
}
static int __mulhi(int a, int b) { return (int)(((ll)a * (ll)b) >> 32); }
static unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((ull)a * (ull)b) >> 32); }
static ll __mul64hi(ll a, ll b) { return (ll)(((__int128)a * (__int128)b) >> 64); }
static ull __umul64hi(ull a, ull b) {
  return (ull)(((unsigned __int128)a * (unsigned __int128)b) >> 64);
}
static int __mul24(int a, int b) {
  ll x = (ll)(a << 8 >> 8), y = (ll)(b << 8 >> 8);
  return (int)(x * y);
}
static unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffff) * (b & 0xffffff); }
static unsigned __sad(int x, int y, unsigned z) {
  return (unsigned)(x > y ? (ll)x - y : (ll)y - x) + z;
}
static unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }
static int __hadd(int a, int b) { return (int)(((ll)a + b) >> 1); }
static int __rhadd(int a, int b) { return (int)(((ll)a + b + 1) >> 1); }
static unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((ull)a + b) >> 1); }
static unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((ull)a + b + 1) >> 1); }
static unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  ull v = ((ull)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; i++) r |= (unsigned)((v >> (((s >> (4 * i)) & 7) * 8)) & 0xff) << (8 * i);
  return r;
}
static unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  ull v = ((ull)hi << 32) | lo;
  return (unsigned)((v << (s & 31)) >> 32);
}
static unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  ull v = ((ull)hi << 32) | lo;
  return (unsigned)((v << (s > 32 ? 32 : s)) >> 32);
}
static unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  ull v = ((ull)hi << 32) | lo;
  return (unsigned)(v >> (s & 31));
}
static unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
  ull v = ((ull)hi << 32) | lo;
  return (unsigned)(v >> (s > 32 ? 32 : s));
}
static int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 4; i++) c += (int)(signed char)(a >> (8 * i)) * (int)(signed char)(b >> (8 * i));
  return c;
}
static unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  for (int i = 0; i < 4; i++) c += ((a >> (8 * i)) & 0xff) * ((b >> (8 * i)) & 0xff);
  return c;
}
// SIMD video: per-byte / per-half operations.
static unsigned __vadd4(unsigned a, unsigned b) {
  unsigned r = 0;
  for (int i = 0; i < 4; i++) r |= (((a >> (8 * i)) + (b >> (8 * i))) & 0xff) << (8 * i);
  return r;
}
static unsigned __vmaxu4(unsigned a, unsigned b) {
  unsigned r = 0;
  for (int i = 0; i < 4; i++) {
    unsigned x = (a >> (8 * i)) & 0xff, y = (b >> (8 * i)) & 0xff;
    r |= (x > y ? x : y) << (8 * i);
  }
  return r;
}
static unsigned __vabsdiffu4(unsigned a, unsigned b) {
  unsigned r = 0;
  for (int i = 0; i < 4; i++) {
    unsigned x = (a >> (8 * i)) & 0xff, y = (b >> (8 * i)) & 0xff;
    r |= (x > y ? x - y : y - x) << (8 * i);
  }
  return r;
}
static unsigned __vcmpeq2(unsigned a, unsigned b) {
  unsigned r = 0;
  for (int i = 0; i < 2; i++)
    if (((a >> (16 * i)) & 0xffff) == ((b >> (16 * i)) & 0xffff)) r |= 0xffffu << (16 * i);
  return r;
}

// CUDA's integer min/max/abs overloads.
static int min(int a, int b) { return a < b ? a : b; }
static int max(int a, int b) { return a > b ? a : b; }
static unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static ll min(ll a, ll b) { return a < b ? a : b; }
static ll max(ll a, ll b) { return a > b ? a : b; }
static ull min(ull a, ull b) { return a < b ? a : b; }
static ull max(ull a, ull b) { return a > b ? a : b; }

// Reinterpretations.
static int __float_as_int(float x) { int r; memcpy(&r, &x, 4); return r; }
static unsigned __float_as_uint(float x) { unsigned r; memcpy(&r, &x, 4); return r; }
static float __int_as_float(int x) { float r; memcpy(&r, &x, 4); return r; }
static ll __double_as_longlong(double x) { ll r; memcpy(&r, &x, 8); return r; }
static double __longlong_as_double(ll x) { double r; memcpy(&r, &x, 8); return r; }
static int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
static int __double2loint(double x) { return (int)__double_as_longlong(x); }
static double __hiloint2double(int hi, int lo) {
  return __longlong_as_double((ll)(((ull)(unsigned)hi << 32) | (unsigned)lo));
}
static float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }

// Directed rounding: run an operation under a rounding mode. `volatile` keeps g++ from
// folding or moving it across the mode change (with -frounding-math as well).
template <class F> static auto rounded(int mode, F f) -> decltype(f()) {
  fesetround(mode);
  volatile auto r = f();
  fesetround(FE_TONEAREST);
  return r;
}
#define RND_OPS(SUF, MODE)                                                                 \
  static float __fadd_##SUF(float a, float b) { return rounded(MODE, [&] { volatile float x = a; return x + b; }); } \
  static float __fsub_##SUF(float a, float b) { return rounded(MODE, [&] { volatile float x = a; return x - b; }); } \
  static float __fmul_##SUF(float a, float b) { return rounded(MODE, [&] { volatile float x = a; return x * b; }); } \
  static float __fdiv_##SUF(float a, float b) { return rounded(MODE, [&] { volatile float x = a; return x / b; }); } \
  static float __frcp_##SUF(float a) { return rounded(MODE, [&] { volatile float x = 1.0f; return x / a; }); }  \
  static float __fsqrt_##SUF(float a) { return rounded(MODE, [&] { volatile float x = a; return sqrtf(x); }); } \
  static float __fmaf_##SUF(float a, float b, float c) { return rounded(MODE, [&] { volatile float x = a; return fmaf(x, b, c); }); } \
  static double __dadd_##SUF(double a, double b) { return rounded(MODE, [&] { volatile double x = a; return x + b; }); } \
  static double __dmul_##SUF(double a, double b) { return rounded(MODE, [&] { volatile double x = a; return x * b; }); } \
  static double __ddiv_##SUF(double a, double b) { return rounded(MODE, [&] { volatile double x = a; return x / b; }); } \
  static double __drcp_##SUF(double a) { return rounded(MODE, [&] { volatile double x = 1.0; return x / a; }); } \
  static double __dsqrt_##SUF(double a) { return rounded(MODE, [&] { volatile double x = a; return sqrt(x); }); } \
  static double __fma_##SUF(double a, double b, double c) { return rounded(MODE, [&] { volatile double x = a; return fma(x, b, c); }); } \
  static float __int2float_##SUF(int a) { return rounded(MODE, [&] { volatile int x = a; return (float)x; }); } \
  static float __uint2float_##SUF(unsigned a) { return rounded(MODE, [&] { volatile unsigned x = a; return (float)x; }); } \
  static float __ll2float_##SUF(ll a) { return rounded(MODE, [&] { volatile ll x = a; return (float)x; }); } \
  static float __ull2float_##SUF(ull a) { return rounded(MODE, [&] { volatile ull x = a; return (float)x; }); } \
  static double __ll2double_##SUF(ll a) { return rounded(MODE, [&] { volatile ll x = a; return (double)x; }); } \
  static double __ull2double_##SUF(ull a) { return rounded(MODE, [&] { volatile ull x = a; return (double)x; }); } \
  static float __double2float_##SUF(double a) { return rounded(MODE, [&] { volatile double x = a; return (float)x; }); } \
  static int __float2int_##SUF(float a) { return sat<int>(round_to(MODE, (double)a)); }          \
  static unsigned __float2uint_##SUF(float a) { return sat<unsigned>(round_to(MODE, (double)a)); } \
  static ll __float2ll_##SUF(float a) { return sat<ll>(round_to(MODE, (long double)a)); }        \
  static ull __float2ull_##SUF(float a) { return sat<ull>(round_to(MODE, (long double)a)); }     \
  static int __double2int_##SUF(double a) { return sat<int>(round_to(MODE, a)); }                \
  static unsigned __double2uint_##SUF(double a) { return sat<unsigned>(round_to(MODE, a)); }     \
  static ll __double2ll_##SUF(double a) { return sat<ll>(round_to(MODE, (long double)a)); }      \
  static ull __double2ull_##SUF(double a) { return sat<ull>(round_to(MODE, (long double)a)); }

// Float to integer (PTX cvt.rXi): round to an integer in the mode, NaN gives 0, and the
// result saturates to the destination's range.
template <class T> static T round_to(int mode, T x) {
  fesetround(mode);
  volatile T r = nearbyintl((long double)x);
  fesetround(FE_TONEAREST);
  return r;
}
template <class I, class T> static I sat(T x) {
  if (x != x) return 0;
  if (x <= (T)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
  if (x >= (T)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
  return (I)x;
}
RND_OPS(rn, FE_TONEAREST)
RND_OPS(rz, FE_TOWARDZERO)
RND_OPS(ru, FE_UPWARD)
RND_OPS(rd, FE_DOWNWARD)

// Sequential versions of the atomics: the sweep checks only results that do not depend on
// the order in which lanes perform them.
template <class T> static T atomicAdd(T *p, T v) { T o = *p; *p = o + v; return o; }
template <class T> static T atomicSub(T *p, T v) { T o = *p; *p = o - v; return o; }
template <class T> static T atomicMin(T *p, T v) { T o = *p; *p = v < o ? v : o; return o; }
template <class T> static T atomicMax(T *p, T v) { T o = *p; *p = v > o ? v : o; return o; }
template <class T> static T atomicAnd(T *p, T v) { T o = *p; *p = o & v; return o; }
template <class T> static T atomicOr(T *p, T v) { T o = *p; *p = o | v; return o; }
template <class T> static T atomicXor(T *p, T v) { T o = *p; *p = o ^ v; return o; }
template <class T> static T atomicExch(T *p, T v) { T o = *p; *p = v; return o; }
template <class T> static T atomicCAS(T *p, T c, T v) { T o = *p; *p = o == c ? v : o; return o; }
static unsigned atomicInc(unsigned *p, unsigned l) {
  unsigned o = *p; *p = o >= l ? 0 : o + 1; return o;
}
static unsigned atomicDec(unsigned *p, unsigned l) {
  unsigned o = *p; *p = (o == 0 || o > l) ? l : o - 1; return o;
}
