// Exercises subgroupElect in uniform and divergent control flow.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uint r = subgroupElect() ? 1u : 0u;
    if (i >= 5u) {
        if (subgroupElect()) {
            r += 10u;
        }
    }
    o.v[i] = r;
}
