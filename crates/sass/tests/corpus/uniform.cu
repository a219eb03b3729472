// Warp-uniform values in a loop: kernel parameters and the loop counter only, so ptxas
// computes on the uniform datapath (SM90 mostly): ULOP3, USHF, UISETP, USEL, UPRMT, ...
extern "C" __global__ void uniform_ops(unsigned *out, const unsigned *in, unsigned k, int s, unsigned long long m, unsigned j, int n) {
  unsigned acc = threadIdx.x;
  unsigned long long w = m;
  for (int i = 0; i < n; i++) {
    unsigned u = ((unsigned)i << (k & 31)) ^ (k >> (i & 7)) ^ (j | 0x55);
    u = (u & ~j) | ((unsigned)s ^ (unsigned)i);
    int si = (i * s) >> (s & 31);
    w = (w << 7) | (w >> (i & 63));
    w += (unsigned long long)u * k;
    unsigned sel = ((unsigned)i < k) ? u : (unsigned)si;
    sel = (s > i && j != (unsigned)i) ? sel + 3 : sel ^ 0xf0;
    sel += __popc(u) + __brev(u) + __byte_perm(u, k, 0x3210 + i) + __clz(si) + __ffs(u);
    sel += min(u, k) + max(si, (int)k) + abs(si) + __umulhi(u, j);
    if ((long long)w < (long long)m || w > m + i) sel ^= (unsigned)(w >> 32);
    if (sel & 4) acc += in[(sel >> 3) & 1023];
    else acc ^= in[(u & 511) + 7];
  }
  out[threadIdx.x] = acc + (unsigned)w;
}
