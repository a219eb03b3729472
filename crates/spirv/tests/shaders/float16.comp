// Exercises 16-bit floats: storage, arithmetic, conversions and half constants (printed as hex floats by spirv-dis).
// env: vulkan1.2
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Halves { float16_t h[32]; f16vec2 v[32]; } b;
void main() {
    uint i = gl_LocalInvocationIndex;
    float16_t x = b.h[i] * float16_t(0.333) + float16_t(-65504.0);
    f16vec2 v = b.v[i] * f16vec2(float16_t(1.5), float16_t(0.0001));
    b.h[i] = x + v.x;
    b.v[i] = f16vec2(float(x) * 2.0, v.y);
}
