// Exercises the subgroup built-ins: SubgroupSize, SubgroupLocalInvocationId, NumSubgroups, SubgroupId and the Eq/Ge/Gt/Le/Lt masks.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) buffer Out { uvec4 masks[128]; uint info[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    o.info[i] = gl_SubgroupSize | (gl_SubgroupInvocationID << 8) | (gl_NumSubgroups << 16) | (gl_SubgroupID << 24);
    o.masks[i] = gl_SubgroupEqMask ^ gl_SubgroupGeMask ^ gl_SubgroupGtMask ^ gl_SubgroupLeMask ^ gl_SubgroupLtMask;
}
