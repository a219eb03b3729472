//! Latency tables: the derivation on a hand-made block (cycles counted by hand), the
//! checked-in tables against a fresh derivation with ptxas, and the classes of the forms.

use tangle_oracle::{require, Tool};
use tangle_sass::latency::derive::Observations;
use tangle_sass::latency::{measure::measure, table, Kind, LatencyClass, Table};
use tangle_sass::typed::{r, Addr, MachInst, RZ};
use tangle_sass::{forms, Arch, Control, Op};

fn ctl(stall: u8, write_sb: Option<u8>) -> Control {
    Control {
        stall,
        yield_bit: true,
        write_sb,
        read_sb: None,
        wait: 0,
        reuse: 0,
    }
}

#[test]
fn derivation_counts_stalls_to_the_first_reader() {
    let arch = Arch::Sm86;
    let b = |op: Op| MachInst::build(op);
    let block = vec![
        // R1 = R2 + R3: issue, then 2 + 3 cycles to the reader of R1 (R5 in between is
        // not R1).
        b(Op::Iadd3)
            .o(r(1))
            .o(r(2))
            .o(r(3))
            .o(RZ)
            .control(ctl(2, None)),
        b(Op::Iadd3)
            .o(r(5))
            .o(r(2))
            .o(r(2))
            .o(RZ)
            .control(ctl(3, None)),
        b(Op::Iadd3)
            .o(r(6))
            .o(r(1))
            .o(r(5))
            .o(RZ)
            .control(ctl(1, None)),
        // A load with a write scoreboard is variable-latency: no distance.
        b(Op::Ldg)
            .m(".E")
            .o(r(8))
            .o(Addr::new(r(6), 0))
            .control(ctl(1, Some(0))),
        b(Op::Iadd3).o(r(9)).o(r(8)).o(r(8)).o(RZ).control(Control {
            wait: 1,
            ..ctl(1, None)
        }),
    ];
    let block: Vec<MachInst> = block.into_iter().map(|x| x.finish(arch).unwrap()).collect();
    let mut obs = Observations::default();
    obs.add_block(&block);
    let m = obs.measures();
    let alu = m
        .iter()
        .find(|m| m.class == LatencyClass::IntAlu && m.file == "R")
        .unwrap();
    // R1 -> 5 cycles, R5 -> 3 cycles, R6 -> 1 cycle (the LDG reads it), R9 unread.
    assert_eq!(
        (alu.min, alu.max, alu.pairs, alu.producers),
        (Some(1), Some(5), 3, 4)
    );
    assert_eq!(alu.kind, Kind::Fixed);
    let ld = m
        .iter()
        .find(|m| m.class == LatencyClass::GlobalMem && m.file == "R")
        .unwrap();
    assert_eq!((ld.kind, ld.pairs, ld.write_sb), (Kind::Scoreboard, 0, 1));
    // The table's text form reads back.
    let t = Table {
        arch,
        ptxas: "test".into(),
        rows: m.clone(),
    };
    assert_eq!(Table::parse(arch, &t.to_tsv()).unwrap().rows, m);
}

#[test]
fn checked_in_tables_load_and_cover_the_probed_classes() {
    for arch in Arch::ALL {
        let t = table(arch);
        assert!(t.ptxas.contains("release"), "{arch}: {}", t.ptxas);
        for (class, file) in [
            (LatencyClass::IntAlu, "R"),
            (LatencyClass::IntMad, "R"),
            (LatencyClass::IntCompare, "P"),
            (LatencyClass::Fp32, "R"),
            (LatencyClass::Fp32Compare, "P"),
            (LatencyClass::Uniform, "UR"),
        ] {
            let m = t
                .get(class, file)
                .unwrap_or_else(|| panic!("{arch} {class} {file}"));
            assert_eq!(m.kind, Kind::Fixed, "{arch} {class}");
            assert!(m.pairs >= 8, "{arch} {class}: {} pairs", m.pairs);
        }
        for class in [
            LatencyClass::GlobalMem,
            LatencyClass::SharedMem,
            LatencyClass::Transcendental,
            LatencyClass::Warp,
        ] {
            assert_eq!(
                t.get(class, "R").unwrap().kind,
                Kind::Scoreboard,
                "{arch} {class}"
            );
        }
        // Forms reach their figures through their class.
        let iadd3 = forms::by_name(arch, "IADD3").next().unwrap();
        assert!(t.fixed_latency(iadd3, "R").is_some());
        let ldg = forms::by_name(arch, "LDG").next().unwrap();
        assert!(t.needs_write_scoreboard(ldg));
    }
}

#[test]
fn ptxas_still_schedules_as_the_checked_in_tables_say() {
    let Some(ptxas) = require(
        Tool::Ptxas,
        "ptxas_still_schedules_as_the_checked_in_tables_say",
    ) else {
        return;
    };
    let dir = tangle_oracle::scratch_dir();
    let mut diffs = Vec::new();
    for arch in Arch::ALL {
        let fresh = measure(&ptxas.path, arch, dir.path()).unwrap();
        let ours = table(arch);
        if fresh.ptxas != ours.ptxas {
            diffs.push(format!(
                "{arch}: the table is from `{}`, this ptxas is `{}`",
                ours.ptxas, fresh.ptxas
            ));
        }
        if fresh.rows != ours.rows {
            diffs.push(format!(
                "{arch}: derived\n{}checked in\n{}",
                fresh.to_tsv(),
                ours.to_tsv()
            ));
        }
    }
    assert!(
        diffs.is_empty(),
        "re-derive with `cargo run -p tangle-sass --example latency -- --write`:\n{}",
        diffs.join("\n")
    );
}
