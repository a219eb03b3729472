// Exercises clustered subgroup reductions (add, min, max, and, or, xor) and quad broadcast/swap.
#version 450
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uint r = subgroupClusteredAdd(i, 4u) + subgroupClusteredMin(i, 8u) + subgroupClusteredMax(i, 2u)
        + subgroupClusteredAnd(i, 16u) + subgroupClusteredOr(i, 4u) + subgroupClusteredXor(i, 32u);
    r += subgroupQuadBroadcast(i, 2u) + subgroupQuadSwapHorizontal(i) + subgroupQuadSwapVertical(i) + subgroupQuadSwapDiagonal(i);
    o.v[i] = r;
}
