// Asks for maximal reconvergence: elect and ballots in nested divergent ifs and at each merge.
// env: vulkan1.3
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_EXT_maximal_reconvergence : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() [[maximally_reconverges]] {
    uint i = gl_LocalInvocationIndex;
    uint r = 0u;
    if ((i & 1u) == 0u) {
        if ((i & 2u) == 0u) {
            r = subgroupElect() ? 1u : 2u;
        } else {
            r = subgroupBallotBitCount(subgroupBallot(true));
        }
        r += subgroupBallotBitCount(subgroupBallot(true)) << 8;
    }
    o.v[i] = r + (subgroupBallotBitCount(subgroupBallot(true)) << 16);
}
