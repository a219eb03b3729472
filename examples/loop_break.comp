// Seed 000's loop: each invocation leaves the loop in the iteration that its input says,
// then the subgroup votes. Under maximal reconvergence the ballot after the loop sees every
// invocation of the subgroup together.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_EXT_maximal_reconvergence : require
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint leave_at[]; } inp;
layout(std430, set = 0, binding = 1) buffer Out { uvec4 ballot[]; } outp;

bool thing(uint i) { return inp.leave_at[gl_LocalInvocationIndex] == i; }

void main() [[maximally_reconverges]] {
    uint i = 0;
    while (true) {
        if (thing(i)) {
            break;
        }
        i++;
    }
    outp.ballot[gl_LocalInvocationIndex] = subgroupBallot(true);
}
