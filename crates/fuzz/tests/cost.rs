//! tangle's code against ptxas's (`tangle_fuzz::cost`): a few seeds on one SM give
//! well-formed rows with finite, positive ratios; the counts read from our cubin match what
//! the back end reports; the summary's arithmetic on hand-made rows.

use tangle_fuzz::campaign::Campaign;
use tangle_fuzz::cost::{
    instructions_of, registers_of, run_cost, summarize, CostCheck, CostRow, Metric, Side,
    TSV_HEADER,
};
use tangle_fuzz::ptxas::nvcc;
use tangle_fuzz::GenConfig;
use tangle_interp::Variant;
use tangle_oracle::{require, Tool};
use tangle_sass::Arch;
use tangle_sched::Policy;

const SEEDS: std::ops::Range<u64> = 0..4;

fn campaign() -> Campaign {
    Campaign {
        seeds: SEEDS,
        gen: GenConfig::default(),
        nestings: vec![2, 3],
        subgroup_sizes: vec![32],
        variant: Variant::Maximal,
        jobs: 1,
        shard: (0, 1),
    }
}

#[test]
fn rows_are_well_formed_and_ratios_finite_and_positive() {
    let (Some(_), Some(_)) = (
        require(Tool::Nvcc, "cost rows"),
        require(Tool::Ptxas, "cost rows"),
    ) else {
        return;
    };
    let check = CostCheck {
        nvcc: nvcc::locate_nvcc().expect("nvcc"),
        ptxas: nvcc::locate_ptxas().expect("ptxas"),
        archs: vec![Arch::Sm86],
        policy: Policy::RoundRobin,
        batch: 3,
    };
    let dir = std::env::temp_dir().join(format!("tangle-cost-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let mut streamed = Vec::new();
    let report = run_cost(&campaign(), &check, &dir, |r| streamed.push(r.clone()));
    let _ = std::fs::remove_dir_all(&dir);
    let report = report.expect("runs");
    assert_eq!(
        streamed, report.rows,
        "every row is handed out as it is made"
    );
    assert_eq!(
        report.rows.len() + report.missing.len(),
        SEEDS.count(),
        "every program has a row or a reason: {:?}",
        report.missing
    );
    assert!(report.rows.len() >= 3, "{:?}", report.missing);
    assert_eq!(report.ptxas_calls, 2, "two batches of at most 3 programs");
    let columns = TSV_HEADER.split('\t').count();
    for r in &report.rows {
        assert!(SEEDS.contains(&r.seed));
        assert_eq!(r.arch, Arch::Sm86);
        assert_eq!(r.tsv().split('\t').count(), columns, "{}", r.tsv());
        for s in [&r.tangle, &r.ptxas] {
            assert!(s.micros.is_finite() && s.micros > 0.0, "{r:?}");
            assert!((1..=255).contains(&s.registers), "{r:?}");
            assert!(s.instructions > 0, "{r:?}");
        }
        assert_eq!(
            r.tangle.cycles.is_some() && r.ptxas.cycles.is_some(),
            r.status == "agree",
            "{r:?}"
        );
        assert!(r.tangle.cycles.is_none_or(|c| c > 0), "{r:?}");
    }
    assert!(
        report.rows.iter().any(|r| r.status == "agree"),
        "some program agrees on both: {:?}",
        report.rows
    );
    let summaries = report.summaries();
    assert_eq!(summaries.len(), 4, "every figure has rows");
    for s in &summaries {
        for x in [
            s.geomean_ratio,
            s.worst.0,
            s.best.0,
            s.median_tangle,
            s.median_ptxas,
        ] {
            assert!(x.is_finite() && x > 0.0, "{s}");
        }
        assert!(
            s.best.0 <= s.geomean_ratio && s.geomean_ratio <= s.worst.0,
            "{s}"
        );
    }
    let text = report.to_string();
    assert!(text.contains("tangle/ptxas geomean"), "{text}");
}

#[test]
fn counts_read_from_our_cubin_match_the_back_end() {
    for seed in 0..3 {
        let program = tangle_fuzz::generate(seed, GenConfig::default());
        let module = tangle_fuzz::build::build_module(&program);
        let c =
            tangle_fuzz::sass::compile_for(&module, Arch::Sm90, tangle_reconverge::Scheme::Scopes)
                .expect("compiles");
        let bytes = c.cubin().expect("a cubin");
        assert_eq!(
            instructions_of(&bytes, &c.name).expect("reads"),
            c.code.insts.len(),
            "seed {seed}"
        );
        let regs = registers_of(&bytes, &c.name).expect("reads");
        assert!(regs >= c.gprs, "seed {seed}: {regs} < {}", c.gprs);
        assert!(registers_of(&bytes, "no_such_kernel").is_err());
    }
}

fn row(seed: u64, t: f64, p: f64, cycles: Option<(u64, u64)>) -> CostRow {
    let side = |micros: f64, c: Option<u64>| Side {
        micros,
        registers: micros as u32,
        instructions: micros as usize,
        cycles: c,
    };
    CostRow {
        seed,
        nesting: 2,
        arch: Arch::Sm80,
        tangle: side(t, cycles.map(|c| c.0)),
        ptxas: side(p, cycles.map(|c| c.1)),
        status: if cycles.is_some() { "agree" } else { "x" }.into(),
    }
}

#[test]
fn summary_arithmetic_on_hand_made_rows() {
    let rows = [
        row(1, 20.0, 10.0, Some((40, 10))),
        row(2, 5.0, 10.0, None),
        row(3, 8.0, 8.0, Some((10, 10))),
    ];
    let s = summarize(Metric::CompileTime, &rows).expect("rows");
    assert_eq!(s.rows, 3);
    assert!((s.geomean_ratio - 1.0).abs() < 1e-12, "2 × 0.5 × 1: {s}");
    assert!((s.sum_ratio - 33.0 / 28.0).abs() < 1e-12, "{s}");
    assert_eq!((s.median_tangle, s.median_ptxas), (8.0, 10.0));
    assert_eq!((s.worst.0, s.worst.1), (2.0, 1));
    assert_eq!((s.best.0, s.best.1), (0.5, 2));
    let c = summarize(Metric::Cycles, &rows).expect("rows");
    assert_eq!(c.rows, 2, "cycles only where both agree");
    assert!((c.geomean_ratio - 2.0).abs() < 1e-12, "sqrt(4 × 1): {c}");
    assert_eq!(c.median_tangle, 25.0);
    assert!(summarize(Metric::Cycles, &rows[1..2]).is_none());
}
