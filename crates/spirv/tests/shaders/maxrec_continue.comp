// Asks for maximal reconvergence: continue inside a loop with a subgroup reduction in the continue construct path.
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_maximal_reconvergence : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() [[maximally_reconverges]] {
    uint i = gl_LocalInvocationIndex;
    uint acc = 0u;
    for (uint k = 0u; k < 6u; k += subgroupMin(1u)) {
        if ((i + k) % 3u == 0u) continue;
        acc += subgroupAdd(k);
    }
    o.v[i] = acc;
}
