// Exercises a push-constant block with scalars, a vector and an array, read in control flow.
#version 450
layout(local_size_x = 16) in;
layout(push_constant) uniform Params { uint count; float scale; vec2 offset; uint lut[4]; } pc;
layout(set = 0, binding = 0) buffer Out { float v[]; } o;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    o.v[i] = float(pc.lut[i & 3u]) * pc.scale + pc.offset.x - pc.offset.y;
}
