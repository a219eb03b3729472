// Exercises local_size_x_id/local_size_y_id (LocalSizeId on SPIR-V 1.6) and gl_WorkGroupSize from spec constants.
// env: vulkan1.3
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
    uint flat_id = gl_LocalInvocationID.y * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    o.v[gl_WorkGroupID.x * gl_WorkGroupSize.x * gl_WorkGroupSize.y + flat_id] = flat_id;
}
