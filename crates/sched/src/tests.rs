use super::*;

const LOWERED: [PolicyKind; 6] = [
    PolicyKind::Strict,
    PolicyKind::Opportunistic,
    PolicyKind::RoundRobin,
    PolicyKind::Adversarial,
    PolicyKind::Random,
    PolicyKind::Exhaustive,
];

#[test]
fn names_read_back() {
    for p in [
        Policy::Strict,
        Policy::Opportunistic,
        Policy::RoundRobin,
        Policy::Adversarial,
        Policy::Random(0),
        Policy::Random(u64::MAX),
        Policy::Realistic,
        Policy::Exhaustive,
    ] {
        assert_eq!(p.to_string().parse::<Policy>(), Ok(p));
    }
    assert_eq!("random:0x10".parse::<Policy>(), Ok(Policy::Random(16)));
}

#[test]
fn bad_names_are_errors() {
    assert!(matches!(
        "fair".parse::<Policy>(),
        Err(PolicyError::Unknown(_))
    ));
    assert!(matches!(
        "random".parse::<Policy>(),
        Err(PolicyError::BadSeed(_))
    ));
    assert!(matches!(
        "random:x".parse::<Policy>(),
        Err(PolicyError::BadSeed(_))
    ));
    let e = expand("realistic", "barrier machine", &LOWERED).unwrap_err();
    assert!(
        e.to_string().contains("does not support the `realistic`"),
        "{e}"
    );
}

#[test]
fn all_expands_to_supported_kinds_and_eight_seeds() {
    let all = expand("all", "barrier machine", &LOWERED).unwrap();
    assert_eq!(all.len(), 4 + RANDOM_SEEDS_IN_ALL as usize);
    assert!(!all.contains(&Policy::Exhaustive) && !all.contains(&Policy::Realistic));
    let sim = [
        PolicyKind::RoundRobin,
        PolicyKind::Adversarial,
        PolicyKind::Random,
        PolicyKind::Realistic,
    ];
    let all = expand("all,adversarial", "simulator", &sim).unwrap();
    assert_eq!(
        all.len(),
        3 + RANDOM_SEEDS_IN_ALL as usize,
        "duplicates removed"
    );
    assert_eq!(
        expand("strict,random:3", "m", &LOWERED).unwrap(),
        [Policy::Strict, Policy::Random(3)]
    );
}

fn cands(lanes: &[(u32, u64)]) -> Vec<Candidate> {
    lanes
        .iter()
        .map(|&(lowest_lane, last_issued)| Candidate {
            lowest_lane,
            last_issued,
        })
        .collect()
}

#[test]
fn strict_picks_lowest_lane() {
    let mut c = Chooser::new(Policy::Strict);
    assert_eq!(c.pick(&cands(&[(4, 0), (0, 9), (2, 1)])), Some(1));
    assert_eq!(c.pick(&[]), None);
}

#[test]
fn round_robin_cycles_by_lowest_lane() {
    let mut c = Chooser::new(Policy::RoundRobin);
    let g = cands(&[(8, 0), (0, 0), (4, 0)]);
    let order: Vec<u32> = (0..4).map(|_| g[c.pick(&g).unwrap()].lowest_lane).collect();
    assert_eq!(order, [0, 4, 8, 0]);
}

#[test]
fn adversarial_runs_the_longest_waiting_highest_first() {
    let mut c = Chooser::new(Policy::Adversarial);
    assert_eq!(c.pick(&cands(&[(0, 5), (3, 2), (7, 2)])), Some(2));
}

#[test]
fn random_is_reproducible_and_covers_every_group() {
    let g = cands(&[(0, 0), (1, 0), (2, 0)]);
    let run = |seed| {
        let mut c = Chooser::new(Policy::Random(seed));
        (0..64).map(|_| c.pick(&g).unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
    for i in 0..3 {
        assert!(run(5).contains(&i));
    }
}

#[test]
fn switch_points() {
    assert!(!Policy::Strict.switches_at(Event::Instruction));
    assert!(!Policy::Strict.switches_at(Event::BlockEnd));
    assert!(Policy::Strict.switches_at(Event::Blocked));
    assert!(Policy::RoundRobin.switches_at(Event::BlockEnd));
    assert!(Policy::Adversarial.switches_at(Event::Instruction));
    assert!(!Policy::Realistic.switches_at(Event::BlockEnd));
    assert!(Policy::Realistic.switches_at(Event::Yield));
    assert!(Policy::Opportunistic.merges_at_same_point());
    assert!(!Policy::Strict.merges_at_same_point());
}

#[test]
fn below_is_in_range_and_unbiased_enough() {
    let mut r = Rng::new(1);
    let mut counts = [0u32; 3];
    for _ in 0..30_000 {
        counts[r.below(3) as usize] += 1;
    }
    assert!(
        counts.iter().all(|&n| (9_000..11_000).contains(&n)),
        "{counts:?}"
    );
}
