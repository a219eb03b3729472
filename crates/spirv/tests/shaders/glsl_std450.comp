// Exercises GLSL.std.450 extended instructions: trig, exp/log, pow, sqrt, fma, clamp/mix/step/smoothstep, rounding, vector geometry, int min/max/abs.
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Data { vec4 v[]; } d;
layout(set = 0, binding = 1) buffer Ints { ivec2 n[]; } ints;
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = d.v[i];
    vec4 r = sin(x) + cos(x) * tan(x.y) + asin(clamp(x, -1.0, 1.0)) + atan(x.x, x.w);
    r += exp(x) + log(abs(x) + 1.0) + exp2(x) + log2(abs(x) + 1.0) + pow(abs(x), vec4(1.5));
    r += sqrt(abs(x)) + inversesqrt(abs(x) + 1.0) + fma(x, x, r);
    r += mix(x, r, 0.25) + step(0.5, x) + smoothstep(0.0, 1.0, x);
    r += floor(x) + ceil(x) + fract(x) + round(x) + trunc(x) + sign(x) + min(x, r) + max(x, r);
    r.xyz += cross(x.xyz, r.xyz) + normalize(x.xyz) * length(x.xyz) + reflect(x.xyz, vec3(0.0, 1.0, 0.0));
    r.w += distance(x, r) + dot(x, r);
    d.v[i] = r;
    ivec2 n = ints.n[i];
    ints.n[i] = ivec2(abs(n.x) + min(n.x, n.y), max(n.x, n.y) + clamp(n.y, -5, 5) + findMSB(n.x) + bitCount(n.y));
}
