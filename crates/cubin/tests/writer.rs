//! The writer without the NVIDIA tools: what it writes, read back by tangle's own cubin
//! reader; the facts it computes from hand-written code, checked against what the code
//! visibly uses; and every refusal, each a typed error naming the kernel and offset.

use tangle_cubin::{analyze, param_base, param_layout, write, Arch, CubinError, Kernel, Param};
use tangle_sass::cubin::{self, eiattr};
use tangle_sass::{assemble, Word};

/// Assembles `text` for `arch` (SM75 spells `BAR.SYNC.DEFER_BLOCKING` as `BAR.SYNC`).
fn code(arch: Arch, text: &str) -> Vec<Word> {
    let text = if arch == Arch::Sm75 {
        text.replace("BAR.SYNC.DEFER_BLOCKING", "BAR.SYNC")
    } else {
        text.to_string()
    };
    assemble(arch, &text).unwrap()
}

/// Two EXITs (one predicated), R9 as the highest register (through a 64-bit pair R8:R9),
/// a BSSY on B2 and a named barrier 5.
const SAMPLE: &str = "S2R R0, SR_LANEID
ISETP.NE.U32.AND P0, PT, R0, RZ, PT
@P0 EXIT
BSSY B2, 0x50
BSYNC B2
BAR.SYNC.DEFER_BLOCKING 0x5, 0x40
IMAD.WIDE.U32 R8, R0, 0x4, RZ
EXIT
BRA 0x80";

#[test]
fn facts_follow_from_the_code() {
    for arch in [Arch::Sm75, Arch::Sm86, Arch::Sm90] {
        let k = Kernel::new("k", code(arch, SAMPLE));
        let f = analyze(arch, &k).unwrap();
        assert_eq!(f.highest_register, Some(9), "{arch}");
        assert_eq!(f.registers, 12, "{arch}");
        assert_eq!(f.exit_offsets, [0x20, 0x70], "{arch}");
        assert_eq!(f.named_barriers, 6, "{arch}");
        assert_eq!(f.convergence_barriers, 3, "{arch}");
        assert!(f.uses_bssy, "{arch}");
    }
    // Only the stack pointer: ptxas's minimum of 4.
    let k = Kernel::new("k", code(Arch::Sm86, "EXIT\nBRA 0x10"));
    let f = analyze(Arch::Sm86, &k).unwrap();
    assert_eq!((f.highest_register, f.registers), (None, 4));
    assert!(!f.uses_bssy && f.named_barriers == 0);
}

#[test]
fn parameters_are_laid_out_with_their_alignment() {
    let params = [
        Param::sized(8),
        Param::sized(4),
        Param::sized(1),
        Param::sized(8),
        Param { size: 12, align: 4 },
    ];
    assert_eq!(param_layout(&params), (vec![0, 8, 12, 16, 24], 36));
    assert_eq!(param_base(Arch::Sm75), 0x160);
    assert_eq!(param_base(Arch::Sm90), 0x210);
}

#[test]
fn the_cubin_reads_back_with_its_sections_symbols_and_attributes() {
    for arch in Arch::ALL {
        let mut a = Kernel::new("first", code(arch, SAMPLE)).with_param_sizes(&[8, 4]);
        a.shared_bytes = 0x100;
        a.local_frame = 0x40;
        a.max_threads = Some([128, 1, 1]);
        let b = Kernel::new("second", code(arch, "EXIT\nBRA 0x10"));
        let bytes = write(arch, &[a.clone(), b.clone()]).unwrap();

        let c = cubin::read(&bytes).unwrap();
        assert_eq!(c.arch, Some(arch));
        let names: Vec<&str> = c.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["first", "second"], "{arch}");
        assert_eq!(c.functions[0].words, a.code);
        assert_eq!(c.functions[1].words, b.code);
        assert_eq!(c.functions[0].align, 128);
        let first = c.symbols.iter().find(|s| s.name == "first").unwrap();
        assert_eq!(
            (first.kind, first.bind, first.size),
            (cubin::STT_FUNC, cubin::STB_GLOBAL, 16 * a.code.len() as u64)
        );
        // EXIT offsets as the reader sees them.
        let info = c.info.iter().find(|i| i.section == first.section).unwrap();
        assert_eq!(
            info.offsets,
            [
                (eiattr::EXIT_INSTR_OFFSETS, 0x20),
                (eiattr::EXIT_INSTR_OFFSETS, 0x70)
            ]
        );

        let secs = cubin::sections(&bytes).unwrap();
        let sec = |n: &str| secs.iter().find(|s| s.name == n).unwrap();
        assert_eq!(
            sec(".nv.constant0.first").size,
            param_base(arch) as u64 + 12
        );
        assert_eq!(sec(".nv.constant0.second").size, param_base(arch) as u64);
        let shared = if arch == Arch::Sm90 { 0x500 } else { 0x100 };
        assert_eq!(sec(".nv.shared.first").size, shared);
        assert!(secs.iter().all(|s| s.name != ".nv.shared.second"));
        // The register count in .text's sh_info on SM75-SM89 only.
        let text_info = sec(".text.first").info;
        let sym = c.symbols.iter().position(|s| s.name == "first").unwrap() as u32 + 1;
        if arch == Arch::Sm90 {
            assert_eq!(text_info, sym);
        } else {
            assert_eq!(text_info, (12 << 24) | sym);
        }
        // The attributes the back end's cubins depend on.
        let d = &sec(".nv.info.first").data;
        let has = |attr: u8, body: &[u8]| {
            d.windows(body.len() + 4).any(|w| {
                w[0] == eiattr::FMT_SVAL
                    && w[1] == attr
                    && w[2] as usize == body.len()
                    && &w[4..] == body
            })
        };
        assert!(has(
            eiattr::MAX_THREADS,
            &[128, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]
        ));
        assert!(has(eiattr::CRS_STACK_SIZE, &[0, 0, 0, 0]));
        let kparam = |ordinal: u16, offset: u16, size: u32| {
            let mut v = vec![0, 0, 0, 0];
            v.extend(ordinal.to_le_bytes());
            v.extend(offset.to_le_bytes());
            v.extend(((0x1f << 12) | (size << 18)).to_le_bytes());
            v
        };
        assert!(has(eiattr::KPARAM_INFO, &kparam(0, 0, 8)), "{arch}");
        assert!(has(eiattr::KPARAM_INFO, &kparam(1, 8, 4)), "{arch}");
        // The header: CUDA OS/ABI, ABI version 8, EM_CUDA, the SM in e_flags.
        assert_eq!(&bytes[..4], b"\x7fELF");
        assert_eq!((bytes[7], bytes[8]), (0x41, 8));
        assert_eq!(u16::from_le_bytes([bytes[18], bytes[19]]), 190);
        let flags = u32::from_le_bytes(bytes[0x30..0x34].try_into().unwrap());
        assert_eq!((flags >> 8) & 0xff, arch.number());
    }
}

fn unsupported(arch: Arch, text: &str, params: &[u32]) -> (u64, String) {
    let k = Kernel::new("k", code(arch, text)).with_param_sizes(params);
    match write(arch, &[k]) {
        Err(CubinError::Unsupported {
            kernel,
            offset,
            what,
        }) => {
            assert_eq!(kernel, "k");
            (offset, what)
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn what_the_writer_cannot_describe_is_refused_at_its_offset() {
    let arch = Arch::Sm86;
    let (at, what) = unsupported(arch, "NOP\nBRX R4 -0x20\nEXIT", &[]);
    assert_eq!(at, 0x10);
    assert!(what.contains("indirect branch"), "{what}");
    let (at, what) = unsupported(arch, "NOP\nNOP\nMOV R0, c[0x2][0x0]\nEXIT", &[]);
    assert_eq!(at, 0x20);
    assert!(what.contains("constant bank 2"), "{what}");
    let (at, what) = unsupported(arch, "LDC R0, c[0x0][0x168]\nEXIT", &[8]);
    assert_eq!(at, 0);
    assert!(what.contains("0x168"), "{what}");
    let (at, what) = unsupported(arch, "BRA 0x100\nEXIT", &[]);
    assert_eq!(at, 0);
    assert!(what.contains("outside"), "{what}");
    // Within the parameters: accepted.
    let k = Kernel::new("k", code(arch, "LDC R0, c[0x0][0x164]\nEXIT")).with_param_sizes(&[8]);
    write(arch, &[k]).unwrap();
}

#[test]
fn bad_descriptions_and_undecodable_words_are_typed_errors() {
    let arch = Arch::Sm86;
    let exit = code(arch, "EXIT");
    let bad = |ks: &[Kernel]| match write(arch, ks) {
        Err(CubinError::BadKernel { why, .. }) => why,
        other => panic!("expected BadKernel, got {other:?}"),
    };
    assert!(bad(&[Kernel::new("", exit.clone())]).contains("non-empty"));
    assert!(bad(&[
        Kernel::new("a", exit.clone()),
        Kernel::new("a", exit.clone())
    ])
    .contains("two kernels"));
    assert!(bad(&[Kernel::new("a", vec![])]).contains("no code"));
    let mut k = Kernel::new("a", exit.clone());
    k.params = vec![Param { size: 4, align: 3 }];
    assert!(bad(&[k]).contains("power of two"));
    let k = Kernel::new("a", exit.clone()).with_param_sizes(&[0]);
    assert!(bad(&[k]).contains("size 0"));
    let k = Kernel::new("a", exit.clone()).with_param_sizes(&[4000, 200]);
    assert!(bad(&[k]).contains("4096"));
    let k = Kernel::new("a", exit.clone()).with_param_sizes(&vec![16000; 300_000]);
    assert!(bad(&[k]).contains("4096"));
    let mut k = Kernel::new("a", exit.clone());
    k.shared_bytes = u32::MAX;
    assert!(bad(&[k]).contains("shared memory"));
    let mut k = Kernel::new("a", exit.clone());
    k.max_threads = Some([0, 1, 1]);
    assert!(bad(&[k]).contains("zero"));
    let k = Kernel::new("a", code(arch, "IMAD.MOV.U32 R254, RZ, RZ, RZ\nEXIT"));
    assert!(bad(&[k]).contains("255"));

    let mut words = exit.clone();
    words.push(Word(0x7ff));
    match write(arch, &[Kernel::new("a", words)]) {
        Err(CubinError::Undecodable { kernel, offset, .. }) => {
            assert_eq!((kernel.as_str(), offset), ("a", 0x10));
        }
        other => panic!("expected Undecodable, got {other:?}"),
    }
}

#[test]
fn spill_offsets_become_annotations_and_must_name_local_accesses() {
    let arch = Arch::Sm86;
    let text = "STL [R1+0x4], R2\nNOP\nLDL R2, [R1+0x4]\nEXIT";
    let mut k = Kernel::new("k", code(arch, text));
    k.local_frame = 8;
    k.spill_offsets = vec![0x0, 0x20];
    let bytes = write(arch, std::slice::from_ref(&k)).unwrap();
    let c = cubin::read(&bytes).unwrap();
    assert_eq!(c.info[0].spills, [0x0, 0x20]);
    // A spill offset that is not an STL or LDL.
    k.spill_offsets = vec![0x10];
    match write(arch, &[k]) {
        Err(CubinError::BadKernel { why, .. }) => assert!(why.contains("0x10"), "{why}"),
        other => panic!("expected BadKernel, got {other:?}"),
    }
}

#[test]
fn a_kernel_can_be_built_from_typed_instructions() {
    use tangle_sass::typed::{b, r, RZ};
    use tangle_sass::{MachInst, Op};
    let arch = Arch::Sm90;
    let insts = [
        MachInst::build(Op::Bssy)
            .o(b(0))
            .target(0x20)
            .finish(arch)
            .unwrap(),
        MachInst::build(Op::Iadd3)
            .o(r(1))
            .o(r(2))
            .o(r(3))
            .o(RZ)
            .finish(arch)
            .unwrap(),
        MachInst::build(Op::Bsync).o(b(0)).finish(arch).unwrap(),
        MachInst::build(Op::Exit).finish(arch).unwrap(),
    ];
    let k = Kernel::from_insts("typed", arch, &insts).unwrap();
    let f = analyze(arch, &k).unwrap();
    assert_eq!((f.highest_register, f.registers), (Some(3), 6));
    assert_eq!(f.exit_offsets, [0x30]);
    assert!(f.uses_bssy);
    let c = cubin::read(&write(arch, std::slice::from_ref(&k)).unwrap()).unwrap();
    assert_eq!(c.functions[0].words, k.code);
}
