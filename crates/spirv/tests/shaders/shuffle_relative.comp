// Exercises subgroupShuffleUp and subgroupShuffleDown inside a loop.
#version 450
#extension GL_KHR_shader_subgroup_shuffle_relative : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { int v[]; } o;
void main() {
    int x = int(gl_LocalInvocationIndex);
    for (uint d = 1u; d < 32u; d *= 2u) {
        x += subgroupShuffleUp(x, d);
    }
    o.v[gl_LocalInvocationIndex] = x - subgroupShuffleDown(x, 1u);
}
