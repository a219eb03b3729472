//! The bundled AmberScript tests (`tests/amber/*.amber`): seed 000's three loops, one script
//! per maximal-reconvergence rule and the subgroup-size script, each with expectations
//! derived by hand in its comments.
//!
//! - Under the specification's semantics every script passes, under every schedule policy.
//! - Every known-wrong interpreter variant fails the scripts of the rule it breaks.
//! - Seed 000's second and third loops give different results.

use tangle_interp::{SchedulePolicy, Variant};
use tangle_oracle::Tool;
mod bundled;
mod common;
use bundled::{name, run};
use common::failures;
use tangle_run::Event;

fn scripts_dir() -> std::path::PathBuf {
    bundled::dir("tests/amber")
}

fn scripts() -> Vec<std::path::PathBuf> {
    bundled::scripts(&scripts_dir())
}

fn glslang(test: &str) -> bool {
    tangle_oracle::require(Tool::Glslang, test).is_some()
}

#[test]
fn the_bundled_scripts_cover_every_rule() {
    let names: Vec<String> = scripts().iter().map(|p| name(p)).collect();
    for want in [
        "seed000_loops",
        "rule_selection_merge",
        "rule_loop_merge",
        "rule_continue_target",
        "rule_switch",
        "rule_call_return",
        "rule_break_by_iteration",
        "rule_return_nested",
        "rule_elect_loop",
        "subgroup_sizes",
    ] {
        assert!(names.iter().any(|n| n == want), "missing {want}.amber");
    }
}

#[test]
fn every_script_passes_under_every_schedule_policy() {
    if !glslang("every_script_passes_under_every_schedule_policy") {
        return;
    }
    for path in scripts() {
        bundled::assert_passes_under_every_policy(&path);
    }
}

#[test]
fn every_known_wrong_variant_fails_the_scripts_of_its_rule() {
    if !glslang("every_known_wrong_variant_fails_the_scripts_of_its_rule") {
        return;
    }
    let expected_failures: [(Variant, &[&str]); 3] = [
        (Variant::NoContinueReconvergence, &["rule_continue_target"]),
        (
            Variant::NoCallReconvergence,
            &["rule_call_return", "rule_return_nested"],
        ),
        (
            Variant::BreakNotSplitByIteration,
            &[
                "rule_break_by_iteration",
                "rule_elect_loop",
                "seed000_loops",
            ],
        ),
    ];
    for (variant, must_fail) in expected_failures {
        let failed: Vec<String> = scripts()
            .iter()
            .filter(|p| !run(p, variant, SchedulePolicy::LowestLaneFirst).passed())
            .map(|p| name(p))
            .collect();
        for want in must_fail {
            assert!(
                failed.iter().any(|f| f == want),
                "{variant:?} passes {want}.amber (failed only {failed:?})"
            );
        }
    }
}

#[test]
fn seed000_second_and_third_loops_differ() {
    if !glslang("seed000_second_and_third_loops_differ") {
        return;
    }
    let report = run(
        &scripts_dir().join("seed000_loops.amber"),
        Variant::Maximal,
        SchedulePolicy::LowestLaneFirst,
    );
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    let words = |name: &str| -> Vec<u32> {
        report.buffers[name]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    assert_ne!(words("out_v2"), words("out_v3"));
    assert_ne!(words("out_v1"), words("out_v2"));
    // Lane 2 left in iteration 2 with K_2, whose sum is 2165.
    assert_eq!(words("out_v3")[2], 2165);
}

#[test]
fn subgroup_sizes_4_to_128_run() {
    if !glslang("subgroup_sizes_4_to_128_run") {
        return;
    }
    let report = run(
        &scripts_dir().join("subgroup_sizes.amber"),
        Variant::Maximal,
        SchedulePolicy::LowestLaneFirst,
    );
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    let sizes: Vec<u32> = report
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Ran { subgroup_size, .. } => Some(*subgroup_size),
            _ => None,
        })
        .collect();
    for s in [4, 8, 16, 32, 64, 128] {
        assert!(sizes.contains(&s), "size {s} not exercised: {sizes:?}");
    }
}
