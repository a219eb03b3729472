// Exercises an early return from inside a loop, with subgroup operations before and after it.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    for (uint k = 0u; k < 32u; ++k) {
        if (k == i) {
            o.v[i] = subgroupBallotBitCount(subgroupBallot(true));
            return;
        }
    }
    o.v[i] = 99u;
}
