//! Static counts of the barrier operations in a lowered module, per function: how many
//! `bar_set`, `bar_sync`, `bar_break` and `exit` instructions its blocks hold (dynamic
//! counts, per warp and run, come from the barrier machine).

use std::fmt;

use tangle_ir::{Func, Module, Op, TangleOp};

/// The barrier operations of one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BarrierCounts {
    /// `bar_set` instructions.
    pub set: usize,
    /// `bar_sync` instructions.
    pub sync: usize,
    /// `bar_break` instructions.
    pub brk: usize,
    /// `exit` instructions.
    pub exit: usize,
}

impl BarrierCounts {
    /// The barrier operations proper (set, sync and break; exits are not barrier work).
    pub fn barrier_ops(&self) -> usize {
        self.set + self.sync + self.brk
    }

    /// Adds `other` to these counts.
    pub fn add(&mut self, other: &BarrierCounts) {
        self.set += other.set;
        self.sync += other.sync;
        self.brk += other.brk;
        self.exit += other.exit;
    }
}

impl fmt::Display for BarrierCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bar_set {} bar_sync {} bar_break {} exit {}",
            self.set, self.sync, self.brk, self.exit
        )
    }
}

/// The counts of every function of `module` that has blocks, in function order.
pub fn static_counts(module: &Module) -> Vec<(Func, BarrierCounts)> {
    module
        .funcs
        .iter()
        .filter(|(_, f)| !f.layout.is_empty())
        .map(|(id, f)| {
            let mut c = BarrierCounts::default();
            for &b in &f.layout {
                for &i in &f.blocks[b].insts {
                    match f.insts[i].op {
                        Op::Tangle(TangleOp::BarSet) => c.set += 1,
                        Op::Tangle(TangleOp::BarSync) => c.sync += 1,
                        Op::Tangle(TangleOp::BarBreak) => c.brk += 1,
                        Op::Tangle(TangleOp::Exit) => c.exit += 1,
                        _ => {}
                    }
                }
            }
            (id, c)
        })
        .collect()
}

/// The counts as text, one line per function (`f0 "main": bar_set 1 ...`) and a total.
pub fn format_counts(module: &Module) -> String {
    let mut out = String::new();
    let mut total = BarrierCounts::default();
    for (id, c) in static_counts(module) {
        let name = module.funcs[id].name.as_deref().unwrap_or("");
        out.push_str(&format!("{id} {name:?}: {c}\n"));
        total.add(&c);
    }
    out.push_str(&format!("total: {total}\n"));
    out
}
