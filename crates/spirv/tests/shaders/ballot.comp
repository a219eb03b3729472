// Exercises subgroupBallot, subgroupInverseBallot, ballot bit count/extract and find LSB/MSB under a divergent branch.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uvec4 ballots[128]; uint counts[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uvec4 b = subgroupBallot((i & 1u) == 0u);
    if ((i % 3u) == 0u) {
        b = subgroupBallot(true);
    }
    o.ballots[i] = b;
    o.counts[i] = subgroupBallotBitCount(b) + subgroupBallotFindLSB(b) * 100u + subgroupBallotFindMSB(b) * 10000u
        + (subgroupBallotBitExtract(b, 3u) ? 1u : 0u) + (subgroupInverseBallot(b) ? 2u : 0u)
        + subgroupBallotInclusiveBitCount(b) + subgroupBallotExclusiveBitCount(b);
}
