//! Random descriptions never panic the writer: each gives a cubin that tangle's reader
//! reads back word for word, or a typed error. (Smoke size in CI; `TANGLE_CUBIN_CASES=N`
//! by hand.)

use tangle_cubin::{write, Arch, Kernel, Param};
use tangle_sass::{assemble, Word};

/// SplitMix64: a small deterministic generator, so a failure names its case.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Instructions that decode on every SM, for code the writer accepts.
const PIECES: &str = "S2R R0, SR_LANEID
IADD3 R5, R0, 0x7, RZ
LDC R4, c[0x0][0x160]
BSSY B1, 0x0
BSYNC B1
BAR.SYNC.DEFER_BLOCKING 0x2
STL [R1+0x4], R2
@P0 EXIT
EXIT
NOP";

#[test]
fn random_descriptions_give_a_readable_cubin_or_a_typed_error() {
    let cases: u64 = std::env::var("TANGLE_CUBIN_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000);
    let mut rng = Rng(17);
    let pieces: Vec<(Arch, Vec<Word>)> = Arch::ALL
        .iter()
        .map(|&a| {
            let text = if a == Arch::Sm75 {
                PIECES.replace("BAR.SYNC.DEFER_BLOCKING", "BAR.SYNC")
            } else {
                PIECES.to_string()
            };
            (a, assemble(a, &text).unwrap())
        })
        .collect();
    let (mut ok, mut refused) = (0, 0);
    for case in 0..cases {
        let (arch, words) = &pieces[rng.below(5) as usize];
        let nkernels = 1 + rng.below(3) as usize;
        let mut kernels = Vec::new();
        for k in 0..nkernels {
            let len = rng.below(12) as usize;
            let code: Vec<Word> = (0..len)
                .map(|_| match rng.below(40) {
                    0 => Word(rng.next() as u128 | (rng.next() as u128) << 64),
                    _ => words[rng.below(words.len() as u64) as usize],
                })
                .collect();
            let mut kernel = Kernel::new(
                if rng.below(50) == 0 {
                    String::new()
                } else {
                    format!("k{}", rng.below(4) + k as u64 * 4)
                },
                code,
            );
            kernel.params = (0..rng.below(4))
                .map(|_| match rng.below(40) {
                    0 => Param {
                        size: [0, 20_000][rng.below(2) as usize],
                        align: [3, 1 << 20][rng.below(2) as usize],
                    },
                    _ => Param::sized([1, 4, 8, 16][rng.below(4) as usize]),
                })
                .collect();
            kernel.shared_bytes = [0, 4, 0x400, 0, 0, 0, 0, u32::MAX][rng.below(8) as usize];
            kernel.local_frame = [0, 8, 0x40][rng.below(3) as usize];
            if rng.below(3) == 0 {
                kernel.max_threads = Some([rng.below(8) as u32 * 64, 1, 1]);
            }
            if rng.below(3) == 0 {
                kernel.max_registers = Some(rng.below(270) as u32);
            }
            if rng.below(10) == 0 {
                kernel.spill_offsets = vec![16 * rng.below(4) as u32];
            }
            kernels.push(kernel);
        }
        match write(*arch, &kernels) {
            Ok(bytes) => {
                ok += 1;
                let c = tangle_sass::cubin::read(&bytes)
                    .unwrap_or_else(|e| panic!("case {case}: our cubin does not read: {e}"));
                for k in &kernels {
                    let f = c.functions.iter().find(|f| f.name == k.name).unwrap();
                    assert_eq!(f.words, k.code, "case {case}");
                }
            }
            Err(e) => {
                refused += 1;
                assert!(!e.to_string().is_empty());
            }
        }
    }
    println!("{cases} cases: {ok} cubins, {refused} typed errors");
    assert!(
        ok > cases / 20 && refused > cases / 20,
        "ok {ok}, refused {refused}"
    );
}
