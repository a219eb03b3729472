// Exercises a while(true) loop left only by a divergent break, with a ballot on the break path.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uvec4 v[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uint k = 0u;
    uvec4 b = uvec4(0u);
    while (true) {
        if (k == (i & 7u)) {
            b = subgroupBallot(true);
            break;
        }
        k++;
    }
    o.v[i] = b;
}
