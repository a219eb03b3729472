// Exercises nested loops with break out of the inner loop and continue of the outer one.
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uint acc = 0u;
    for (uint a = 0u; a < 4u; ++a) {
        if (a == (i & 1u)) continue;
        for (uint b = 0u; b < 8u; ++b) {
            if (b > (i & 7u)) break;
            acc += subgroupAdd(b);
        }
        acc += subgroupMax(acc);
    }
    o.v[i] = acc;
}
