// Exercises a switch with fallthrough between cases, a shared case label list and a default.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uint r = 0u;
    switch (i % 6u) {
    case 0u:
        r += 1u;
    case 1u:
        r += subgroupBallotBitCount(subgroupBallot(true));
        break;
    case 2u:
    case 3u:
        r += 100u;
        // fall through
    case 4u:
        r += 1000u;
        break;
    default:
        r = subgroupBroadcastFirst(i);
    }
    o.v[i] = r;
}
