// Exercises subgroupAll, subgroupAny and subgroupAllEqual on int, float and bool values.
#version 450
#extension GL_KHR_shader_subgroup_vote : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uint r = 0u;
    if (subgroupAll(i < 16u)) r |= 1u;
    if (subgroupAny(i == 7u)) r |= 2u;
    if (subgroupAllEqual(i / 64u)) r |= 4u;
    if (subgroupAllEqual(float(i & 1u))) r |= 8u;
    if (subgroupAllEqual(i > 3u)) r |= 16u;
    o.v[i] = r;
}
