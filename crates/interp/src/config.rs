//! The run configuration and the named policies for implementation-defined choices.

use std::collections::BTreeMap;

/// How `switch` partitions a tangle (implementation-defined by the specification).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SwitchPolicy {
    /// One tangle per case *target* block: lanes with different selector values that go to
    /// the same block stay together (the largest partition the specification allows).
    #[default]
    ByTarget,
    /// One tangle per selector value (the smallest partition allowed).
    BySelector,
}

/// What happens where a case construct falls through into the next case target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FallthroughPolicy {
    /// The fallthrough lanes run the next case on their own; they do not wait for the lanes
    /// that switched to it directly (nor those for them).
    #[default]
    Independent,
    /// The lanes switching directly to a case target wait for the lanes of the case
    /// constructs that can fall through into it (those that fall through, or leave); they
    /// run the case as one tangle.
    Merge,
}

/// The order in which runnable tangles of a subgroup run. Tangle composition never depends
/// on it; only the interleaving of memory accesses between tangles does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SchedulePolicy {
    /// The tangle holding the lowest lane first.
    #[default]
    LowestLaneFirst,
    /// The most recently created tangle first.
    NewestFirst,
    /// A pseudo-random tangle (xorshift64 with this seed), switching after every step.
    Random(u64),
}

/// Which semantics to run. Everything but [`Variant::Maximal`] is a known-wrong model kept so
/// that the rule tests can show they catch it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Variant {
    /// The specification's maximal reconvergence.
    #[default]
    Maximal,
    /// No reconvergence at loop continue targets (seed 000's first attempt).
    NoContinueReconvergence,
    /// No reconvergence after a function call: each tangle returns on its own.
    NoCallReconvergence,
    /// Lanes leaving a loop wait for each other *before* their break block instead of at the
    /// merge, so break blocks run once for all iterations together.
    BreakNotSplitByIteration,
    /// The value an atomic returns is taken as ordered even where another invocation's
    /// atomic on the same location may land before or after it (`order/`): what the
    /// reference's one order gave, compared as if every order gave it.
    ReturnedValuesOrdered,
    /// No order-dependent values at all: the reference's order of racing atomics is taken
    /// as the only one (no second run).
    NoOrderDependence,
}

/// Run configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Invocations per subgroup: a power of two in 1..=128.
    pub subgroup_size: u32,
    /// Workgroups dispatched in x, y, z.
    pub workgroups: [u32; 3],
    /// Specialization constant overrides by `SpecId`: the value's bit pattern (booleans 0/1).
    pub spec_constants: BTreeMap<u32, u64>,
    /// Switch partition policy.
    pub switch_policy: SwitchPolicy,
    /// Switch fallthrough policy.
    pub fallthrough_policy: FallthroughPolicy,
    /// Tangle scheduling policy.
    pub schedule_policy: SchedulePolicy,
    /// The most tangle-instructions (instructions and terminators executed by one tangle) a
    /// run may take.
    pub step_budget: u64,
    /// Whether to record the trace of subgroup operations.
    pub record_trace: bool,
    /// The semantics.
    pub variant: Variant,
    /// Stop at the first instruction whose result is (partly) undefined, instead of
    /// carrying the undefined value until something observes it (`--strict-undefined`).
    pub strict_undefined: bool,
    /// What a lane does at a conditional branch whose condition is undefined: `None` stops
    /// the run there (the undefined value is observed); `Some(side)` takes the true
    /// (`Some(true)`) or the false side, one of the paths SPIR-V allows.
    pub undefined_branch: Option<bool>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            subgroup_size: 32,
            workgroups: [1, 1, 1],
            spec_constants: BTreeMap::new(),
            switch_policy: SwitchPolicy::default(),
            fallthrough_policy: FallthroughPolicy::default(),
            schedule_policy: SchedulePolicy::default(),
            step_budget: 10_000_000,
            record_trace: true,
            variant: Variant::Maximal,
            strict_undefined: false,
            undefined_branch: None,
        }
    }
}
