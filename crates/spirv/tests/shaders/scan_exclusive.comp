// Exercises exclusive scans: add, mul, min, max, and, or, xor on int and float, inside a loop.
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { int s[128]; float f[]; } o;
void main() {
    int x = int(gl_LocalInvocationIndex);
    float y = 0.0;
    for (int k = 0; k < x % 4; ++k) {
        x = subgroupExclusiveAdd(x) + subgroupExclusiveMul(x) + subgroupExclusiveMin(x) + subgroupExclusiveMax(x)
            + subgroupExclusiveAnd(x) + subgroupExclusiveOr(x) + subgroupExclusiveXor(x);
        y += subgroupExclusiveAdd(float(k)) + subgroupExclusiveMin(y) + subgroupExclusiveMax(y) + subgroupExclusiveMul(y);
    }
    o.s[gl_LocalInvocationIndex] = x;
    o.f[gl_LocalInvocationIndex] = y;
}
