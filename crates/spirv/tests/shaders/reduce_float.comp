// Exercises float subgroup reductions: add, mul, min, max on float and vec2, in a divergent branch.
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { float f[128]; vec2 g[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    float x = float(i) * 0.5 - 3.25;
    float r = subgroupAdd(x);
    if (i < 20u) {
        r += subgroupMin(x) + subgroupMax(x) + subgroupMul(x);
    }
    o.f[i] = r;
    o.g[i] = subgroupAdd(vec2(x, 1.0));
}
