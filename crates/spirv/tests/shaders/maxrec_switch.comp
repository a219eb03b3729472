// Asks for maximal reconvergence: subgroup ops in switch cases with fallthrough and after the merge.
// env: vulkan1.2
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_maximal_reconvergence : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() [[maximally_reconverges]] {
    uint i = gl_LocalInvocationIndex;
    uint r = 0u;
    switch (i & 3u) {
    case 0u:
        r = subgroupAdd(1u);
    case 1u:
        r += subgroupBallotBitCount(subgroupBallot(true));
        break;
    default:
        r = subgroupMax(i);
        break;
    }
    o.v[i] = r + subgroupAdd(r);
}
