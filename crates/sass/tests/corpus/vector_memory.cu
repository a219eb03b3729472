// Vector and narrow memory access as GPU programmers write it: char4/short2/int2/int4/
// float4/double2 loads and stores in global and shared memory, 8- and 16-bit scalar loads
// (signed and unsigned), the cache-hint intrinsics (__ldg, __ldcs, __ldcg, __ldlu, __stcs,
// __stwt, __stcg), read-only loads through const __restrict__, and a constant-memory table.
// (cuda_fp16.h includes CCCL's <nv/target>.)
// corpus-needs: cccl
#include <cuda_fp16.h>

__constant__ float table[64];

extern "C" __global__ void vec_global(const int4 *__restrict__ in4, const float4 *f4,
                                      const double2 *d2, const char4 *c4, const short2 *s2,
                                      int4 *o4, float4 *of4, double2 *od2, char4 *oc4,
                                      short2 *os2) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int4 a = in4[t];
    float4 b = __ldg(f4 + t);
    double2 c = __ldcs(d2 + t);
    char4 d = c4[t];
    short2 e = __ldcg(s2 + t);
    o4[t] = make_int4(a.w, a.z + d.x, a.y + e.x, a.x);
    __stcs(of4 + t, make_float4(b.x * table[t & 63], b.y, b.z + (float)c.x, b.w));
    __stwt(od2 + t, make_double2(c.y, c.x + a.x));
    oc4[t] = make_char4(d.w, d.z, d.y, (signed char)(d.x + 1));
    __stcg(os2 + t, make_short2(e.y, (short)(e.x * 3)));
}

extern "C" __global__ void narrow_global(const signed char *s8, const unsigned char *u8,
                                         const short *s16, const unsigned short *u16,
                                         const __half *h, int *out, unsigned char *o8,
                                         unsigned short *o16, long long *o64) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = s8[t] + u8[t] * 3 + s16[t] + u16[t] + __ldlu(s16 + t + 1);
    float hf = __half2float(h[t]);
    out[t] = v + (int)hf;
    o8[t] = (unsigned char)(v >> 3);
    o16[t] = (unsigned short)(v * 7);
    o64[t] = (long long)v * (long long)s16[t + 2];
}

extern "C" __global__ void vec_shared(const float4 *in, float4 *out, short *o16, char *o8) {
    __shared__ float4 tile[128];
    __shared__ double2 dtile[64];
    __shared__ short stile[256];
    __shared__ signed char ctile[256];
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * 128 + t];
    dtile[t & 63] = make_double2(t, -t);
    stile[t] = (short)t;
    stile[t + 128] = (short)-t;
    ctile[t] = (signed char)t;
    ctile[t + 128] = (signed char)(t * 3);
    __syncthreads();
    float4 x = tile[127 - t];
    double2 y = dtile[(t + 1) & 63];
    out[blockIdx.x * 128 + t] = make_float4(x.w, x.z, (float)y.x, x.x + (float)y.y);
    o16[t] = stile[255 - t] + stile[t ^ 1];
    o8[t] = ctile[255 - t] + ctile[t ^ 2];
}
