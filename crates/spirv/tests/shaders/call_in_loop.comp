// Exercises a call inside a loop to a function that runs subgroup operations and returns early.
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
uint step_value(uint x, uint k) {
    if ((x & k) != 0u) {
        return subgroupAdd(x);
    }
    return subgroupBallotBitCount(subgroupBallot(x > k)) + k;
}
void main() {
    uint i = gl_LocalInvocationIndex;
    uint acc = i;
    for (uint k = 0u; k < 5u; ++k) {
        acc = step_value(acc, k);
    }
    o.v[i] = acc;
}
