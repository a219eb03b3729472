// Exercises buffer and shared-memory atomics: add, min, max, and, or, xor, exchange, compare-exchange.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Counters { uint u[8]; int s[4]; } c;
shared uint local_count;
void main() {
    uint i = gl_LocalInvocationIndex;
    if (i == 0u) local_count = 0u;
    barrier();
    atomicAdd(c.u[0], 1u);
    atomicMin(c.u[1], i);
    atomicMax(c.u[2], i);
    atomicAnd(c.u[3], ~(1u << (i & 31u)));
    atomicOr(c.u[4], 1u << (i & 31u));
    atomicXor(c.u[5], i);
    atomicExchange(c.u[6], i);
    atomicCompSwap(c.u[7], 0u, i);
    atomicMin(c.s[0], -int(i));
    atomicMax(c.s[1], int(i));
    atomicAdd(local_count, 2u);
}
