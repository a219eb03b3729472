// Exercises vectors and matrices: swizzles, composite construct/extract/insert, matrix products, select and bool vectors.
#version 450
layout(local_size_x = 8, local_size_y = 4) in;
layout(set = 0, binding = 0) buffer Data { mat3 m[]; } d;
void main() {
    uint i = gl_LocalInvocationIndex;
    mat3 m = d.m[i];
    vec3 v = vec3(gl_LocalInvocationID.xyx) * 0.5;
    v = m * v + transpose(m) * v.zyx;
    bvec3 gt = greaterThan(v, vec3(1.0));
    v = mix(v, -v, gt);
    m[1] = v;
    m[2].y = float(any(gt)) + float(all(gt));
    d.m[i] = m * outerProduct(v, v.yzx);
}
