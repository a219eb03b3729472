// Exercises uniform and storage buffers: std140 UBO with struct and array, std430 SSBO with runtime array, readonly/writeonly.
#version 450
layout(local_size_x = 32) in;
struct Item { vec4 pos; uint id; float weight; };
layout(std140, set = 0, binding = 0) uniform Config { mat4 transform; Item items[4]; uint n; } cfg;
layout(std430, set = 0, binding = 1) readonly buffer In { vec4 data[]; } inp;
layout(std430, set = 0, binding = 2) writeonly buffer Out { vec4 data[]; } outp;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(inp.data.length())) return;
    Item it = cfg.items[i % cfg.n];
    outp.data[i] = cfg.transform * inp.data[i] * it.weight + it.pos + vec4(float(it.id));
}
