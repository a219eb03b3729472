#version 450
// out[x] = in[x] * K + pc.add, K a specialization constant (SpecId 0, default 3);
// every invocation also adds 1 to counter[0].
layout(local_size_x = 4) in;
layout(constant_id = 0) const uint K = 3u;
layout(push_constant) uniform PC { uint add; } pc;
layout(set = 0, binding = 0) buffer In { uint inp[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
layout(set = 0, binding = 2) buffer Counter { uint counter[]; };
void main() {
  uint x = gl_GlobalInvocationID.x;
  o[x] = inp[x] * K + pc.add;
  atomicAdd(counter[0], 1u);
}
