//! The list scheduler of one region: a cycle-by-cycle walk that issues, among the
//! instructions whose predecessors have issued and whose operands are ready, the one with
//! the longest latency-weighted path to the end of the region (critical path first; ties
//! keep the original order). When nothing is ready the clock jumps to the earliest
//! instruction that will be.

use tangle_sass::latency;
use tangle_sass::{Arch, MachInst};

use super::deps::{self, Graph};

/// Each instruction's priority: the longest path from it to the end of the region, counting
/// each edge's delay and, at the end of a path, the instruction's own result latency (so a
/// load whose result nobody in the region reads still starts early).
pub fn heights(arch: Arch, region: &[MachInst], g: &Graph) -> Vec<u32> {
    let t = latency::table(arch);
    let n = region.len();
    let mut h = vec![0u32; n];
    for i in (0..n).rev() {
        let own = region[i]
            .defs()
            .into_iter()
            .map(|d| deps::result_latency(t, &region[i], d))
            .max()
            .unwrap_or(1);
        let through = g.succs[i]
            .iter()
            .map(|e| e.delay + h[e.to])
            .max()
            .unwrap_or(0);
        h[i] = own.max(through);
    }
    h
}

/// The new order of `region` (no fences inside): a permutation of its indices.
pub fn order(arch: Arch, region: &[MachInst]) -> Vec<usize> {
    let n = region.len();
    if n < 2 {
        return (0..n).collect();
    }
    let g = deps::build(arch, region);
    let h = heights(arch, region, &g);
    let mut preds = g.preds.clone();
    let mut earliest = vec![0u64; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| preds[i] == 0).collect();
    let mut out = Vec::with_capacity(n);
    let mut clock = 0u64;
    while !ready.is_empty() {
        let now: Vec<usize> = ready
            .iter()
            .copied()
            .filter(|&i| earliest[i] <= clock)
            .collect();
        if now.is_empty() {
            clock = ready.iter().map(|&i| earliest[i]).min().unwrap_or(clock);
            continue;
        }
        let pick = now
            .into_iter()
            .max_by(|&a, &b| h[a].cmp(&h[b]).then(b.cmp(&a)))
            .expect("a candidate");
        ready.retain(|&i| i != pick);
        out.push(pick);
        for e in &g.succs[pick] {
            earliest[e.to] = earliest[e.to].max(clock + e.delay as u64);
            preds[e.to] -= 1;
            if preds[e.to] == 0 {
                ready.push(e.to);
            }
        }
        clock += 1;
    }
    debug_assert_eq!(out.len(), n, "the dependence graph of a region is acyclic");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tangle_sass::typed::{r, Addr, Operand, RZ};
    use tangle_sass::Op;

    fn iadd(d: u8, a: u8, b: u8) -> MachInst {
        MachInst::build(Op::Iadd3)
            .o(r(d))
            .o(r(a))
            .o(r(b))
            .o(RZ)
            .finish(Arch::Sm86)
            .unwrap()
    }

    fn ldg(d: u8, a: u8) -> MachInst {
        MachInst::build(Op::Ldg)
            .m(".E")
            .o(r(d))
            .o(Operand::mem(Addr::new(r(a), 0)))
            .finish(Arch::Sm86)
            .unwrap()
    }

    fn stg(a: u8, v: u8) -> MachInst {
        MachInst::build(Op::Stg)
            .m(".E")
            .o(Operand::mem(Addr::new(r(a), 0)))
            .o(r(v))
            .finish(Arch::Sm86)
            .unwrap()
    }

    /// Brute force: every dependence of the region (a register read, overwritten or
    /// written again, or a store and another access of the same space) keeps its order.
    fn respects_dependences(region: &[MachInst], order: &[usize]) -> bool {
        let pos = |k: usize| order.iter().position(|&x| x == k).unwrap();
        for j in 0..region.len() {
            for i in 0..j {
                let (a, b) = (&region[i], &region[j]);
                let raw = a.defs().iter().any(|d| b.uses().contains(d));
                let war = a.uses().iter().any(|u| b.defs().contains(u));
                let waw = a.defs().iter().any(|d| b.defs().contains(d));
                let mem = matches!(
                    (a.op(), b.op()),
                    (Op::Stg, Op::Ldg) | (Op::Ldg, Op::Stg) | (Op::Stg, Op::Stg)
                );
                if (raw || war || waw || mem) && pos(i) > pos(j) {
                    return false;
                }
            }
        }
        true
    }

    #[test]
    fn loads_start_first_and_independent_work_fills_their_latency() {
        // R10 = R2 + R3 ; R11 = R10 + R10 ; R4 = [R6] ; R5 = R4 + R4
        let region = vec![iadd(10, 2, 3), iadd(11, 10, 10), ldg(4, 6), iadd(5, 4, 4)];
        let o = order(Arch::Sm86, &region);
        assert_eq!(o[0], 2, "the load goes first: {o:?}");
        assert!(respects_dependences(&region, &o));
        assert_eq!(*o.last().unwrap(), 3, "its reader last: {o:?}");
    }

    #[test]
    fn stores_and_loads_keep_their_order_and_registers_their_dependences() {
        let region = vec![
            stg(2, 3),
            ldg(4, 6),
            iadd(3, 4, 4),
            ldg(7, 8),
            stg(8, 7),
            iadd(6, 9, 9),
            iadd(9, 1, 1),
        ];
        for arch in Arch::ALL {
            let o = order(arch, &region);
            let mut sorted = o.clone();
            sorted.sort();
            assert_eq!(sorted, (0..region.len()).collect::<Vec<_>>());
            assert!(respects_dependences(&region, &o), "{arch}: {o:?}");
        }
    }
}
