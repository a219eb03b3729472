// Exercises NV partitioned subgroup operations (PartitionedReduceNV/ExclusiveScanNV) and 16-bit subgroup arithmetic.
// env: vulkan1.2
#version 450
#extension GL_NV_shader_subgroup_partitioned : require
#extension GL_EXT_shader_subgroup_extended_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uvec4 p = subgroupPartitionNV(i & 3u);
    uint r = subgroupPartitionedAddNV(i, p) + subgroupPartitionedExclusiveMaxNV(i, p) + subgroupPartitionedInclusiveXorNV(i, p);
    int16_t s = int16_t(i) - int16_t(20);
    r += uint(subgroupAdd(s)) + uint(subgroupInclusiveMin(s));
    o.v[i] = r;
}
