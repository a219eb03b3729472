//! The `ptxas` engine's judge on hand-made buffers (no nvcc): what holds whatever the
//! tangles is held strictly (a break is a simulator or emitter bug), and a consistent
//! change of tangles is reported as a departure, not a bug.

use tangle_fuzz::ast::{Collective, Program, Stmt};
use tangle_fuzz::mask::simulate;
use tangle_fuzz::ptxas::{judge, shape, Verdict};

fn program(body: Vec<Stmt>) -> Program {
    Program {
        local_size: 64,
        body,
        loops: 0,
        functions: vec![],
    }
}

/// The word index of `(record, invocation, word)` at 64 invocations.
fn at(record: usize, inv: usize, word: usize) -> usize {
    (record * 64 + inv) * 5 + word
}

fn padded(words: &[u32]) -> Vec<u32> {
    let mut v = words.to_vec();
    v.resize(words.len() * 4 + 64, 0);
    v
}

#[test]
fn equal_buffers_agree_and_a_consistent_split_is_a_departure() {
    let p = program(vec![Stmt::Ballot { id: 0 }, Stmt::Ballot { id: 1 }]);
    let reference = simulate(&p, 32).words;
    assert_eq!(reference[at(0, 5, 0)], u32::MAX);
    assert_eq!(judge(&p, &reference, &padded(&reference)), Verdict::Agree);
    // Warp 0 ran the second ballot as two halves: every lane sees its own half.
    let mut got = padded(&reference);
    for inv in 0..32 {
        got[at(1, inv, 0)] = if inv < 16 { 0xffff } else { 0xffff_0000 };
    }
    match judge(&p, &reference, &got) {
        Verdict::Tangle(d) => {
            assert_eq!((d.record, d.invocation, d.id), (1, 0, 1));
            assert_eq!((d.reference, d.got), (u32::MAX, 0xffff));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn impossible_records_are_bugs() {
    let p = program(vec![
        Stmt::Ballot { id: 0 },
        Stmt::Collective {
            id: 1,
            op: Collective::Sum,
        },
        Stmt::Collective {
            id: 2,
            op: Collective::BroadcastFirst,
        },
    ]);
    let reference = simulate(&p, 32).words;
    let broken = |f: &dyn Fn(&mut Vec<u32>)| {
        let mut got = padded(&reference);
        f(&mut got);
        matches!(judge(&p, &reference, &got), Verdict::Broken(_))
    };
    // A ballot without its own lane.
    assert!(broken(&|g| g[at(0, 3, 0)] = 0xfff7));
    // A ballot naming a lane that recorded another mask.
    assert!(broken(&|g| g[at(0, 0, 0)] = 0xffff));
    // A nonzero padding word.
    assert!(broken(&|g| g[at(0, 40, 2)] = 1));
    // A sum below the lane's own value, a broadcast from a higher lane.
    assert!(broken(&|g| g[at(1, 7, 0)] = 3));
    assert!(broken(&|g| g[at(2, 7, 0)] = 9));
    // An id no observation has, and a record after an unwritten one.
    assert!(broken(&|g| g[at(1, 7, 4)] = 99));
    assert!(broken(&|g| {
        for w in 0..5 {
            g[at(5, 7, w)] = g[at(0, 7, w)];
        }
    }));
    // The sum over the lane's own half of the warp is possible (a split tangle).
    let mut got = padded(&reference);
    got[at(1, 0, 0)] = (1..=16).sum();
    assert!(matches!(judge(&p, &reference, &got), Verdict::Tangle(_)));
}

#[test]
fn the_sequence_of_observations_is_strict_unless_an_election_steers_a_loop() {
    // Paths that depend on nothing but the lane: another observation id is a bug.
    let p = program(vec![Stmt::Ballot { id: 0 }, Stmt::Ballot { id: 1 }]);
    let reference = simulate(&p, 32).words;
    let mut got = padded(&reference);
    // Warp 0 recorded the first ballot twice (consistent tangles, an impossible path).
    for inv in 0..32 {
        got[at(1, inv, 4)] = 1;
    }
    let v = judge(&p, &reference, &got);
    assert!(
        matches!(v, Verdict::Broken(ref m) if m.contains("sequence")),
        "{v:?}"
    );
    // A loop left through an election: a lane may see other observations.
    let q = program(vec![
        Stmt::Infinite {
            body: vec![Stmt::Ballot { id: 0 }],
        },
        Stmt::Ballot { id: 1 },
    ]);
    let reference = simulate(&q, 32).words;
    let mut got = padded(&reference);
    // Lane 0 ran apart from the rest of its warp throughout: alone in its first iteration
    // (then elected) and at the ballot after the loop; the others without it.
    for inv in 0..32 {
        let records = (0..got.len() / 320).filter(|&r| got[at(r, inv, 4)] != 0);
        for r in records.collect::<Vec<_>>() {
            got[at(r, inv, 0)] = if inv == 0 { 1 } else { 0xffff_fffe };
        }
    }
    assert!(
        matches!(judge(&q, &reference, &got), Verdict::Tangle(_)),
        "{:?}",
        judge(&q, &reference, &got)
    );
}

#[test]
fn shapes_name_the_constructs_around_an_observation() {
    let p = program(vec![
        Stmt::For {
            loop_id: 0,
            trip: tangle_fuzz::ast::Trip::LaneBits(1),
            body: vec![Stmt::If {
                cond: tangle_fuzz::ast::Cond::LaneMask(5),
                then: vec![Stmt::Ballot { id: 0 }, Stmt::Break],
                els: None,
            }],
        },
        Stmt::Ballot { id: 1 },
    ]);
    assert_eq!(shape(&p, 0), "for(lane-trip) > if(lane) > [ballot] ; break");
    assert_eq!(shape(&p, 1), "after for(lane-trip) ; [ballot]");
}
