//! Polynomial coefficients of the transcendental recipes, as f32 bit patterns,
//! lowest degree first. Written by `crates/lanes/tools/gen_coefficients.py`
//! (Remez exchange in mpmath, rounded to f32): do not edit by hand.

/// atan(t) = t + t s P(s), s = t^2, t in [0, 1]: P's coefficients (2^-24.44).
pub const ATAN: [u32; 9] = [
    0xbeaaaaaa, // -3.333333135e-01
    0x3e4ccc29, // 1.999975592e-01
    0xbe12374d, // -1.427890807e-01
    0x3de20680, // 1.103639603e-01
    0xbdb17fd2, // -8.666957915e-02
    0x3d806f3f, // 6.271218508e-02
    0xbd13ee53, // -3.611595556e-02
    0x3c5fbd37, // 1.365595218e-02
    0xbb1ed4c3, // -2.423570259e-03
];

/// 2^f = E(f), f in [-0.5005, 0.5005]: E's coefficients (2^-29.0).
pub const EXP2: [u32; 7] = [
    0x3f800000, // 1.000000000e+00
    0x3f317218, // 6.931471825e-01
    0x3e75fded, // 2.402264625e-01
    0x3d635769, // 5.550328270e-02
    0x3c1d96df, // 9.618490003e-03
    0x3aafa327, // 1.340006362e-03
    0x3920e94a, // 1.534569601e-04
];

/// log2(1 + r) = r L(r), r in [sqrt(1/2) - 1, sqrt(2) - 1]: L's coefficients (2^-27.87).
pub const LOG2: [u32; 10] = [
    0x3fb8aa3b, // 1.442695022e+00
    0xbf38aa38, // -7.213473320e-01
    0x3ef6384b, // 4.808982313e-01
    0xbeb8ad3b, // -3.606966436e-01
    0x3e93bf1c, // 2.885674238e-01
    0xbe755e44, // -2.396174073e-01
    0x3e5182d1, // 2.046005875e-01
    0xbe43a5f0, // -1.910626888e-01
    0x3e3ea4b0, // 1.861751080e-01
    0xbde12d68, // -1.099498868e-01
];
