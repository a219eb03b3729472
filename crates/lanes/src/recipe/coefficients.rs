//! Polynomial coefficients of the transcendental recipes, as f32 bit patterns,
//! lowest degree first. Written by `crates/lanes/tools/gen_coefficients.py`
//! (Remez exchange in mpmath, rounded to f32): do not edit by hand.

/// atan(t) = t + t s P(s), s = t^2, t in [0, 1]: P's coefficients (relative error of the fit 2^-24.44).
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
