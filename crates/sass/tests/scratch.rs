//! Every form the encoder can produce, built from scratch (not taken from ptxas output) with
//! every modifier value and a spread of operand values, is disassembled by nvdisasm for each
//! SM: nvdisasm must accept the word and print exactly tangle's text, and tangle must
//! assemble that text back to the same word.

mod golden_io;
mod typed_check;

use tangle_oracle::{require, Tool};
use tangle_sass::form::{get_pieces, set_pieces, MemFmt};
use tangle_sass::{decode, encode, forms, same_but_unprinted, Arch, Control, Form, OpndKind, Word};

const REGS: [u64; 5] = [5, 255, 0, 17, 254];
const PREDS: [u64; 4] = [3, 7, 0, 6];
const UREGS: [u64; 4] = [4, 63, 0, 10];
const IMMS: [u64; 9] = [
    0x10,
    0xffff_fff0,
    0,
    0x1234,
    0x7fff_ffff,
    1,
    2,
    0x8000_0000,
    0x10000,
];
const F32S: [f32; 5] = [0.5, -2.5, 100.0, 1.0, -126.0];

fn variant(arch: Arch, form: &Form, k: usize) -> Word {
    let mut w = Word(form.sample.0 & form.const_mask());
    // Guards: none, `@P2`/`@UP2`, `@!P5`/`@!UP5` (uniform-datapath forms print `UP`).
    w.set(12, 4, [7, 2, 7, 0xd][k % 4]);
    // Cycle through legal control codes too.
    let ctl = Control {
        stall: (k % 11 + 1) as u8,
        yield_bit: k % 2 == 0,
        write_sb: Some((k % 8) as u8).filter(|&s| s < 7),
        read_sb: Some(((k + 3) % 8) as u8).filter(|&s| s < 7),
        wait: (k * 7 % 64) as u8,
        reuse: 0,
    };
    let ctl = Control {
        write_sb: if form.write_sb { ctl.write_sb } else { None },
        read_sb: if form.read_sb { ctl.read_sb } else { None },
        wait: if form.wait_ok { ctl.wait } else { 0 },
        ..ctl
    };
    ctl.encode(&mut w);
    for (i, m) in form.mods.iter().enumerate() {
        let (v, _) = m.values[(k + i) % m.values.len()];
        set_pieces(&mut w, &m.pieces, v);
    }
    let mut reuse = 0u8;
    // Once an optional operand is hidden, later optional operands of the same kind are hidden
    // too: `P0` alone must mean the first carry-out (the other way round is ambiguous text,
    // which the decoder refuses).
    let mut hidden_kinds = Vec::new();
    for (i, op) in form.ops.iter().enumerate() {
        let j = k + i;
        let width = op.width();
        let fit = |v: u64| {
            if width >= 64 {
                v
            } else {
                v & ((1u64 << width) - 1)
            }
        };
        let v = match op.kind {
            // Pairs and quads: rounded down to their alignment (254 becomes 252 for a quad).
            OpndKind::Reg if op.align > 1 && !op.rz_ok => {
                let r = [4, 0, 16, 254][j % 4];
                r - r % op.align as u64
            }
            OpndKind::Reg if op.align > 1 => {
                let r = [4, 255, 0, 16, 254][j % 5];
                if r == 255 {
                    r
                } else {
                    r - r % op.align as u64
                }
            }
            OpndKind::Reg if !op.rz_ok => [5, 0, 17, 254][j % 4],
            OpndKind::Reg => REGS[j % REGS.len()],
            // URZ is refused where RZ is (SM90 texture handles print `???63`).
            OpndKind::UReg if !op.rz_ok => [4, 0, 62][j % 3],
            OpndKind::UReg => UREGS[j % UREGS.len()],
            OpndKind::Pred | OpndKind::UPred => PREDS[j % PREDS.len()],
            OpndKind::Bar => [1, 0, 15, 7][j % 4],
            OpndKind::UImm | OpndKind::SImm => fit(IMMS[j % IMMS.len()]),
            OpndKind::F32 => F32S[j % F32S.len()].to_bits() as u64 >> op.scale,
            OpndKind::F64Hi => (F32S[j % F32S.len()] as f64).to_bits() >> 32,
            OpndKind::F16 => [0x0004u64, 0, 0x3c00, 0xc500, 0x0003, 0x7bff][j % 6],
            OpndKind::Bf16 => [0x3f80u64, 0x8000, 0, 0xc2f7, 0x0001, 0x7f7f][j % 6],
            OpndKind::SbList => [0x3fu64, 0, 0x21, 0x1][j % 4],
            OpndKind::CBank => {
                w.set(38, 16, [0x160, 0x0, 0x28, 0x3fc][j % 4]);
                w.set(54, 5, [0, 3, 0, 1][j % 4]);
                continue;
            }
            OpndKind::SReg | OpndKind::SUReg => {
                let t = if op.kind == OpndKind::SReg {
                    tangle_sass::SREGS
                } else {
                    tangle_sass::SUREGS
                };
                let mut v = t[j % t.len()].0;
                if op.kind == OpndKind::SUReg && !tangle_sass::sureg_on(v, arch) {
                    v = t[0].0;
                }
                v
            }
            OpndKind::Fixed(_) => continue,
            OpndKind::RpcHalf => (j % 2) as u64,
            OpndKind::Target => fit([0x40u64 >> op.scale, u64::MAX << 2 >> op.scale, 0][j % 3]),
            OpndKind::Mem(fmt) => {
                if let Some(d) = op.desc {
                    // The unprinted descriptor: UR4 (what the assembler writes) and others
                    // (UR6, URZ), which must print alike (`docs/sass.md`, "Text").
                    w.set(d.0 as u32, d.1 as u32, [4, 6, 63][j % 3]);
                }
                if let Some(u) = op.ureg {
                    let v = if fmt == MemFmt::CIndexed {
                        [0, 3][j % 2]
                    } else {
                        UREGS[j % UREGS.len()]
                    };
                    w.set(u.0 as u32, u.1 as u32, v);
                }
                let base = if op.rz_ok {
                    REGS[j % REGS.len()]
                } else {
                    [4, 16, 0][j % 3]
                };
                let ow: u32 = op.offset.iter().map(|p| p.1 as u32).sum();
                if ow > 0 {
                    // Negative offsets are refused for uniform-register addresses and for
                    // SM75's absolute global addresses (`[RZ+off]`, printed unsigned).
                    let absolute =
                        matches!(fmt, MemFmt::Global | MemFmt::GlobalPlain) && base == 255;
                    let n = if fmt == MemFmt::UrAddr || absolute {
                        3
                    } else {
                        4
                    };
                    let off = [0x10u64, 0, 0x8, u64::MAX - 0xf][j % n];
                    set_pieces(&mut w, &op.offset, off & ((1u64 << ow) - 1));
                }
                if fmt == MemFmt::UrAddr {
                    continue;
                }
                if let Some(b) = op.wide {
                    // An RZ base takes the 64-bit bit, as ptxas writes it (the text is alike).
                    w.set_bit(b as u32, j % 2 == 0 || REGS[j % REGS.len()] == 255);
                }
                if let Some(b) = op.x4 {
                    // Not with an RZ base (REGS[1]), which nvdisasm prints alike.
                    w.set_bit(b as u32, j % 3 == 1 && j % REGS.len() != 1);
                }
                base
            }
        };
        let v = match op.hide {
            Some(h) if hidden_kinds.contains(&op.kind) => h,
            Some(h) if v == h => {
                hidden_kinds.push(op.kind);
                v
            }
            _ => v,
        };
        set_pieces(&mut w, &op.pieces, v);
        for (b, on) in [
            (op.neg, j % 3 == 1),
            (op.not, j % 3 == 2),
            (op.abs, j / 2 % 2 == 1),
        ] {
            if let Some(b) = b {
                w.set_bit(b as u32, on);
            }
        }
        if let Some(s) = op.reuse {
            if j % 2 == 0 {
                reuse |= 1 << s;
            }
        }
        let _ = get_pieces(w, &op.pieces);
    }
    // nvdisasm prints reuse flags only when the yield bit is set.
    if w.bit(109) {
        w.set(122, 4, reuse as u64);
    }
    w
}

fn run_nvdisasm(
    nv: &tangle_oracle::Oracle,
    arch: Arch,
    words: &[Word],
    dir: &std::path::Path,
) -> Result<Vec<String>, (usize, String)> {
    let path = dir.join("w.bin");
    std::fs::write(
        &path,
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let out = nv.run([
        "-b".as_ref(),
        arch.nvdisasm_name().as_ref(),
        path.as_os_str(),
    ]);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let addr = err
            .split("address 0x")
            .nth(1)
            .and_then(|s| {
                usize::from_str_radix(s.split(|c: char| !c.is_ascii_hexdigit()).next()?, 16).ok()
            })
            .unwrap_or(0);
        return Err((addr / 16, err.into_owned()));
    }
    let mut texts = vec![String::new(); words.len()];
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let l = line.trim_start();
        if let Some((a, t)) = l.strip_prefix("/*").and_then(|r| r.split_once("*/")) {
            if let Ok(a) = usize::from_str_radix(a, 16) {
                texts[a / 16] = tangle_sass::normalize(t).to_string();
            }
        }
    }
    Ok(texts)
}

#[test]
fn every_form_encoded_from_scratch_matches_nvdisasm() {
    let Some(nv) = require(
        Tool::Nvdisasm,
        "every_form_encoded_from_scratch_matches_nvdisasm",
    ) else {
        return;
    };
    let dir = tangle_oracle::scratch_dir();
    let mut failures = Vec::new();
    let mut count = 0;
    for arch in Arch::ALL {
        let mut words = Vec::new();
        let mut ours = Vec::new();
        for form in forms::all().iter().filter(|f| f.on(arch)) {
            let mut n = form
                .mods
                .iter()
                .map(|m| m.values.len())
                .max()
                .unwrap_or(1)
                .max(6);
            if form.mods.iter().any(|m| m.computed.is_some()) {
                // Alternative names depend on operand values: cover many combinations.
                n = 80;
            }
            for k in 0..n {
                let w = variant(arch, form, k);
                let addr = 16 * words.len() as u64;
                match decode(arch, w, addr) {
                    Ok(i) => {
                        ours.push(i.text());
                        words.push(w);
                    }
                    Err(e) => failures.push(format!(
                        "{arch} {} variant {k}: we refuse our own word {w}: {e}",
                        form.name
                    )),
                }
            }
        }
        let texts = match run_nvdisasm(&nv, arch, &words, dir.path()) {
            Ok(t) => t,
            Err((i, err)) => {
                failures.push(format!(
                    "{arch}: nvdisasm rejects `{}` ({}): {err}",
                    ours[i], words[i]
                ));
                continue;
            }
        };
        if golden_io::blessing() {
            let rows: Vec<(u64, Word, String)> = words
                .iter()
                .zip(&texts)
                .enumerate()
                .filter(|(i, _)| i % 8 == 0)
                .map(|(i, (&w, t))| (16 * i as u64, w, t.clone()))
                .collect();
            golden_io::write("scratch", arch, &rows);
        }
        for (i, (w, (o, t))) in words.iter().zip(ours.iter().zip(&texts)).enumerate() {
            count += 1;
            if o != t {
                failures.push(format!("{arch} {w}: nvdisasm `{t}`, tangle `{o}`"));
                continue;
            }
            match encode(arch, t, Control::decode(*w), 16 * i as u64) {
                Ok(back) if back == *w => {}
                Ok(back) if same_but_unprinted(arch, *w, back, 16 * i as u64) => {}
                Ok(back) => failures.push(format!("{arch} `{t}`: {w} assembled to {back}")),
                Err(e) => failures.push(format!("{arch} `{t}`: {e}")),
            }
        }
    }
    println!("{count} words built from scratch checked against nvdisasm");
    for f in &failures {
        println!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

/// The from-scratch words need no oracle for the typed round trip: every one that decodes
/// re-encodes from its typed form, and builds again from its parts, to the same word.
#[test]
fn every_scratch_word_round_trips_through_the_typed_form() {
    let mut failures = Vec::new();
    let mut count = 0;
    for arch in Arch::ALL {
        for form in forms::all().iter().filter(|f| f.on(arch)) {
            for k in 0..80 {
                let w = variant(arch, form, k);
                let addr = 16 * k as u64;
                if decode(arch, w, addr).is_err() {
                    continue;
                }
                count += 1;
                if let Err(e) = typed_check::typed_round_trip(arch, w, addr) {
                    failures.push(format!("{arch} {} {w}: {e}", form.name));
                }
            }
        }
    }
    for f in failures.iter() {
        println!("FAIL {f}");
    }
    assert!(count > 10_000, "only {count} words");
    assert!(failures.is_empty(), "{} of {count} failed", failures.len());
}
