// Asks for maximal reconvergence: an early return inside a loop and a call, with ballots in the survivors.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_EXT_maximal_reconvergence : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
uint count_active() { return subgroupBallotBitCount(subgroupBallot(true)); }
void main() [[maximally_reconverges]] {
    uint i = gl_LocalInvocationIndex;
    for (uint k = 0u; k < 4u; ++k) {
        if (i == k * 7u) {
            o.v[i] = count_active();
            return;
        }
        o.v[i] += count_active();
    }
    o.v[i] += count_active() << 16;
}
