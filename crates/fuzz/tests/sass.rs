//! The `sass` engines in a smoke campaign: programs compiled by tangle's back end with
//! tangle's lowering, run on the SASS simulator in hazard mode, give the reference's
//! buffers on two SMs under two policies (sizes other than 32 are counted as skipped);
//! and seed 000's baseline lowering, compiled the same way, is caught on a wrong ballot or
//! elect result, then shrunk to a smaller program that still shows it.
//! `TANGLE_SASS_SMOKE=N` runs N seeds instead of the smoke count.

use tangle_fuzz::ast::{count_stmts, RECORD_WORDS};
use tangle_fuzz::build::build_module;
use tangle_fuzz::campaign::Campaign;
use tangle_fuzz::mask::simulate;
use tangle_fuzz::ptxas::judge::{observations, ObsKind};
use tangle_fuzz::sass::{
    compare_sass, reference_bytes, run_sass_campaign, shrink_sass, Arches, SassCheck, SassMismatch,
    WARP,
};
use tangle_fuzz::{generate, GenConfig, Program};
use tangle_interp::Variant;
use tangle_reconverge::Scheme;
use tangle_sass::Arch;
use tangle_sched::Policy;

fn campaign(seeds: std::ops::Range<u64>, sizes: Vec<u32>) -> Campaign {
    Campaign {
        seeds,
        gen: GenConfig {
            nesting: 4,
            size_budget: 30,
        },
        nestings: (1..=5).collect(),
        subgroup_sizes: sizes,
        variant: Variant::Maximal,
        jobs: 2,
        shard: (0, 1),
    }
}

fn check(scheme: Scheme, arches: Arches) -> SassCheck {
    SassCheck {
        scheme,
        arches,
        policies: vec![Policy::RoundRobin, Policy::Adversarial],
    }
}

#[test]
fn tangles_lowering_agrees_on_two_sms() {
    let n: u64 = std::env::var("TANGLE_SASS_SMOKE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12);
    let c = check(Scheme::Scopes, Arches::List(vec![Arch::Sm75, Arch::Sm90]));
    let summary = run_sass_campaign(&campaign(0..n, vec![4, WARP]), &c);
    eprintln!("{summary}");
    assert!(summary.mismatches.is_empty(), "{:?}", summary.mismatches);
    assert_eq!(summary.programs, n);
    assert_eq!(
        summary.runs,
        n * 2 * 2,
        "every program on 2 SMs × 2 policies"
    );
    assert_eq!(
        summary.skipped_sizes, n,
        "size 4 is skipped once per program"
    );
    assert!(summary
        .to_string()
        .contains("program runs skipped at subgroup sizes other than 32"));
    // Without 32 nothing runs, and the summary says every size was skipped.
    let none = run_sass_campaign(&campaign(0..3, vec![4, 8]), &c);
    assert_eq!((none.programs, none.runs, none.skipped_sizes), (0, 0, 6));
}

#[test]
fn seeds_rotate_through_the_five_sms() {
    let sms: Vec<Arch> = (0..5).flat_map(|s| Arches::PerSeed.of(s)).collect();
    assert_eq!(sms, Arch::ALL.to_vec());
    assert_eq!(Arches::PerSeed.of(7), vec![Arch::ALL[2]]);
}

fn size(p: &Program) -> usize {
    count_stmts(&p.body) + p.functions.iter().map(|f| count_stmts(f)).sum::<usize>()
}

/// The observation a wrong word belongs to, from the reference's record.
fn observation_of(program: &Program, word: usize) -> Option<ObsKind> {
    let module = build_module(program);
    let words = simulate(program, WARP).words.len();
    let (bytes, _) = reference_bytes(&module, words).expect("the reference runs");
    let id_word = word / RECORD_WORDS as usize * RECORD_WORDS as usize + 4;
    let id = u32::from_le_bytes(bytes[4 * id_word..4 * id_word + 4].try_into().unwrap());
    observations(program).get(&id.checked_sub(1)?).copied()
}

#[test]
fn the_baseline_is_caught_on_a_ballot_or_elect_and_shrunk() {
    let c = check(Scheme::Baseline, Arches::List(vec![Arch::Sm86]));
    let summary = run_sass_campaign(&campaign(0..40, vec![WARP]), &c);
    eprintln!("{summary}");
    let (seed, mismatch) = summary
        .mismatches
        .iter()
        .find(|(_, m)| matches!(m, SassMismatch::Words { word, .. } if word % RECORD_WORDS as usize != 4))
        .expect("the baseline gives a wrong result word on some seed in 0..40");
    eprintln!("seed {seed}: {mismatch}");
    let program = generate(*seed, campaign(0..1, vec![]).config_of(*seed));
    let SassMismatch::Words { word, .. } = mismatch else {
        unreachable!("found as words")
    };
    let kind = observation_of(&program, *word);
    assert!(
        matches!(kind, Some(ObsKind::Ballot | ObsKind::Elect)),
        "the wrong word is a ballot's or an elect's result, not {kind:?}"
    );
    let small = shrink_sass(&program, mismatch, &c, 2_000);
    let again = compare_sass(&small, &[Arch::Sm86], &c);
    eprintln!("shrunk: {again:?}\n{small:#?}");
    assert!(
        matches!(&again, Err(m) if m.same_kind(mismatch)),
        "the shrunk program still shows a wrong word: {again:?}"
    );
    eprintln!("{} statements shrunk to {}", size(&program), size(&small));
    assert!(size(&small) < size(&program), "shrinking made it smaller");
    // tangle's lowering passes the same program on the same SM.
    let scopes = check(Scheme::Scopes, Arches::List(vec![Arch::Sm86]));
    assert_eq!(compare_sass(&program, &[Arch::Sm86], &scopes), Ok(2));
}

/// Campaign seed 13014's shrunk reproducer (a 5,000-program campaign found 7 such seeds on
/// SM80+): a reduction in one arm of a branch on a uniform input word, in a kernel with no
/// divergent branch, is a `REDUX` into a uniform register. The allocator's machine-level
/// divergence analysis took the branch on the per-lane predicate for a split and refused
/// the uniform register there ("a UR register would be written in divergent code"), until
/// selection marked the branches of such kernels as uniform.
#[test]
fn a_reduction_under_a_uniform_branch_compiles_on_every_sm() {
    use tangle_fuzz::ast::{Collective, Cond, Stmt};
    let program = Program {
        local_size: 1,
        body: vec![Stmt::If {
            cond: Cond::Uniform {
                index: 8,
                value: 40,
            },
            then: vec![],
            els: Some(vec![Stmt::Collective {
                id: 6,
                op: Collective::Sum,
            }]),
        }],
        loops: 0,
        functions: vec![vec![]],
    };
    let c = check(Scheme::Scopes, Arches::List(Arch::ALL.to_vec()));
    let runs = compare_sass(&program, &Arch::ALL, &c).unwrap_or_else(|m| panic!("{m}"));
    assert_eq!(runs, 5 * 2);
}
