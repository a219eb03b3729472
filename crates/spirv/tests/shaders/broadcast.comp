// Exercises subgroupBroadcast with constant lanes and subgroupBroadcastFirst in divergent code.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[128]; vec2 f[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uint a = subgroupBroadcast(i * 3u, 5u);
    vec2 f = subgroupBroadcast(vec2(i, -float(i)), 0u);
    if ((i & 2u) != 0u) {
        a += subgroupBroadcastFirst(i);
    }
    o.v[i] = a;
    o.f[i] = f;
}
