// Exercises a do-while loop with a divergent exit condition and a break.
#version 450
#extension GL_KHR_shader_subgroup_vote : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uint n = 0u;
    do {
        n += 1u;
        if (subgroupAny(n == 20u)) break;
    } while (n < i);
    o.v[i] = n;
}
