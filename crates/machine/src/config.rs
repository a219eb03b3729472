//! The run configuration of the barrier machine.

use std::collections::BTreeMap;

use tangle_sched::{ExhaustiveBound, Policy, PolicyKind};

/// The policy kinds the barrier machine supports: every one but `realistic`, which needs a
/// `YIELD` the lowered IR does not have (`docs/sched.md`).
pub const SUPPORTED_POLICIES: [PolicyKind; 6] = [
    PolicyKind::Strict,
    PolicyKind::Opportunistic,
    PolicyKind::RoundRobin,
    PolicyKind::Adversarial,
    PolicyKind::Random,
    PolicyKind::Exhaustive,
];

/// The largest subgroup the exhaustive search accepts: the number of interleavings grows
/// with the number of groups, which is at most the number of lanes.
pub const EXHAUSTIVE_MAX_SUBGROUP: u32 = 8;

/// How one dispatch on the barrier machine runs.
#[derive(Clone, Debug)]
pub struct MachineConfig {
    /// Lanes per subgroup (warp): a power of two in 1..=128.
    pub subgroup_size: u32,
    /// Workgroups dispatched in x, y, z.
    pub workgroups: [u32; 3],
    /// Specialization constant overrides by `SpecId`: the value's bit pattern.
    pub spec_constants: BTreeMap<u32, u64>,
    /// Which group issues when, from the shared vocabulary (`tangle-sched`).
    pub policy: Policy,
    /// The bound of [`Policy::Exhaustive`]'s search.
    pub bound: ExhaustiveBound,
    /// The most group-instructions (an instruction or terminator issued by one group) a
    /// run may take; more is reported as a livelock or an exhausted budget.
    pub step_budget: u64,
    /// Whether to record which group executed each subgroup operation.
    pub record_trace: bool,
    /// What decides the lanes that execute a subgroup operation together: the issuing
    /// group (warp barriers, hardware) or the convergence-control tokens (the token
    /// engine, `docs/tokens.md`).
    pub convergence: Convergence,
    /// What a lane does at a conditional branch whose condition is undefined, as the
    /// reference's `Config::undefined_branch`: `None` stops the run, `Some(side)` takes
    /// that side.
    pub undefined_branch: Option<bool>,
}

/// The rule that decides which lanes execute a convergent operation together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Convergence {
    /// The issuing group: lanes are together exactly where the warp barriers of the
    /// lowered form (or the opportunistic policy) put them, as on hardware.
    #[default]
    Barriers,
    /// The token semantics ("controlled maximal convergence"): a subgroup operation runs
    /// over every lane that reaches it with a converged instance of its token, whatever
    /// the groups; the warp-barrier operations are refused.
    Tokens,
}

impl Default for MachineConfig {
    fn default() -> Self {
        MachineConfig {
            subgroup_size: 32,
            workgroups: [1, 1, 1],
            spec_constants: BTreeMap::new(),
            policy: Policy::Strict,
            bound: ExhaustiveBound::default(),
            step_budget: 10_000_000,
            record_trace: true,
            convergence: Convergence::Barriers,
            undefined_branch: None,
        }
    }
}
