// Exercises a for loop whose body continues early, with a ballot after the continue.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uint acc = 0u;
    for (uint k = 0u; k < 8u; ++k) {
        if (((i + k) & 3u) == 0u) {
            continue;
        }
        acc += subgroupBallotBitCount(subgroupBallot(true));
    }
    o.v[i] = acc;
}
