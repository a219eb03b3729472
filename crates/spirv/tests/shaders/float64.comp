// Exercises 64-bit floats: arithmetic, double constants, conversions and GLSL.std.450 on doubles.
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Data { double v[128]; dvec2 w[]; } d;
void main() {
    uint i = gl_GlobalInvocationID.x;
    double x = d.v[i] * 0.1LF + 1.0e-300LF;
    dvec2 w = d.w[i];
    w = fma(w, dvec2(x), dvec2(3.141592653589793LF)) + sqrt(abs(w)) + floor(w);
    d.v[i] = x + double(float(x)) + min(w.x, w.y);
    d.w[i] = w;
}
