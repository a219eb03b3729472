//! The scheduler: runs a launch block by block; inside a block, every ready group of every
//! warp is a candidate, and the policy (from `tangle-sched`) decides when the running group
//! is switched out and which runs next. Budgets bound every run; a block where no group can
//! issue is a deadlock, one that exhausts its budget a livelock, both reported with every
//! group's lanes and program counter.

use tangle_sched::{Candidate, Chooser, Event, Policy, PolicyKind, Rng};

use crate::error::{SimError, StuckGroup};
use crate::explore::Script;
use crate::kernel::Kernel;
use crate::launch::{Arg, Launch};
use crate::memory::Global;
use crate::warp::{lanes, Status, Warp};

/// The policy kinds the simulator supports (`docs/sched.md`); `exhaustive` through
/// [`crate::explore::explore`].
pub const SUPPORTED: [PolicyKind; 5] = [
    PolicyKind::RoundRobin,
    PolicyKind::Adversarial,
    PolicyKind::Random,
    PolicyKind::Realistic,
    PolicyKind::Exhaustive,
];

/// Which convergence-barrier rule the simulator follows: the model of
/// `../shared/barrier-semantics.md`, or one of the three rules it rejects (kept so that
/// the probes can show why they are rejected).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarrierModel {
    /// Per-lane `B` registers and break flags, release rules 1-4 (the model).
    PerLane,
    /// Rejected: one `B` register per warp, overwritten by whichever group runs `BSSY`.
    PerWarp,
    /// Rejected: a lane `j` does not block a `BSYNC` if `j` is not in its own copy of `Bk`.
    NotInOwnCopy,
    /// Rejected: a lane blocked at any barrier or warp synchronisation counts as arrived.
    BlockedAnywhere,
}

impl BarrierModel {
    /// Every model, the real one first.
    pub const ALL: [BarrierModel; 4] = [
        BarrierModel::PerLane,
        BarrierModel::PerWarp,
        BarrierModel::NotInOwnCopy,
        BarrierModel::BlockedAnywhere,
    ];

    /// The name used on the command line (`--barrier-model`).
    pub fn name(self) -> &'static str {
        match self {
            BarrierModel::PerLane => "per-lane",
            BarrierModel::PerWarp => "per-warp",
            BarrierModel::NotInOwnCopy => "not-in-own-copy",
            BarrierModel::BlockedAnywhere => "blocked-anywhere",
        }
    }

    /// The model named `s`.
    pub fn from_name(s: &str) -> Option<BarrierModel> {
        BarrierModel::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// How to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The scheduling policy.
    pub policy: Policy,
    /// The convergence-barrier rule.
    pub model: BarrierModel,
    /// The most instructions the whole launch may issue before the run is called a
    /// livelock (a bound on every run, however large the grid).
    pub step_budget: u64,
    /// Record a trace line per issued instruction.
    pub trace: bool,
    /// Check every issue against the latency tables (hazard mode, [`crate::hazard`]).
    pub hazards: bool,
}

/// A hazard found in hazard mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hazard {
    /// Where: the reading (or overwriting) instruction.
    pub site: crate::error::Site,
    /// What.
    pub what: String,
}

/// Hazard mode's cycle estimate for one warp (an unvalidated model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpCycles {
    /// The block index.
    pub block: [u32; 3],
    /// The warp index in the block.
    pub warp: u32,
    /// The sum of the stall counts its lanes issued (the latest lane's).
    pub cycles: u64,
}

/// The most hazards a run records (the rest are counted in `hazards_total`).
pub const MAX_HAZARDS: usize = 1000;

impl Options {
    /// The model, `policy`, a budget of ten million steps, no trace.
    pub fn new(policy: Policy) -> Options {
        Options {
            policy,
            model: BarrierModel::PerLane,
            step_budget: 10_000_000,
            trace: false,
            hazards: false,
        }
    }
}

/// What a finished run leaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOutput {
    /// The final contents of each buffer argument, by parameter position (`None` for
    /// arguments that are not buffers).
    pub buffers: Vec<Option<Vec<u8>>>,
    /// Warp-instructions issued (a group issuing one instruction is one).
    pub steps: u64,
    /// Per issued instruction: block, warp, pc, active mask and text (with `trace`).
    pub trace: Vec<String>,
    /// Hazards found (with `hazards`), at most [`MAX_HAZARDS`].
    pub hazards: Vec<Hazard>,
    /// How many hazards were found in all.
    pub hazards_total: usize,
    /// The cycle estimate of every warp (with `hazards`; an unvalidated model).
    pub cycles: Vec<WarpCycles>,
}

/// Runs `launch` of `kernel` under `opts` (`exhaustive`, a search, goes through
/// [`crate::explore::explore`]).
pub fn run(kernel: &Kernel, launch: &Launch, opts: &Options) -> Result<RunOutput, SimError> {
    if opts.policy == Policy::Exhaustive {
        return Err(SimError::BadLaunch(
            "the exhaustive policy is a search: run it with explore (tangle sim does)".into(),
        ));
    }
    run_scripted(kernel, launch, opts, &mut Script::default())
}

/// [`run`], taking the choices of the exhaustive policy from `script`.
pub(crate) fn run_scripted(
    kernel: &Kernel,
    launch: &Launch,
    opts: &Options,
    script: &mut Script,
) -> Result<RunOutput, SimError> {
    if !SUPPORTED.contains(&opts.policy.kind()) {
        return Err(SimError::BadLaunch(
            tangle_sched::PolicyError::Unsupported {
                engine: "SASS simulator".into(),
                policy: opts.policy.to_string(),
                supported: SUPPORTED.map(|k| k.to_string()).join(", "),
            }
            .to_string(),
        ));
    }
    let cb0 = launch.constant_bank0(kernel)?;
    let mut global = Global {
        buffers: launch
            .args
            .iter()
            .map(|a| match a {
                Arg::Buffer(b) | Arg::BufferAt(b, _) => Some(b.clone()),
                _ => None,
            })
            .collect(),
        module: kernel.globals.clone(),
    };
    let mut steps = 0;
    let mut trace = Vec::new();
    let mut hazards = Vec::new();
    let mut hazards_total = 0;
    let mut cycles = Vec::new();
    for bz in 0..launch.grid.z {
        for by in 0..launch.grid.y {
            for bx in 0..launch.grid.x {
                let mut block_opts = *opts;
                block_opts.step_budget = opts.step_budget - steps;
                let mut b = BlockRun::new(kernel, launch, &block_opts, [bx, by, bz]);
                b.script = std::mem::take(script);
                let r = b.run(&cb0, &mut global, &mut trace);
                *script = std::mem::take(&mut b.script);
                r?;
                steps += b.step;
                hazards_total += b.hazards_total;
                for h in b.hazards.drain(..) {
                    if hazards.len() < MAX_HAZARDS {
                        hazards.push(h);
                    }
                }
                if opts.hazards {
                    for (wi, w) in b.warps.iter().enumerate() {
                        cycles.push(WarpCycles {
                            block: b.block,
                            warp: wi as u32,
                            cycles: w.hz.cycle.iter().copied().max().unwrap_or(0),
                        });
                    }
                }
            }
        }
    }
    Ok(RunOutput {
        buffers: global.buffers,
        steps,
        trace,
        hazards,
        hazards_total,
        cycles,
    })
}

/// One block being run.
pub struct BlockRun<'k> {
    /// The kernel.
    pub kernel: &'k Kernel,
    /// The options.
    pub opts: Options,
    /// The block index.
    pub block: [u32; 3],
    /// Its warps.
    pub warps: Vec<Warp>,
    /// Its shared memory.
    pub shared: Vec<u8>,
    /// Instructions issued so far.
    pub step: u64,
    /// The next group identity.
    pub next_gid: u64,
    /// Hazards found in this block (at most [`MAX_HAZARDS`]).
    pub hazards: Vec<Hazard>,
    /// How many were found.
    pub hazards_total: usize,
    /// Lanes waiting at BAR.SYNC (block barriers are checked only while some wait).
    pub bar_waiters: u32,
    /// The exhaustive policy's choices.
    pub script: Script,
    chooser: Chooser,
    yield_rng: Rng,
    yield_toggle: bool,
}

impl<'k> BlockRun<'k> {
    /// The block `block` of `launch`, every thread ready at address 0.
    pub fn new(kernel: &'k Kernel, launch: &Launch, opts: &Options, block: [u32; 3]) -> Self {
        let (bx, by) = (launch.block.x, launch.block.y);
        let n = launch.block.count() as u32;
        let per_warp_b = opts.model == BarrierModel::PerWarp;
        let mut warps = Vec::new();
        let mut gid = 1;
        for wi in 0..n.div_ceil(32) {
            let mut tid = [[0u32; 3]; 32];
            let mut live = 0u32;
            for (l, t) in tid.iter_mut().enumerate() {
                let lin = wi * 32 + l as u32;
                if lin < n {
                    live |= 1 << l;
                    *t = [lin % bx, lin / bx % by, lin / (bx * by)];
                }
            }
            warps.push(Warp::new(wi, live, tid, per_warp_b, gid));
            gid += 1;
        }
        let seed = match opts.policy {
            Policy::Random(s) => s ^ 0x005e_ed0f_7e1d,
            _ => 0,
        };
        BlockRun {
            kernel,
            opts: *opts,
            block,
            warps,
            shared: vec![0; (kernel.static_shared + launch.dynamic_shared) as usize],
            step: 0,
            next_gid: gid,
            hazards: Vec::new(),
            hazards_total: 0,
            bar_waiters: 0,
            script: Script::default(),
            chooser: Chooser::new(opts.policy),
            yield_rng: Rng::new(seed),
            yield_toggle: false,
        }
    }

    /// A fresh group identity.
    pub fn gid(&mut self) -> u64 {
        self.next_gid += 1;
        self.next_gid
    }

    /// The nondeterministic choice of yield-release (§(a) rule 4): keep waiting or release.
    /// Random policies draw it; the others alternate, refusing first, so one run sees
    /// both outcomes.
    pub fn grant_yield_release(&mut self) -> bool {
        match self.opts.policy {
            Policy::Random(_) => self.yield_rng.next_u64() & 1 == 1,
            // Both ways, fairly: release now (explored first) or keep waiting once; never
            // two refusals in a row, since refusing forever is not a fair schedule.
            Policy::Exhaustive => {
                if self.yield_toggle {
                    self.yield_toggle = false;
                    return true;
                }
                self.yield_toggle = self.script.choose(2) == 1;
                !self.yield_toggle
            }
            _ => {
                self.yield_toggle = !self.yield_toggle;
                !self.yield_toggle
            }
        }
    }

    fn run(
        &mut self,
        cb0: &[u8],
        global: &mut Global,
        trace: &mut Vec<String>,
    ) -> Result<(), SimError> {
        let mut current: Option<(usize, u64)> = None;
        let mut switch = true;
        let mut last_event = Event::Instruction;
        loop {
            if self.warps.iter().all(Warp::done) {
                return Ok(());
            }
            if self.step >= self.opts.step_budget {
                return Err(SimError::Livelock {
                    steps: self.opts.step_budget,
                    groups: self.report(),
                });
            }
            let keep = current
                .filter(|&(wi, id)| !switch && self.warps[wi].groups.iter().any(|g| g.id == id));
            let (wi, id) = match keep {
                Some(c) => c,
                None => {
                    let mut cands = Vec::new();
                    let mut index = Vec::new();
                    // A group that just yielded lets the others go first (the point of
                    // YIELD; without it the lowest-lane choice of `realistic` would
                    // starve them).
                    let yielder = current.filter(|_| last_event == Event::Yield);
                    for (wi, w) in self.warps.iter().enumerate() {
                        for g in &w.groups {
                            if yielder == Some((wi, g.id)) && self.ready_groups() > 1 {
                                continue;
                            }
                            cands.push(Candidate {
                                lowest_lane: wi as u32 * 32 + g.mask.trailing_zeros(),
                                last_issued: g.last_issued,
                            });
                            index.push((wi, g.id));
                        }
                    }
                    let picked = if self.opts.policy == Policy::Exhaustive && cands.len() > 1 {
                        Some(self.script.choose(cands.len() as u32) as usize)
                    } else {
                        self.chooser.pick(&cands)
                    };
                    match picked {
                        Some(n) => index[n],
                        None => {
                            return Err(SimError::Deadlock {
                                steps: self.step,
                                groups: self.report(),
                            })
                        }
                    }
                }
            };
            self.step += 1;
            let event = self.issue(wi, id, cb0, global, trace)?;
            self.release_all(wi, cb0, global)?;
            switch = self.opts.policy.switches_at(event);
            last_event = event;
            current = Some((wi, id));
        }
    }

    /// Issues one instruction of group `id` of warp `wi`.
    fn issue(
        &mut self,
        wi: usize,
        id: u64,
        cb0: &[u8],
        global: &mut Global,
        trace: &mut Vec<String>,
    ) -> Result<Event, SimError> {
        let gi = self.warps[wi]
            .groups
            .iter()
            .position(|g| g.id == id)
            .expect("the chosen group exists");
        let step = self.step;
        let g = &mut self.warps[wi].groups[gi];
        g.last_issued = step;
        let (mask, pc) = (g.mask, g.pc);
        self.warps[wi].yielded &= !mask;
        if self.opts.trace {
            let text = match self.kernel.code.get(pc as usize / 16) {
                Some(crate::kernel::Slot::Inst(i)) => {
                    i.m.text(self.kernel.arch, pc as u64)
                        .unwrap_or_else(|_| i.op().to_string())
                }
                _ => "<no instruction>".to_string(),
            };
            trace.push(format!(
                "block ({},{},{}) warp {} pc {pc:#06x} mask {mask:#010x} {text}",
                self.block[0], self.block[1], self.block[2], wi
            ));
        }
        crate::control::step(self, wi, gi, cb0, global)
    }

    fn ready_groups(&self) -> usize {
        self.warps.iter().map(|w| w.groups.len()).sum()
    }

    /// Every group and waiting set of the block, for a deadlock or livelock report.
    pub fn report(&self) -> Vec<StuckGroup> {
        let mut out = Vec::new();
        for (wi, w) in self.warps.iter().enumerate() {
            for g in &w.groups {
                out.push(StuckGroup {
                    block: self.block,
                    warp: wi as u32,
                    lanes: g.mask,
                    pc: g.pc,
                    state: if w.yielded & g.mask != 0 {
                        "ready (yielded)".into()
                    } else {
                        "ready".into()
                    },
                });
            }
            let mut waits: Vec<(u32, String, u32)> = Vec::new();
            for l in lanes(!w.exited()) {
                let lane = w.lanes[l];
                let state = match lane.status {
                    Status::Ready | Status::Exited => continue,
                    Status::WaitB { k, w } => format!("BSYNC B{k} waiting for lanes {w:#010x}"),
                    Status::WaitW { mask, collective } => format!(
                        "WARPSYNC{} waiting for lanes {mask:#010x}",
                        if collective.is_some() {
                            ".COLLECTIVE"
                        } else {
                            ""
                        }
                    ),
                    Status::WaitBar => "BAR.SYNC".into(),
                };
                match waits
                    .iter_mut()
                    .find(|(pc, s, _)| *pc == lane.pc && *s == state)
                {
                    Some(e) => e.2 |= 1 << l,
                    None => waits.push((lane.pc, state, 1 << l)),
                }
            }
            for (pc, state, m) in waits {
                out.push(StuckGroup {
                    block: self.block,
                    warp: wi as u32,
                    lanes: m,
                    pc,
                    state,
                });
            }
        }
        out
    }
}
