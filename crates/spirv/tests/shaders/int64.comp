// Exercises 64-bit integers: arithmetic, shifts, conversions, 64-bit constants, subgroup add and 64-bit atomics.
// env: vulkan1.2
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint64_t u[]; } o;
layout(set = 0, binding = 1) buffer Acc { uint64_t total; int64_t smallest; } acc;
void main() {
    uint i = gl_LocalInvocationIndex;
    uint64_t x = uint64_t(i) * 0x100000001ul + 0xfffffffffful;
    int64_t y = -int64_t(i) << 40;
    x ^= uint64_t(y) >> 3;
    o.u[i] = subgroupAdd(x) + uint64_t(subgroupMin(y));
    atomicAdd(acc.total, x);
    atomicMin(acc.smallest, y);
}
