// Exercises shared memory with workgroup barriers: a tree reduction over the workgroup.
#version 450
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) buffer Data { float v[]; } d;
shared float tmp[128];
void main() {
    uint i = gl_LocalInvocationIndex;
    tmp[i] = d.v[gl_GlobalInvocationID.x];
    barrier();
    for (uint s = 64u; s > 0u; s >>= 1u) {
        if (i < s) {
            tmp[i] += tmp[i + s];
        }
        memoryBarrierShared();
        barrier();
    }
    if (i == 0u) d.v[gl_WorkGroupID.x] = tmp[0];
}
