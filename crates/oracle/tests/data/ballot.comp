#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer Out { uint data[]; } o;
void main() {
    uint id = gl_LocalInvocationIndex;
    if (id % 3u == 0u) {
        o.data[id] = subgroupBallot(true).x;
    } else {
        o.data[id] = subgroupBallot(id % 2u == 0u).x;
    }
}
