// Reconvergence-heavy control flow: a dense switch (jump table), nested loops with
// breaks out of divergent code, warp syncs and ballots inside loops, early exits.
extern "C" __global__ void dense_switch(int *out, const int *in) {
  int t = threadIdx.x;
  int v = in[t];
  int r = 0;
  switch (v & 15) {
    case 0: r = v + 11; break;
    case 1: r = v * 7; break;
    case 2: r = v ^ 0x55; break;
    case 3: r = v - 3; break;
    case 4: r = v << 3; break;
    case 5: r = v >> 2; break;
    case 6: r = ~v; break;
    case 7: r = v * v; break;
    case 8: r = v | 0x100; break;
    case 9: r = v & 0xff; break;
    case 10: r = -v; break;
    case 11: r = v + t; break;
    default: r = 1;
  }
  out[t] = r;
}

extern "C" __global__ void nested(int *out, const int *in, int n) {
  int t = threadIdx.x;
  int acc = 0;
  for (int i = 0; i < n; i++) {
    int v = in[i * 32 + t];
    if (v < 0) break;
    for (int j = 0; j < v; j++) {
      if ((j + t) % 3 == 0) continue;
      if (acc > (1 << 20)) goto done;
      acc += j;
      unsigned m = __activemask();
      if (__popc(m) > 16) acc ^= __ballot_sync(m, acc & 1);
    }
    __syncwarp();
  }
done:
  if (acc == 7) return;
  out[t] = acc + __shfl_sync(0xffffffff, acc, 0);
}
