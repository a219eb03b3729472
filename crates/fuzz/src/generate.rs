//! The seeded random generator of [`Program`]s.
//!
//! Deterministic per seed (fastrand's wyrand). The nesting knob bounds how deep
//! constructs nest; the size budget bounds the number of statements. Loops nest at most
//! [`MAX_LOOPS_ON_PATH`] deep and at most one infinite loop lies on any path, which keeps
//! every program's run bounded (at most 4 iterations per for-loop, at most one lane fewer
//! per iteration of an infinite loop).

use crate::ast::{
    block_always_jumps, Collective, Cond, Program, Selector, Stmt, Trip, INPUT, INPUT_LEN,
};

/// The deepest the nesting knob goes.
pub const MAX_NESTING: u32 = 8;

/// At most this many loops enclose any statement.
pub const MAX_LOOPS_ON_PATH: u32 = 3;

/// The generator's knobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// How deep constructs may nest (1..=8; clamped).
    pub nesting: u32,
    /// The most statements a program gets.
    pub size_budget: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            nesting: 4,
            size_budget: 40,
        }
    }
}

/// The innermost enclosing loop's kind.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LoopKind {
    For,
    Infinite,
}

struct Gen {
    rng: fastrand::Rng,
    nesting: u32,
    budget: u32,
    next_obs: u32,
    next_loop: u32,
    /// The helper functions the function being generated may call: `callees.0..callees.1`.
    callees: (u32, u32),
}

#[derive(Clone)]
struct Ctx {
    depth: u32,
    /// Enclosing for-loops, innermost last.
    for_loops: Vec<u32>,
    loops_on_path: u32,
    infinite_on_path: bool,
    innermost: Option<LoopKind>,
    /// Inside a switch case (of the innermost loop): no loop `break` here.
    in_switch: bool,
    /// In a helper function (which has an argument).
    in_function: bool,
}

/// Generates the program of `seed` under `config`.
pub fn generate(seed: u64, config: GenConfig) -> Program {
    let mut g = Gen {
        rng: fastrand::Rng::with_seed(seed),
        nesting: config.nesting.clamp(1, MAX_NESTING),
        budget: config.size_budget.max(1),
        next_obs: 0,
        next_loop: 0,
        callees: (0, 0),
    };
    let local_size = *g.rng.choice(&[128u32, 128, 96, 100, 64, 37]).unwrap();
    // Helper functions, last first (each may call the ones after it). They get a share of
    // the budget, at most one loop deep and no infinite loop, which bounds the run.
    let count = g.rng.u32(0..=2);
    let mut functions = Vec::new();
    for k in (0..count).rev() {
        g.callees = (k + 1, count);
        let ctx = Ctx {
            depth: 0,
            for_loops: Vec::new(),
            loops_on_path: MAX_LOOPS_ON_PATH - 1,
            infinite_on_path: true,
            innermost: None,
            in_switch: false,
            in_function: true,
        };
        let saved = g.budget;
        g.budget = (saved / 4).max(1);
        let mut body = vec![Stmt::Ballot { id: g.obs() }];
        body.extend(g.block(&ctx, 4));
        g.budget = saved;
        functions.push(body);
    }
    functions.reverse();
    g.callees = (0, count);
    let ctx = Ctx {
        depth: 0,
        for_loops: Vec::new(),
        loops_on_path: 0,
        infinite_on_path: false,
        innermost: None,
        in_switch: false,
        in_function: false,
    };
    let mut body = vec![Stmt::Ballot { id: g.obs() }];
    body.extend(g.block(&ctx, 8));
    if !block_always_jumps(&body) {
        body.push(Stmt::Ballot { id: g.obs() });
    }
    Program {
        local_size,
        body,
        loops: g.next_loop,
        functions,
    }
}

impl Gen {
    fn obs(&mut self) -> u32 {
        self.next_obs += 1;
        self.next_obs - 1
    }

    /// A statement list of at most `max_len` statements; it ends after a statement that
    /// always jumps (code after it would be unreachable).
    fn block(&mut self, ctx: &Ctx, max_len: u32) -> Vec<Stmt> {
        let len = self.rng.u32(1..=max_len.max(1));
        let mut out = Vec::new();
        for _ in 0..len {
            if self.budget == 0 {
                break;
            }
            let s = self.stmt(ctx);
            let jumps = s.always_jumps();
            out.push(s);
            if jumps {
                break;
            }
        }
        out
    }

    fn cond(&mut self, ctx: &Ctx) -> Cond {
        match self.rng.u32(0..5) {
            4 if ctx.in_function => Cond::ArgIsLane,
            0 => Cond::LaneMask(self.rng.u32(..)),
            1 => {
                let index = self.rng.u32(0..INPUT_LEN as u32);
                let value = if self.rng.bool() {
                    INPUT[index as usize]
                } else {
                    self.rng.u32(0..128)
                };
                Cond::Uniform { index, value }
            }
            2 if !ctx.for_loops.is_empty() => Cond::LoopIndexIsLane {
                loop_id: *self.rng.choice(&ctx.for_loops).unwrap(),
            },
            _ => Cond::InvocationBelowInput {
                index: self.rng.u32(0..INPUT_LEN as u32),
            },
        }
    }

    fn stmt(&mut self, ctx: &Ctx) -> Stmt {
        self.budget -= 1;
        let nest_ok = ctx.depth < self.nesting && self.budget > 1;
        let loop_ok = nest_ok && ctx.loops_on_path < MAX_LOOPS_ON_PATH;
        loop {
            match self.rng.u32(0..100) {
                0..=24 => return Stmt::Ballot { id: self.obs() },
                25..=31 => return Stmt::Elect { id: self.obs() },
                32..=34 => {
                    let op = *self
                        .rng
                        .choice(&[
                            Collective::Sum,
                            Collective::InclusiveSum,
                            Collective::BroadcastFirst,
                        ])
                        .unwrap();
                    return Stmt::Collective { id: self.obs(), op };
                }
                35..=59 if nest_ok => {
                    let cond = self.cond(ctx);
                    let inner = Ctx {
                        depth: ctx.depth + 1,
                        ..ctx.clone()
                    };
                    // Sometimes the same jump in both arms.
                    if ctx.innermost.is_some() && self.rng.u32(0..8) == 0 {
                        let jump = self.jump(ctx);
                        let mut then = self.block(&inner, 2);
                        let mut els = self.block(&inner, 2);
                        for arm in [&mut then, &mut els] {
                            if !block_always_jumps(arm) {
                                arm.push(jump.clone());
                            }
                        }
                        return Stmt::If {
                            cond,
                            then,
                            els: Some(els),
                        };
                    }
                    // Sometimes a break block in the making: an observation, then a jump
                    // (lanes leaving in different iterations must observe apart).
                    if ctx.innermost.is_some() && self.rng.u32(0..4) == 0 {
                        let obs = if self.rng.bool() {
                            Stmt::Ballot { id: self.obs() }
                        } else {
                            Stmt::Elect { id: self.obs() }
                        };
                        let then = vec![obs, self.jump(ctx)];
                        let els = self.rng.bool().then(|| self.block(&inner, 3));
                        return Stmt::If { cond, then, els };
                    }
                    let then = self.block(&inner, 4);
                    let els = self.rng.bool().then(|| self.block(&inner, 4));
                    return Stmt::If { cond, then, els };
                }
                60..=74 if loop_ok => {
                    let loop_id = self.next_loop;
                    self.next_loop += 1;
                    let trip = if self.rng.bool() {
                        Trip::Uniform(self.rng.u32(1..=3))
                    } else {
                        Trip::LaneBits(*self.rng.choice(&[1u32, 3]).unwrap())
                    };
                    let mut for_loops = ctx.for_loops.clone();
                    for_loops.push(loop_id);
                    let inner = Ctx {
                        depth: ctx.depth + 1,
                        for_loops,
                        loops_on_path: ctx.loops_on_path + 1,
                        infinite_on_path: ctx.infinite_on_path,
                        innermost: Some(LoopKind::For),
                        in_switch: false,
                        in_function: ctx.in_function,
                    };
                    let body = self.block(&inner, 4);
                    return Stmt::For {
                        loop_id,
                        trip,
                        body,
                    };
                }
                75..=81 if loop_ok && !ctx.infinite_on_path => {
                    let inner = Ctx {
                        depth: ctx.depth + 1,
                        for_loops: ctx.for_loops.clone(),
                        loops_on_path: ctx.loops_on_path + 1,
                        infinite_on_path: true,
                        innermost: Some(LoopKind::Infinite),
                        in_switch: false,
                        in_function: ctx.in_function,
                    };
                    if self.rng.bool() {
                        // The do-while form: its exit test is its continue construct, so
                        // `continue` may leave the body.
                        let inner = Ctx {
                            innermost: Some(LoopKind::For),
                            ..inner
                        };
                        let body = self.block(&inner, 4);
                        return Stmt::DoWhileElect { body };
                    }
                    let body = self.block(&inner, 4);
                    return Stmt::Infinite { body };
                }
                82..=87 if nest_ok => {
                    let selector = match self.rng.u32(0..3) {
                        0 => Selector::Uniform {
                            index: self.rng.u32(0..INPUT_LEN as u32),
                        },
                        1 if !ctx.for_loops.is_empty() => Selector::LoopIndex {
                            loop_id: *self.rng.choice(&ctx.for_loops).unwrap(),
                        },
                        _ => Selector::LaneBits,
                    };
                    let inner = Ctx {
                        depth: ctx.depth + 1,
                        in_switch: true,
                        ..ctx.clone()
                    };
                    let mut literals: Vec<u32> = (0..4).filter(|_| self.rng.bool()).collect();
                    self.rng.shuffle(&mut literals);
                    let cases: Vec<(u32, Vec<Stmt>)> = literals
                        .into_iter()
                        .map(|l| (l, self.block(&inner, 3)))
                        .collect();
                    let default = self.rng.bool().then(|| self.block(&inner, 3));
                    let bodies = cases.len() + usize::from(default.is_some());
                    let fallthrough = (0..bodies).map(|_| self.rng.u32(0..3) == 0).collect();
                    return Stmt::Switch {
                        selector,
                        cases,
                        default,
                        fallthrough,
                    };
                }
                88..=91 if self.callees.0 < self.callees.1 => {
                    let func = self.rng.u32(self.callees.0..self.callees.1);
                    let arg = if ctx.for_loops.is_empty() || self.rng.u32(0..4) == 0 {
                        None
                    } else {
                        Some(*self.rng.choice(&ctx.for_loops).unwrap())
                    };
                    return Stmt::Call { func, arg };
                }
                92..=95 if ctx.innermost.is_some() => return self.jump(ctx),
                96..=99 => return Stmt::Return,
                _ => {}
            }
        }
    }

    /// A break (not inside a switch case), continue (only out of a for-loop body) or return.
    fn jump(&mut self, ctx: &Ctx) -> Stmt {
        match self.rng.u32(0..10) {
            0..=4 if !ctx.in_switch => Stmt::Break,
            5..=8 if ctx.innermost == Some(LoopKind::For) => Stmt::Continue,
            _ => Stmt::Return,
        }
    }
}
