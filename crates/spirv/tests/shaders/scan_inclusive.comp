// Exercises inclusive scans: add, mul, min, max, and, or, xor on int and float.
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint u[128]; float f[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    o.u[i] = subgroupInclusiveAdd(i) + subgroupInclusiveMul(i | 1u) + subgroupInclusiveMin(i) + subgroupInclusiveMax(i)
        + subgroupInclusiveAnd(i) + subgroupInclusiveOr(i) + subgroupInclusiveXor(i);
    float x = float(i);
    o.f[i] = subgroupInclusiveAdd(x) + subgroupInclusiveMin(x) + subgroupInclusiveMax(x) + subgroupInclusiveMul(x);
}
