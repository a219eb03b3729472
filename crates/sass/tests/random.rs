//! Random instructions built field by field, checked where they can fail:
//!
//! * `random_typed_instructions_decode_to_themselves` (no oracle): for every form, typed
//!   instructions with random field values (registers, predicates, immediates, offsets,
//!   modifiers, flags, guard, control bits) are encoded; each word the decoder accepts must
//!   decode, among all forms of its opcode in table order, to the same form with the same
//!   fields. The encoder writes fields in one place and the decoder matches constant bits
//!   and reads fields in another, so a form shadowing another, a field written to the wrong
//!   bits or a flag lost between them fails here. Encoding errors must be `BadInst`.
//! * `random_field_values_print_like_nvdisasm` (nvdisasm): the same words, disassembled by
//!   nvdisasm, must be accepted and printed exactly as tangle prints them.
//! * Garbage: random and mutated words never panic the decoder, random text never panics
//!   the assembler.
//!
//! `TANGLE_RANDOM_SEED` and `TANGLE_RANDOM_PER_FORM` (default 24) widen a run by hand.

mod golden_io;

use tangle_oracle::{require, Tool};
use tangle_sass::form::{MemFmt, OpndKind};
use tangle_sass::typed::{
    Addr, Barrier, Guard, Operand, Pred, Reg, RpcHalf, Swizzle, UPred, UReg, Val,
};
use tangle_sass::{
    assemble_line, decode, decode_typed, forms, Arch, Control, Form, MachInst, SassError, Word,
};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

fn seed() -> u64 {
    std::env::var("TANGLE_RANDOM_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15)
}

fn per_form() -> usize {
    std::env::var("TANGLE_RANDOM_PER_FORM")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24)
}

/// `TANGLE_RANDOM_FORMS=UTMALDG,SYNCS` restricts a run by hand to the forms with those
/// mnemonics (for probing new forms; the figures and floors are for the whole table).
fn form_selected(form: &Form) -> bool {
    std::env::var("TANGLE_RANDOM_FORMS")
        .map_or(true, |names| names.split(',').any(|n| n == form.name))
}

fn sext(v: u64, width: u32) -> i64 {
    let s = 64 - width;
    ((v << s) as i64) >> s
}

/// A random value of `bits` bits, biased towards small and extreme values.
fn bits(rng: &mut Rng, width: u32) -> u64 {
    let m = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    match rng.below(4) {
        0 => rng.below(16) & m,
        1 => m - (rng.below(16) & m),
        _ => rng.next() & m,
    }
}

fn random_reg(rng: &mut Rng, align: u8, rz_ok: bool) -> u8 {
    let mut r = if rng.below(5) == 0 {
        255
    } else {
        rng.below(255) as u8
    };
    if align > 1 && r != 255 {
        r -= r % align;
    }
    if !rz_ok && r == 255 {
        r = 4;
    }
    r
}

/// A random typed instruction of `form` at `addr`, or `None` when its computed modifier
/// matches no value (then no instruction with these operands exists).
fn random_inst(rng: &mut Rng, arch: Arch, form: &'static Form, addr: u64) -> Option<MachInst> {
    let yield_bit = rng.coin();
    let control = Control {
        stall: if yield_bit {
            1 + rng.below(11) as u8
        } else {
            rng.below(16) as u8
        },
        yield_bit,
        write_sb: (form.write_sb && rng.coin()).then(|| rng.below(6) as u8),
        read_sb: (form.read_sb && rng.coin()).then(|| rng.below(6) as u8),
        wait: if form.wait_ok { rng.below(64) as u8 } else { 0 },
        reuse: 0,
    };
    let guard = Guard {
        pred: rng.below(8) as u8,
        negated: rng.coin(),
    };
    let mods = form
        .mods
        .iter()
        .map(|m| m.values[rng.below(m.values.len() as u64) as usize].0)
        .collect();
    let mut operands = Vec::new();
    for o in &form.ops {
        let width = o.width();
        let val = match o.kind {
            _ if o.hide.is_some() && rng.coin() => {
                let h = o.hide.unwrap();
                match o.kind {
                    OpndKind::Reg => Val::Reg(Reg(h as u8)),
                    OpndKind::UReg => Val::UReg(UReg(h as u8)),
                    OpndKind::Pred => Val::Pred(Pred(h as u8)),
                    OpndKind::UPred => Val::UPred(UPred(h as u8)),
                    _ => Val::Imm((h << o.scale) as i64),
                }
            }
            OpndKind::Reg => Val::Reg(Reg(random_reg(rng, o.align, o.rz_ok))),
            OpndKind::UReg => {
                let mut u = rng.below(64) as u8;
                if o.align > 1 && u != 63 {
                    u -= u % o.align;
                }
                Val::UReg(UReg(u))
            }
            OpndKind::Pred => Val::Pred(Pred(rng.below(8) as u8)),
            OpndKind::UPred => Val::UPred(UPred(rng.below(8) as u8)),
            OpndKind::Bar => Val::Bar(Barrier(rng.below(16) as u8)),
            OpndKind::UImm => Val::Imm((bits(rng, width) << o.scale) as i64),
            OpndKind::SImm => Val::Imm(sext(bits(rng, width), width) << o.scale),
            OpndKind::F32 => {
                // Common constants, extremes (denormals, the smallest normal, the largest
                // finite, infinities) and random bit patterns.
                let f = [
                    0.5f32,
                    -2.5,
                    100.0,
                    1.0,
                    -126.0,
                    3.0e-5,
                    0.1,
                    1e10,
                    f32::MIN_POSITIVE,
                    f32::MAX,
                    -f32::INFINITY,
                    f32::from_bits(1),
                    f32::from_bits(0x007f_ffff),
                ];
                let b = if rng.coin() {
                    f[rng.below(f.len() as u64) as usize].to_bits() as u64
                } else {
                    rng.next() & 0xffff_ffff
                };
                Val::F32((b >> o.scale << o.scale) as u32)
            }
            OpndKind::F64Hi => {
                let f = [
                    0.5f64,
                    -2.5,
                    100.0,
                    1.0,
                    1e100,
                    -3.0e-200,
                    f64::MIN_POSITIVE,
                ];
                let b = if rng.coin() {
                    f[rng.below(f.len() as u64) as usize].to_bits()
                } else {
                    rng.next()
                };
                Val::F64(b >> 32 << 32)
            }
            OpndKind::F16 => {
                Val::F16([0x3c00u16, 0xc500, 0x0001, 0x7bff, 0][rng.below(5) as usize])
            }
            OpndKind::SbList => Val::Imm(rng.below(64) as i64),
            // Any bf16 half, negative zero and the specials included (`tests/bf16.rs`
            // checks all of them).
            OpndKind::Bf16 => Val::Bf16(
                [0x3f80u16, 0x8000, 0xc2f7, 0x0001, 0x7f80, 0xffc1][rng.below(6) as usize]
                    ^ (rng.below(2) as u16 * rng.below(0x1_0000) as u16),
            ),
            OpndKind::CBank => Val::CBank {
                bank: rng.below(32) as u8,
                // Any 16 bits: nvdisasm prints the offset rounded down to a word (bits 38-39).
                offset: rng.below(0x1_0000) as u16,
            },
            // Every value names a special register (`SR<n>` where nvdisasm knows no name).
            OpndKind::SReg | OpndKind::SUReg => Val::SReg(rng.below(256) as u8),
            OpndKind::Target => {
                let off = sext(bits(rng, width.min(20)), width.min(20)) << o.scale;
                Val::Target((addr as i64 + 16).wrapping_add(off))
            }
            OpndKind::Mem(fmt) => {
                let ow: u32 = o.offset.iter().map(|p| p.1 as u32).sum();
                let offset = if ow == 0 { 0 } else { sext(bits(rng, ow), ow) };
                let base = Reg(random_reg(rng, o.align, o.rz_ok));
                match fmt {
                    MemFmt::CIndexed => Val::CBankIdx {
                        bank: rng.below(32) as u8,
                        base,
                        offset,
                    },
                    _ => Val::Mem(Addr {
                        base: if fmt == MemFmt::UrAddr {
                            Reg(255)
                        } else {
                            base
                        },
                        ureg: o.ureg.map(|_| UReg(rng.below(64) as u8)),
                        desc: UReg(if o.desc.is_some() {
                            rng.below(64) as u8
                        } else {
                            4
                        }),
                        no_desc: fmt == MemFmt::GlobalPlain,
                        offset,
                        x4: o.x4.is_some() && rng.coin(),
                        x8: o.x4.is_some() && rng.coin(),
                        wide: o.wide.is_some() && rng.coin(),
                    }),
                }
            }
            OpndKind::Fixed(t) => Val::Fixed(t),
            OpndKind::RpcHalf => Val::Rpc(RpcHalf::from_field(rng.below(2))),
        };
        operands.push(Operand {
            val,
            neg: o.neg.is_some() && rng.below(3) == 0,
            not: o.not.is_some() && rng.below(3) == 0,
            abs: o.abs.is_some() && rng.below(3) == 0,
            reuse: o.reuse.is_some() && yield_bit && rng.coin(),
            swz: match o.swz {
                Some(_) => Swizzle::from_field(rng.below(4)),
                None => Swizzle::H1H0,
            },
        });
    }
    let mut inst = MachInst {
        form,
        guard,
        mods,
        operands,
        control,
    };
    // A computed modifier (IMAD's alternative names) follows from the operands.
    let computed: Vec<usize> = (0..form.mods.len())
        .filter(|&i| form.mods[i].computed.is_some())
        .collect();
    if computed.is_empty() {
        return Some(inst);
    }
    let i = computed[0];
    for &(v, _) in &form.mods[i].values {
        inst.mods[i] = v;
        if inst.encode(arch, addr).is_ok() {
            return Some(inst);
        }
    }
    None
}

/// Every random instruction of every form on `arch` that encodes and decodes: the word,
/// the typed instruction and its address. Failures of the decode check go to `failures`.
fn random_words(arch: Arch, seed: u64, failures: &mut Vec<String>) -> (Vec<(Word, String)>, usize) {
    let mut rng = Rng(seed ^ (arch.number() as u64) << 40);
    let mut out = Vec::new();
    let mut refused = 0;
    for form in forms::all()
        .iter()
        .filter(|f| f.on(arch) && form_selected(f))
    {
        for _ in 0..per_form() {
            let addr = 16 * out.len() as u64;
            let Some(inst) = random_inst(&mut rng, arch, form, addr) else {
                continue;
            };
            let w = match inst.encode(arch, addr) {
                Ok(w) => w,
                Err(SassError::BadInst { .. }) => continue,
                Err(e) => {
                    failures.push(format!("{arch} {}: encode gave {e}", form.name));
                    continue;
                }
            };
            match decode_typed(arch, w, addr) {
                Ok(back) if back == inst => {
                    // The roles of every form and field value are computed without a
                    // panic (register widths come from the modifiers' text).
                    let (defs, uses) = (back.defs(), back.uses());
                    assert!(defs.len() + uses.len() < 64, "{w}: roles {defs:?} {uses:?}");
                    out.push((w, decode(arch, w, addr).unwrap().text()))
                }
                Ok(back) => failures.push(format!(
                    "{arch} {w}: encoded from {} {:?}, decodes as {} {:?}",
                    form.name, inst.operands, back.form.name, back.operands
                )),
                // Words whose text would be ambiguous (an IADD3 whose first carry-out is PT
                // but not its second, a NaN immediate, ...) are refused by design.
                Err(_) => refused += 1,
            }
        }
    }
    (out, refused)
}

#[test]
fn random_typed_instructions_decode_to_themselves() {
    let mut failures = Vec::new();
    let mut total = 0;
    for arch in Arch::ALL {
        let (words, refused) = random_words(arch, seed(), &mut failures);
        println!(
            "{arch}: {} random instructions decode to themselves, {refused} refused by the decoder",
            words.len()
        );
        // The decoder must accept most of what the encoder writes: refusals are the
        // ambiguous-text cases only.
        assert!(
            refused * 4 < words.len().max(1),
            "{arch}: {refused} refused, {} accepted",
            words.len()
        );
        total += words.len();
    }
    for f in failures.iter().take(30) {
        println!("FAIL {f}");
    }
    if std::env::var_os("TANGLE_RANDOM_FORMS").is_none() {
        assert!(total > 10_000, "only {total} instructions");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

#[test]
fn random_field_values_print_like_nvdisasm() {
    let name = "random_field_values_print_like_nvdisasm";
    let Some(nv) = require(Tool::Nvdisasm, name) else {
        return;
    };
    let dir = tangle_oracle::scratch_dir();
    let mut failures = Vec::new();
    for arch in Arch::ALL {
        let mut ignored = Vec::new();
        let (words, _) = random_words(arch, seed(), &mut ignored);
        if words.is_empty() {
            // `TANGLE_RANDOM_FORMS` selected no form of this SM.
            continue;
        }
        let path = dir.path().join(format!("random_{}.bin", arch.number()));
        let bytes: Vec<u8> = words.iter().flat_map(|(w, _)| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        let out = nv.run([
            "-b".as_ref(),
            arch.nvdisasm_name().as_ref(),
            path.as_os_str(),
        ]);
        if !out.status.success() {
            failures.push(format!(
                "{arch}: nvdisasm rejects a word: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        }
        let mut theirs = vec![String::new(); words.len()];
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let l = line.trim_start();
            if let Some((a, t)) = l.strip_prefix("/*").and_then(|r| r.split_once("*/")) {
                if let Ok(a) = usize::from_str_radix(a, 16) {
                    theirs[a / 16] = tangle_sass::normalize(t).to_string();
                }
            }
        }
        if golden_io::blessing() {
            // Every sixth: four instructions per form and SM for the golden table.
            let rows: Vec<(u64, Word, String)> = words
                .iter()
                .zip(&theirs)
                .enumerate()
                .filter(|(i, _)| i % 6 == 0)
                .map(|(i, ((w, _), t))| (16 * i as u64, *w, t.clone()))
                .collect();
            golden_io::write("random", arch, &rows);
        }
        for ((w, ours), t) in words.iter().zip(&theirs) {
            if ours != t {
                failures.push(format!("{arch} {w}: nvdisasm `{t}`, tangle `{ours}`"));
            }
        }
        println!("{arch}: {} random instructions compared", words.len());
    }
    for f in failures.iter() {
        println!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

#[test]
fn random_words_never_panic_the_decoder() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for arch in Arch::ALL {
        let samples: Vec<Word> = forms::all()
            .iter()
            .filter(|f| f.on(arch))
            .map(|f| f.sample)
            .collect();
        for i in 0..20_000u64 {
            let w = if i % 2 == 0 {
                let mut w = samples[rng.below(samples.len() as u64) as usize];
                for _ in 0..rng.below(4) {
                    w.0 ^= 1u128 << rng.below(128);
                }
                w
            } else {
                Word(rng.next() as u128 | (rng.next() as u128) << 64)
            };
            let _ = decode(arch, w, 16 * rng.below(4096));
        }
    }
}

#[test]
fn garbage_text_is_an_error_not_a_panic() {
    let mut rng = Rng(42);
    let pieces = [
        "IADD3",
        "R1",
        ",",
        " ",
        "@P0",
        "[",
        "]",
        "c[0x0]",
        "0x10",
        "-",
        "|",
        ".X",
        "UR4",
        "desc[UR4]",
        "PT",
        "!",
        "+INF",
        "BRA",
        "LDG.E",
        ".64",
        "[B------:R-:W-:Y:S01]",
        "RZ.reuse",
        "~",
    ];
    for _ in 0..20_000 {
        let n = rng.below(8);
        let text: String = (0..n)
            .map(|_| pieces[rng.below(pieces.len() as u64) as usize])
            .collect();
        for arch in [Arch::Sm75, Arch::Sm90] {
            let _ = assemble_line(arch, &text, 1, 0);
        }
    }
}
