//! Packed half precision on the simulator (HADD2, HMUL2, HFMA2 with swizzles, `|x|`, `-x`,
//! `.SAT` and f16x2 immediates), against values computed outside this workspace with
//! Python's IEEE half conversion: `struct.unpack('<H', struct.pack('<e', x))`, two lanes
//! packed low | high << 16.

use tangle_sass::{assemble, Arch};
use tangle_sched::Policy;
use tangle_sim::{run, Arg, Dim3, Kernel, Launch, Options};

/// R4 = (lo 3.0, hi 1.0), R5 = (lo 0.5, hi 2.0); R12 = (lo 1 + 2^-10, hi 1 + 3 * 2^-10)
/// times R13 = (1 + 2^-10 in both lanes) needs rounding; each result is stored in order.
const PROGRAM: &str = "LDC.64 R2, c[0x0][0x160]
MOV R4, 0x3c004200
MOV R5, 0x40003800
HADD2 R6, R4, R5
HMUL2 R7, R4.H1_H1, -R5
HFMA2 R8, R4, R5.H0_H0, |R5|
HADD2.SAT R9, R4, R5
HFMA2 R10, R4, 2, 0.5, R5
MOV R12, 0x3c033c01
MOV R13, 0x3c013c01
HMUL2 R11, R12, R13
STG.E [R2.64], R6
STG.E [R2.64+0x4], R7
STG.E [R2.64+0x8], R8
STG.E [R2.64+0xc], R9
STG.E [R2.64+0x10], R10
STG.E [R2.64+0x14], R11
MOV R16, 0x400000
MOV R17, 0x3ff00200
F2F.F16.F64 R18, R16
STG.E [R2.64+0x18], R18
HADD2.F32 R19, R4.H1_H1, -RZ.H0_H0
STG.E [R2.64+0x1c], R19
EXIT";

#[test]
fn half_precision_lanes_match_independent_values() {
    let words = assemble(Arch::Sm86, PROGRAM).unwrap();
    let k = Kernel::from_words(Arch::Sm86, "k", &words, &[8]);
    let launch = Launch {
        grid: Dim3::new(1, 1, 1),
        block: Dim3::new(1, 1, 1),
        dynamic_shared: 0,
        args: vec![Arg::Buffer(vec![0; 32])],
    };
    let out = run(&k, &launch, &Options::new(Policy::RoundRobin)).unwrap();
    let buf = out.buffers[0].as_ref().unwrap();
    let got: Vec<u32> = buf
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // pk(3 + 0.5, 1 + 2), pk(1 * -0.5, 1 * -2), pk(3 * 0.5 + 0.5, 1 * 0.5 + 2),
    // pk(min(1, 3.5), min(1, 3)), pk(3 * 0.5 + 0.5, 1 * 2 + 2),
    // pk((1 + 2**-10) ** 2, (1 + 3 * 2**-10) * (1 + 2**-10)), and F2F.F16.F64 of
    // 1 + 2**-11 + 2**-30 (f64 bits 0x3ff0020000400000): one rounding gives 0x3c01; the
    // widening HADD2.F32 of R4's high half, 1.0: struct.pack('<f', 1.0) = 0x3f800000.
    assert_eq!(
        got,
        [
            0x4200_4300,
            0xc000_b800,
            0x4100_4000,
            0x3c00_3c00,
            0x4400_4000,
            0x3c04_3c02,
            0x3c01,
            0x3f80_0000
        ]
    );
}
