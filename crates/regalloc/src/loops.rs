//! Natural loops, so next-use distances can weigh leaving a loop: a value next read after
//! the loop is a better one to spill than one read on the next iteration, however short the
//! exit path (Braun and Hack's loop-exit penalty). Dominators by Cooper, Harvey and
//! Kennedy's iteration over the reverse post-order; a back edge is an edge to a block that
//! dominates its source; its loop is every block that reaches the source without passing the
//! header. Retreating edges of irreducible regions form no loop here and cost nothing extra.

use crate::function::{BlockId, Function};

/// Per block, the natural loops it belongs to (as indices into one list of loops).
pub(crate) struct Loops {
    /// `member[l][b]`: whether block `b` is in loop `l`.
    member: Vec<Vec<bool>>,
    /// Per block, the loops containing it.
    containing: Vec<Vec<usize>>,
    /// Per block, the loop it heads.
    headed: Vec<Option<usize>>,
}

impl Loops {
    /// How many loops there are.
    pub(crate) fn count(&self) -> usize {
        self.member.len()
    }

    /// The loops containing `block`.
    pub(crate) fn containing(&self, block: usize) -> &[usize] {
        &self.containing[block]
    }

    /// The loop `block` heads, if any.
    pub(crate) fn headed_by(&self, block: usize) -> Option<usize> {
        self.headed[block]
    }

    /// How many loops the edge `from -> to` leaves.
    pub(crate) fn exits(&self, from: usize, to: usize) -> u32 {
        self.containing[from]
            .iter()
            .filter(|&&l| !self.member[l][to])
            .count() as u32
    }
}

/// The natural loops of `func`, whose blocks in reverse post-order are `rpo` (all reachable).
pub(crate) fn find(func: &Function, rpo: &[BlockId]) -> Loops {
    let n = func.blocks.len();
    let mut order = vec![usize::MAX; n];
    for (i, b) in rpo.iter().enumerate() {
        order[b.0 as usize] = i;
    }
    let idom = dominators(func, rpo, &order);
    let dominates = |a: usize, mut b: usize| loop {
        if a == b {
            return true;
        }
        if b == 0 || idom[b] == usize::MAX {
            return false;
        }
        b = idom[b];
    };
    // One loop per header, merging the bodies of all its back edges.
    let mut header_loop: Vec<Option<usize>> = vec![None; n];
    let mut member: Vec<Vec<bool>> = Vec::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for succ in &block.succs {
            let h = succ.0 as usize;
            if !dominates(h, b) {
                continue;
            }
            let l = *header_loop[h].get_or_insert_with(|| {
                member.push(vec![false; n]);
                member.len() - 1
            });
            let body = &mut member[l];
            body[h] = true;
            let mut stack = vec![b];
            while let Some(x) = stack.pop() {
                if body[x] {
                    continue;
                }
                body[x] = true;
                stack.extend(func.blocks[x].preds.iter().map(|p| p.0 as usize));
            }
        }
    }
    let mut containing = vec![Vec::new(); n];
    for (l, body) in member.iter().enumerate() {
        for (b, inside) in body.iter().enumerate() {
            if *inside {
                containing[b].push(l);
            }
        }
    }
    Loops {
        member,
        containing,
        headed: header_loop,
    }
}

/// Immediate dominators (`usize::MAX` for none; the entry is its own).
fn dominators(func: &Function, rpo: &[BlockId], order: &[usize]) -> Vec<usize> {
    let n = func.blocks.len();
    let mut idom = vec![usize::MAX; n];
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for block in rpo.iter().skip(1) {
            let b = block.0 as usize;
            let mut new = usize::MAX;
            for pred in &func.blocks[b].preds {
                let p = pred.0 as usize;
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    p
                } else {
                    intersect(&idom, order, p, new)
                };
            }
            if new != idom[b] {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

fn intersect(idom: &[usize], order: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while order[a] > order[b] {
            a = idom[a];
        }
        while order[b] > order[a] {
            b = idom[b];
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::Block;

    #[test]
    fn a_loop_exit_is_counted_once_per_loop_left() {
        // b0 -> b1 (header) -> b2 (inner header) -> b3 -> b2 ; b3 -> b4 -> b1 ; b1 -> b5
        let mut f = Function::default();
        let succs: [&[u32]; 6] = [&[1], &[2, 5], &[3], &[2, 4], &[1], &[]];
        f.blocks = succs
            .iter()
            .map(|s| Block {
                succs: s.iter().map(|b| BlockId(*b)).collect(),
                ..Default::default()
            })
            .collect();
        f.compute_preds();
        let rpo = crate::validate::reverse_post_order(&f);
        let loops = find(&f, &rpo);
        assert_eq!(loops.exits(3, 4), 1, "leaving the inner loop");
        assert_eq!(loops.exits(1, 5), 1, "leaving the outer loop");
        assert_eq!(loops.exits(2, 3), 0);
        assert_eq!(
            loops.exits(4, 1),
            0,
            "the back edge stays in the outer loop"
        );
        assert_eq!(loops.exits(0, 1), 0);
    }
}
