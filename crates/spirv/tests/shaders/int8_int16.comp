// Exercises 8- and 16-bit integers in storage buffers and arithmetic (explicit arithmetic types).
// env: vulkan1.2
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Bytes { int8_t s8[32]; uint8_t u8[32]; int16_t s16[32]; uint16_t u16[32]; } b;
void main() {
    uint i = gl_LocalInvocationIndex;
    int8_t a = b.s8[i];
    uint8_t c = b.u8[i];
    int16_t d = int16_t(a) * int16_t(-3) + int16_t(-300);
    uint16_t e = uint16_t(c) + uint16_t(65000);
    b.s16[i] = d;
    b.u16[i] = e >> 2;
    b.s8[i] = int8_t(d);
    b.u8[i] = uint8_t(e) | uint8_t(0x80);
}
