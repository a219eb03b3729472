// Asks for maximal reconvergence: a ballot on a loop's divergent break path and after the loop.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_EXT_maximal_reconvergence : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uvec4 inside[128]; uvec4 after[]; } o;
void main() [[maximally_reconverges]] {
    uint i = gl_LocalInvocationIndex;
    for (uint k = 0u; k < 32u; ++k) {
        if (k == (i % 5u)) {
            o.inside[i] = subgroupBallot(true);
            break;
        }
    }
    o.after[i] = subgroupBallot(true);
}
