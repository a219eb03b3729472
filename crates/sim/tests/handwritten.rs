//! Hand-written SASS (assembled by tangle-sass, no oracle needed): the simulator's failure
//! reports — deadlock, livelock, fault, refused word, bad launch — each with its position,
//! never a panic or a hang.

use tangle_sass::{assemble, Arch, Word};
use tangle_sched::Policy;
use tangle_sim::{run, Arg, BarrierModel, Dim3, FaultKind, Kernel, Launch, Options, SimError};

fn kernel(text: &str, params: &[u32]) -> Kernel {
    let words = assemble(Arch::Sm86, text).unwrap();
    Kernel::from_words(Arch::Sm86, "k", &words, params)
}

fn launch(args: Vec<Arg>) -> Launch {
    Launch {
        grid: Dim3::new(1, 1, 1),
        block: Dim3::new(32, 1, 1),
        dynamic_shared: 0,
        args,
    }
}

fn all_policies() -> Vec<Policy> {
    tangle_sched::expand("all", "SASS simulator", &tangle_sim::SUPPORTED).unwrap()
}

/// Lanes 16-31 wait at `BSYNC B0` for the whole warp while lanes 0-15 wait at a full
/// `WARPSYNC`: neither can be released.
const DEADLOCK: &str = "S2R R0, SR_LANEID
ISETP.GE.U32.AND P0, PT, R0, 0x10, PT
BSSY B0, 0x60
@P0 BRA 0x50
WARPSYNC 0xffffffff
BSYNC B0
EXIT";

#[test]
fn a_deadlock_names_each_waiting_set_with_its_lanes_and_pc() {
    let k = kernel(DEADLOCK, &[]);
    for p in all_policies() {
        match run(&k, &launch(vec![]), &Options::new(p)) {
            Err(SimError::Deadlock { groups, .. }) => {
                let mut seen: Vec<(u32, u32)> = groups.iter().map(|g| (g.lanes, g.pc)).collect();
                seen.sort();
                assert_eq!(seen, [(0x0000_ffff, 0x40), (0xffff_0000, 0x50)], "{p}");
                assert!(
                    groups.iter().any(|g| g.state.starts_with("BSYNC B0")),
                    "{p}"
                );
                assert!(
                    groups.iter().any(|g| g.state.starts_with("WARPSYNC")),
                    "{p}"
                );
            }
            other => panic!("{p}: expected a deadlock, got {other:?}"),
        }
    }
}

#[test]
fn a_loop_that_never_ends_is_a_livelock_within_the_budget() {
    let k = kernel("NOP\nBRA 0x0", &[]);
    let mut o = Options::new(Policy::Adversarial);
    o.step_budget = 500;
    match run(&k, &launch(vec![]), &o) {
        Err(SimError::Livelock { steps, groups }) => {
            assert_eq!(steps, 500);
            assert_eq!(groups.len(), 1);
            assert_eq!(groups[0].lanes, !0);
        }
        other => panic!("expected a livelock, got {other:?}"),
    }
}

#[test]
fn an_access_outside_every_buffer_is_a_fault_naming_lane_and_pc() {
    let k = kernel(
        "LDC.64 R2, c[0x0][0x160]\nLDG.E.64 R4, [R2.64+0x100]\nEXIT",
        &[8],
    );
    match run(
        &k,
        &launch(vec![Arg::Buffer(vec![0; 16])]),
        &Options::new(Policy::RoundRobin),
    ) {
        Err(SimError::Fault { site, kind }) => {
            assert_eq!(site.pc, 0x10);
            assert_eq!(site.lane, Some(0));
            assert!(matches!(kind, FaultKind::GlobalOutOfBounds { size: 8, .. }));
        }
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn a_word_the_decoder_refuses_is_reported_where_it_is_reached() {
    let mut words = assemble(Arch::Sm86, "NOP\nNOP").unwrap();
    words.push(Word(0x7ff));
    let k = Kernel::from_words(Arch::Sm86, "k", &words, &[]);
    match run(&k, &launch(vec![]), &Options::new(Policy::Realistic)) {
        Err(SimError::Refused { site, .. }) => assert_eq!(site.pc, 0x20),
        other => panic!("expected a refused word, got {other:?}"),
    }
}

/// RPCMOV decodes (the return program counter's halves), but the simulator does not model
/// the return program counter: it refuses the move with a typed error at its pc rather
/// than guess a value.
#[test]
fn a_return_pc_move_is_refused_as_unsupported_where_it_is_reached() {
    let text = "NOP\nRPCMOV.32 R5, Rpc.HI\nEXIT";
    let k = kernel(text, &[]);
    match run(&k, &launch(vec![]), &Options::new(Policy::Realistic)) {
        Err(SimError::Unsupported { site, text, .. }) => {
            assert_eq!(site.pc, 0x10);
            assert_eq!(text, "RPCMOV.32 R5, Rpc.HI");
        }
        other => panic!("expected an unsupported operation, got {other:?}"),
    }
}

#[test]
fn a_launch_that_does_not_fit_the_parameters_is_bad_input() {
    let k = kernel("EXIT", &[8, 4]);
    for args in [
        vec![],
        vec![Arg::U32(1), Arg::U32(2)],
        vec![Arg::Buffer(vec![]); 3],
    ] {
        let e = run(&k, &launch(args), &Options::new(Policy::RoundRobin)).unwrap_err();
        assert!(matches!(e, SimError::BadLaunch(_)), "{e}");
        assert!(e.is_bad_input());
    }
    let mut l = launch(vec![Arg::Buffer(vec![]), Arg::U32(1)]);
    l.block = Dim3::new(2048, 1, 1);
    assert!(matches!(
        run(&k, &l, &Options::new(Policy::RoundRobin)),
        Err(SimError::BadLaunch(_))
    ));
}

#[test]
fn the_simulator_refuses_policies_it_does_not_support() {
    let k = kernel("EXIT", &[]);
    let e = run(&k, &launch(vec![]), &Options::new(Policy::Strict)).unwrap_err();
    assert!(e.to_string().contains("does not support"), "{e}");
    // Exhaustive is a search: `explore`, not `run`.
    assert!(run(&k, &launch(vec![]), &Options::new(Policy::Exhaustive)).is_err());
}

/// Lane 0 stores 1 and lane 1 stores 2 to the same word on the two sides of a branch:
/// the final value depends on which side runs last.
const RACE: &str = "S2R R0, SR_LANEID
LDC.64 R2, c[0x0][0x160]
ISETP.NE.U32.AND P0, PT, R0, RZ, PT
IADD3 R5, R0, 0x1, RZ
@P0 BRA 0x70
STG.E [R2.64], R5
EXIT
STG.E [R2.64], R5
EXIT";

#[test]
fn exhaustive_search_finds_every_outcome_of_a_race() {
    let k = kernel(RACE, &[8]);
    let mut l = launch(vec![Arg::Buffer(vec![0; 4])]);
    l.block = Dim3::new(2, 1, 1);
    let o = Options::new(Policy::Exhaustive);
    let found = tangle_sim::explore(&k, &l, &o, tangle_sched::ExhaustiveBound::default()).unwrap();
    assert!(!found.cut_off);
    assert_eq!(found.runs, 2);
    let mut finals: Vec<u8> = found
        .outcomes
        .iter()
        .map(|(b, _)| b[0].as_ref().unwrap()[0])
        .collect();
    finals.sort();
    assert_eq!(finals, [1, 2]);
    // A bound of one run cuts the search off.
    let bound = tangle_sched::ExhaustiveBound {
        max_runs: 1,
        max_depth: 100,
    };
    assert!(tangle_sim::explore(&k, &l, &o, bound).unwrap().cut_off);
    // A deadlock under some schedule is the search's error.
    let d = kernel(DEADLOCK, &[]);
    let e = tangle_sim::explore(
        &d,
        &launch(vec![]),
        &o,
        tangle_sched::ExhaustiveBound::default(),
    );
    assert!(matches!(e, Err(SimError::Deadlock { .. })));
}

#[test]
fn barrier_models_have_names_that_round_trip() {
    for m in BarrierModel::ALL {
        assert_eq!(BarrierModel::from_name(m.name()), Some(m));
    }
    assert_eq!(BarrierModel::from_name("per-thread"), None);
}

fn hazards(text: &str) -> Vec<String> {
    let k = kernel(text, &[]);
    let mut l = launch(vec![]);
    l.dynamic_shared = 64;
    let mut o = Options::new(Policy::RoundRobin);
    o.hazards = true;
    let out = run(&k, &l, &o).unwrap();
    out.hazards.into_iter().map(|h| h.what).collect()
}

#[test]
fn hazard_mode_follows_scoreboards_latencies_and_in_order_memory() {
    // ptxas's pattern: an unguarded LDS completes before a later LDS whose scoreboard is
    // waited on.
    let ok = "[B------:R-:W-:Y:S04] LDS R7, [RZ]
[B------:R-:W0:Y:S02] LDS R4, [0x4]
[B0-----:R-:W-:-:S05] IADD3 R5, R7, R4, R5
[B------:R-:W-:Y:S05] EXIT";
    assert_eq!(hazards(ok), Vec::<String>::new());
    // Without the wait both reads are early.
    let no_wait = ok.replace("[B0-----:R-:W-:-:S05] IADD3", "[B------:R-:W-:-:S05] IADD3");
    let h = hazards(&no_wait);
    assert!(
        h.iter()
            .any(|m| m.contains("R4 read without waiting on scoreboard SB0")),
        "{h:?}"
    );
    assert!(
        h.iter()
            .any(|m| m.contains("R7 read from the memory access")),
        "{h:?}"
    );
    // A fixed-latency result read one cycle later.
    let early = "[B------:R-:W-:Y:S01] IADD3 R1, R2, R3, RZ
[B------:R-:W-:Y:S04] IADD3 R4, R1, R1, RZ
[B------:R-:W-:Y:S05] EXIT";
    let h = hazards(early);
    assert_eq!(h.len(), 1, "{h:?}");
    assert!(h[0].contains("R1 read 1 cycles after"), "{h:?}");
    assert_eq!(
        hazards(&early.replace("S01] IADD3 R1", "S04] IADD3 R1")),
        Vec::<String>::new()
    );
    // IMAD.WIDE reads the high register of its 64-bit addend 2 cycles late (ptxas's SM90
    // schedules), so R3 written 3 cycles before by a MOV (the other pipe: 5 cycles) is in
    // time; the low register R2 is not.
    let wide = "[B------:R-:W-:Y:S04] MOV R2, 0x10
[B------:R-:W-:Y:S03] MOV R3, RZ
[B------:R-:W-:Y:S04] IMAD.WIDE.U32 R8, R5, 0x4, R2
[B------:R-:W-:Y:S05] EXIT";
    assert_eq!(hazards(wide), Vec::<String>::new());
    let h = hazards(&wide.replace("MOV R3, RZ", "MOV R2, RZ"));
    assert!(
        h.iter().any(|m| m.contains("R2 read 3 cycles after")),
        "{h:?}"
    );
    // Two cycles are enough from an IMAD (the same pipe), not from a MOV: an H100 read the
    // old value of a MOV's result 4 cycles later in an IMAD (`docs/gpu.md`).
    let same_pipe = wide.replace("S03] MOV R3, RZ", "S02] IMAD.MOV.U32 R3, RZ, RZ, RZ");
    assert_eq!(hazards(&same_pipe), Vec::<String>::new());
    let h = hazards(&wide.replace("S03] MOV R3", "S02] MOV R3"));
    assert!(
        h.iter().any(|m| m.contains("R3 read 2 cycles after")),
        "{h:?}"
    );
    // ptxas (sm_86, a fuzz program's broadcast): the shuffle's source is overwritten after
    // a wait on the shuffle's write scoreboard alone; the result is written after the
    // source is read, so that wait covers the read scoreboard too.
    let shfl = "[B------:R0:W2:Y:S02] SHFL.IDX PT, R10, R10, 0x1f, 0x1f
[B--2---:R-:W-:-:S05] SEL R10, R10, RZ, !P0
[B------:R-:W-:Y:S05] EXIT";
    assert_eq!(hazards(shfl), Vec::<String>::new());
    // Waiting on neither is a hazard: the read may still be pending.
    let h = hazards(&shfl.replace("[B--2---:R-:W-:-:S05] SEL", "[B------:R-:W-:-:S05] SEL"));
    assert!(
        h.iter()
            .any(|m| m.contains("R10 overwritten while its reader")),
        "{h:?}"
    );
}

/// `VIADD R3, R0, -UR4` (SM90, a negated uniform addend, as ptxas writes a fuzz
/// program's loop count): each lane stores its lane id minus 5.
#[test]
fn viadd_negates_its_uniform_addend() {
    let text = "S2R R0, SR_LANEID
UMOV UR4, 0x5
VIADD R3, R0, -UR4
LDC.64 R4, c[0x0][0x210]
ULDC.64 UR6, c[0x0][0x208]
IMAD.WIDE.U32 R4, R0, 0x4, R4
STG.E desc[UR6][R4.64], R3
EXIT";
    let words = assemble(Arch::Sm90, text).unwrap();
    let k = Kernel::from_words(Arch::Sm90, "k", &words, &[8]);
    let out = run(
        &k,
        &launch(vec![Arg::Buffer(vec![0; 128])]),
        &Options::new(Policy::RoundRobin),
    )
    .unwrap();
    let got: Vec<i32> = out.buffers[0]
        .as_ref()
        .unwrap()
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(got, (0..32).map(|l| l - 5).collect::<Vec<i32>>());
}

/// `@P0 BRA P1, t` (ptxas's divergent switch on sm_86) is taken by the lanes where both
/// predicates hold: lanes 8-23 store 2, the others 1.
#[test]
fn a_branch_with_a_source_predicate_is_taken_where_both_hold() {
    let text = "S2R R0, SR_LANEID
LDC.64 R2, c[0x0][0x160]
IMAD.WIDE.U32 R2, R0, 0x4, R2
ISETP.GE.U32.AND P0, PT, R0, 0x8, PT
ISETP.LT.U32.AND P1, PT, R0, 0x18, PT
MOV R5, 0x1
@P0 BRA P1, 0x90
STG.E [R2.64], R5
EXIT
MOV R5, 0x2
STG.E [R2.64], R5
EXIT";
    let k = kernel(text, &[8]);
    for p in all_policies() {
        let out = run(
            &k,
            &launch(vec![Arg::Buffer(vec![0; 128])]),
            &Options::new(p),
        )
        .unwrap();
        let got: Vec<u32> = out.buffers[0]
            .as_ref()
            .unwrap()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let want: Vec<u32> = (0..32)
            .map(|l| if (8..24).contains(&l) { 2 } else { 1 })
            .collect();
        assert_eq!(got, want, "{p}");
    }
}

/// ptxas's `UPLOP3` with bit 67 clear (the SASS layer refuses it: nvdisasm ignores the
/// bit, so its form keeps it constant) is run as the form with the bit set.
#[test]
fn uplop3_with_bit_67_clear_is_run() {
    let w = Word::parse_hex("0x000000000000789c 0x000fc40003f0f070").unwrap();
    assert!(tangle_sass::decode(Arch::Sm86, w, 0).is_err());
    match &tangle_sim::kernel::decode_code(Arch::Sm86, &[w])[0] {
        tangle_sim::kernel::Slot::Inst(i) => {
            assert_eq!(
                i.m.text(Arch::Sm86, 0).unwrap(),
                "UPLOP3.LUT UP0, UPT, UPT, UPT, UPT, 0x80, 0x0"
            )
        }
        other => panic!("{other:?}"),
    }
}

/// `F2F.F64.F32` then `F2F.F32.F64` (SM86): each lane widens lane / 3 (an f32) to a
/// double, adds 2^-30 there (lost again when narrowed back, for lanes >= 2) and stores the
/// double and the narrowed f32; checked against Rust's own conversions.
#[test]
fn f2f_widens_and_narrows_between_f32_and_f64() {
    let text = "S2R R0, SR_LANEID
I2F.U32 R2, R0
FMUL R2, R2, 0.3333333432674407959
F2F.F64.F32 R4, R2
DADD R4, R4, 9.3132257461547851562e-10
F2F.F32.F64 R3, R4
LDC.64 R6, c[0x0][0x160]
LDC.64 R8, c[0x0][0x168]
ULDC.64 UR4, c[0x0][0x118]
IMAD.WIDE.U32 R6, R0, 0x8, R6
IMAD.WIDE.U32 R8, R0, 0x4, R8
STG.E.64 [R6.64], R4
STG.E [R8.64], R3
EXIT";
    let words = assemble(Arch::Sm86, text).unwrap();
    let k = Kernel::from_words(Arch::Sm86, "k", &words, &[8, 8]);
    let out = run(
        &k,
        &launch(vec![Arg::Buffer(vec![0; 256]), Arg::Buffer(vec![0; 128])]),
        &Options::new(Policy::RoundRobin),
    )
    .unwrap();
    let wide: Vec<u64> = out.buffers[0]
        .as_ref()
        .unwrap()
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let narrow: Vec<u32> = out.buffers[1]
        .as_ref()
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for lane in 0..32u32 {
        let x = lane as f32 * f32::from_bits(0x3eaa_aaab);
        let d = x as f64 + 2f64.powi(-30);
        assert_eq!(wide[lane as usize], d.to_bits(), "lane {lane}");
        assert_eq!(narrow[lane as usize], (d as f32).to_bits(), "lane {lane}");
    }
}

/// SM90's packed and vector float atomics (`.BF16x2`, `.F32x2`, `.F32x4`) are refused with
/// the instruction's text, not run as an integer addition on their first register.
#[test]
fn vector_float_atomics_are_refused_not_added_as_integers() {
    for red in [
        "REDG.E.ADD.BF16x2.RN.STRONG.GPU desc[UR4][R2.64], R4",
        "REDG.E.ADD.F32x2.RN.STRONG.GPU desc[UR4][R2.64], R4",
        "ATOMG.E.ADD.F32x4.FTZ.RN.STRONG.GPU PT, R8, desc[UR4][R2.64], R4",
    ] {
        let text = format!(
            "LDC.64 R2, c[0x0][0x210]\nULDC.64 UR4, c[0x0][0x208]\nMOV R4, 0x3f800000\n{red}\nEXIT"
        );
        let words = assemble(Arch::Sm90, &text).unwrap();
        let k = Kernel::from_words(Arch::Sm90, "k", &words, &[8]);
        match run(
            &k,
            &launch(vec![Arg::Buffer(vec![0; 64])]),
            &Options::new(Policy::RoundRobin),
        ) {
            Err(SimError::Unsupported { text, why, .. }) => {
                assert_eq!(text, red);
                assert!(why.contains("vector float atomics"), "{why}");
            }
            other => panic!("{red}: expected a refusal, got {other:?}"),
        }
    }
}
