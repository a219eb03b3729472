// Exercises subgroupShuffle and subgroupShuffleXor on uint and vec4.
#version 450
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[128]; vec4 w[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uint a = subgroupShuffle(i * 7u, (i + 3u) & 31u);
    a += subgroupShuffleXor(a, 1u);
    vec4 w = subgroupShuffleXor(vec4(float(i)), 16u);
    o.v[i] = a;
    o.w[i] = w;
}
