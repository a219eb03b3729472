// Exercises specialization constants (int, uint, bool, float), spec-constant arithmetic and a local_size_x_id.
#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const int ITER = 4;
layout(constant_id = 2) const bool FLAG = true;
layout(constant_id = 3) const float SCALE = 1.5;
layout(constant_id = 4) const uint MASK = 0xffu;
const uint DOUBLE_MASK = MASK * 2u + 1u;
layout(set = 0, binding = 0) buffer Out { float v[]; } o;
void main() {
    uint i = gl_GlobalInvocationID.x;
    float acc = 0.0;
    for (int k = 0; k < ITER; ++k) {
        acc += SCALE * float(k);
    }
    if (FLAG) acc += float(i & DOUBLE_MASK);
    o.v[i] = acc + float(gl_WorkGroupSize.x);
}
