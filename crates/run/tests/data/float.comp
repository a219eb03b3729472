#version 450
// out[x] = length(in[x]) * params.scale[x] + params.bias;  wave[x] = sin(float(x)).
// params is a std140 uniform block, in a std430 array of vec2.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0, std140) uniform Params { vec4 scale; float bias; } params;
layout(set = 0, binding = 1, std430) buffer In { vec2 v[]; } inp;
layout(set = 0, binding = 2, std430) buffer Out { float o[]; } outp;
layout(set = 0, binding = 3, std430) buffer Wave { float w[]; } wave;
void main() {
  uint x = gl_GlobalInvocationID.x;
  vec2 a = inp.v[x];
  outp.o[x] = sqrt(a.x * a.x + a.y * a.y) * params.scale[x] + params.bias;
  wave.w[x] = sin(float(x));
}
