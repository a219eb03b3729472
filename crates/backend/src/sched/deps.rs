//! The dependence graph of one region, on physical registers: read after write (with the
//! producer's latency), write after read and write after write on every register file
//! (`R`, `P`, `UR`, `UP`, `B`), and memory order (an access and a store or atomic to the
//! same space keep their order; loads may pass loads). Regions hold no fences, so control
//! operations need no edges.

use tangle_sass::latency::{self, Kind, Table};
use tangle_sass::roles::{memory_effect, Access, Space};
use tangle_sass::typed::Loc;
use tangle_sass::{Arch, MachInst};

/// The register file of a location, as the latency tables name it.
pub fn file(l: Loc) -> &'static str {
    match l {
        Loc::R(_) => "R",
        Loc::P(_) => "P",
        Loc::Ur(_) => "UR",
        Loc::Up(_) => "UP",
        Loc::B(_) => "B",
        Loc::Rpc(_) => "RPC",
    }
}

/// The weight the scheduler gives a variable-latency result when ranking instructions:
/// one more than the largest fixed latency (`max` column) of the SM's table. The tables
/// measure no figure for scoreboarded classes; this only says "longer than anything
/// fixed", so their producers are started first. It never sets a stall.
pub fn variable_weight(t: &Table) -> u32 {
    t.rows
        .iter()
        .filter(|m| m.kind == Kind::Fixed)
        .filter_map(|m| m.max.or(m.min))
        .max()
        .unwrap_or(0)
        + 1
}

/// Cycles from the issue of `i` to a reader of its result in `loc`: the table's fixed
/// latency, or [`variable_weight`] where the result is scoreboarded.
pub fn result_latency(t: &Table, i: &MachInst, loc: Loc) -> u32 {
    match loc {
        Loc::B(_) => 1,
        _ => t
            .fixed_latency(i.form, file(loc))
            .unwrap_or_else(|| variable_weight(t)),
    }
}

/// A directed edge: the later instruction issues at least `delay` cycles after the earlier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The later instruction (index in the region).
    pub to: usize,
    /// Minimum cycles between their issues (at least 1).
    pub delay: u32,
}

/// The graph of a region.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// Edges out of each instruction.
    pub succs: Vec<Vec<Edge>>,
    /// Number of edges into each instruction.
    pub preds: Vec<usize>,
}

fn spaces_conflict(a: Space, b: Space) -> bool {
    a == b || a == Space::Generic || b == Space::Generic
}

/// Builds the dependence graph of `region` (no fences inside) for `arch`.
pub fn build(arch: Arch, region: &[MachInst]) -> Graph {
    let t = latency::table(arch);
    let n = region.len();
    let defs: Vec<Vec<Loc>> = region.iter().map(MachInst::defs).collect();
    let uses: Vec<Vec<Loc>> = region.iter().map(MachInst::uses).collect();
    let mem: Vec<Option<(Space, Access)>> = region.iter().map(|i| memory_effect(i.op())).collect();
    let mut g = Graph {
        succs: vec![Vec::new(); n],
        preds: vec![0; n],
    };
    for j in 0..n {
        for i in 0..j {
            let mut delay: Option<u32> = None;
            let mut need = |d: u32| delay = Some(delay.map_or(d, |x| x.max(d)));
            for &d in &defs[i] {
                if uses[j].contains(&d) {
                    need(result_latency(t, &region[i], d).max(1));
                }
                if defs[j].contains(&d) {
                    // The later write must land last.
                    let li = result_latency(t, &region[i], d);
                    let lj = result_latency(t, &region[j], d);
                    need((li + 1).saturating_sub(lj).max(1));
                }
            }
            if uses[i].iter().any(|u| defs[j].contains(u)) {
                need(1);
            }
            if let (Some((si, ai)), Some((sj, aj))) = (mem[i], mem[j]) {
                let writes = ai != Access::Load || aj != Access::Load;
                if writes && spaces_conflict(si, sj) {
                    need(1);
                }
            }
            if let Some(delay) = delay {
                g.succs[i].push(Edge { to: j, delay });
                g.preds[j] += 1;
            }
        }
    }
    g
}
