// Exercises integer subgroup reductions: add, mul, min, max, and, or, xor on int and uint.
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { int s[128]; uint u[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    int x = int(i) - 16;
    o.s[i] = subgroupAdd(x) + subgroupMul(x | 1) + subgroupMin(x) + subgroupMax(x)
        + subgroupAnd(x) + subgroupOr(x) + subgroupXor(x);
    o.u[i] = subgroupAdd(i) + subgroupMin(i) + subgroupMax(i) + subgroupAnd(i) + subgroupOr(i) + subgroupXor(i);
}
