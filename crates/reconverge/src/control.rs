//! Control dependence: what a divergent branch does to the values after it.
//!
//! For a divergent conditional branch or switch in block `B` (the lanes of one tangle may
//! take different successors):
//!
//! - **joins**: a block that the lanes may reach from two different successors of `B`
//!   within the same iteration of every loop around `B` holds, in one tangle, lanes that
//!   came along different edges: its phis are divergent. The search follows edges forward
//!   from each successor, never along a back edge, and stops at `B`'s immediate
//!   post-dominator (all lanes pass there; what follows is the post-dominator's business).
//! - **divergent loop exits** (temporal divergence): when the search from `B` leaves a loop
//!   around `B`, or comes back to its header, lanes of one tangle may leave that loop in
//!   different iterations or by different exits. The phis of its exit blocks are then
//!   divergent, and so is every value defined in the loop and read outside it, where it is
//!   read: each lane holds the value of its own last iteration. (Inside the loop it stays
//!   uniform.)
//! - **divergent switches**: the reference may run one switch target as several tangles
//!   (one per selector value under the by-selector policy; fallthrough lanes apart under
//!   the independent fallthrough policy), which meet again at the merge. A value defined
//!   inside the switch construct is uniform in each of those tangles but not across them:
//!   every such value is divergent where read outside the construct.
//!
//! Functions that are not structured, or have irreducible cycles, get a coarser rule: the
//! search follows every edge (back edges included) without stopping, every cycle around
//! `B` counts as having divergent exits, values of the cycle are divergent where read
//! outside it, and values defined anywhere after its exits are divergent wherever read.

use tangle_ir::hash::{FxHashMap, FxHashSet};

use tangle_ir::analysis::{
    Cfg, ConstructTree, CycleId, CycleInfo, DomTree, PostDomNode, PostDomTree, Use, UseLists,
};
use tangle_ir::{Block, Form, Function, Inst, Op, Terminator, Value};

/// The control-flow facts of one function that the rules read.
pub(crate) struct Shape {
    cfg: Cfg,
    dom: DomTree,
    pdom: PostDomTree,
    cycles: CycleInfo,
    constructs: Option<ConstructTree>,
    uses: UseLists,
    /// Each laid-out instruction's block, dense by instruction number.
    block_of: tangle_ir::entity::SecondaryMap<Inst, Option<Block>>,
    /// Structured and reducible: the precise rules apply.
    precise: bool,
}

impl Shape {
    /// Computes the analyses of `func`.
    pub(crate) fn new(func: &Function) -> Self {
        let cfg = Cfg::new(func);
        let dom = DomTree::new(func, &cfg);
        let pdom = PostDomTree::new(func, &cfg);
        let cycles = CycleInfo::new(func, &cfg);
        let structured = func.form == Form::Structured;
        let reducible = cycles.cycles().all(|(_, c)| c.is_reducible());
        let constructs = structured.then(|| ConstructTree::new(func));
        let mut block_of = tangle_ir::entity::SecondaryMap::with_capacity(None, func.insts.len());
        for &b in &func.layout {
            for &i in &func.blocks[b].insts {
                block_of.set(i, Some(b));
            }
        }
        Shape {
            cfg,
            dom,
            pdom,
            cycles,
            constructs,
            uses: UseLists::new(func),
            block_of,
            precise: structured && reducible,
        }
    }

    /// The construct tree (structured functions only), for a caller done with the shape.
    pub(crate) fn into_constructs(self) -> Option<ConstructTree> {
        self.constructs
    }

    /// Whether block `b` is reachable from the entry.
    pub(crate) fn is_reachable(&self, b: Block) -> bool {
        self.dom.is_reachable(b)
    }

    /// The cycles containing `b`, innermost first.
    fn cycles_around(&self, b: Block) -> Vec<CycleId> {
        let mut out = Vec::new();
        let mut cur = self.cycles.innermost(b);
        while let Some(c) = cur {
            out.push(c);
            cur = self.cycles.cycle(c).parent;
        }
        out
    }

    /// The blocks that lanes leaving cycle `c` in different iterations may run as
    /// separate tangles before they meet again. In a structured function that is the loop
    /// construct with its continue construct: break blocks lie outside the cycle but inside
    /// the construct, and lanes leaving in different iterations run them apart until the
    /// merge block. Without constructs, the cycle itself (see [`Shape::after_cycle`]).
    fn loop_region(&self, c: CycleId) -> FxHashSet<Block> {
        let cycle = self.cycles.cycle(c);
        if self.precise {
            if let Some(tree) = &self.constructs {
                if let Some(id) = tree.of_header(cycle.header) {
                    return tree.region(id).into_iter().collect();
                }
            }
        }
        cycle.blocks.iter().copied().collect()
    }

    /// Without constructs nothing says where lanes that left cycle `c` in different
    /// iterations meet again: every block reachable from its exits may be run by them apart
    /// and read together later, so the values defined there count as divergent wherever
    /// read.
    fn after_cycle(&self, func: &Function, c: CycleId) -> Vec<Value> {
        let cycle = self.cycles.cycle(c);
        let inside: FxHashSet<Block> = cycle.blocks.iter().copied().collect();
        let mut seen: FxHashSet<Block> = FxHashSet::default();
        let mut stack: Vec<Block> = self.cycles.exit_blocks(c, &self.cfg);
        while let Some(b) = stack.pop() {
            if !inside.contains(&b) && seen.insert(b) {
                stack.extend(self.cfg.succs(b).iter().copied());
            }
        }
        seen.iter()
            .flat_map(|b| func.blocks[*b].insts.iter())
            .filter_map(|i| func.insts[*i].result)
            .collect()
    }

    /// The block where use `u` reads its value (a phi reads at the end of the incoming
    /// block).
    fn use_block(&self, func: &Function, u: Use) -> Option<Block> {
        match u {
            Use::Inst { inst, index } => match &func.insts[inst].op {
                Op::Phi(blocks) => blocks.get(index).copied(),
                _ => *self.block_of.get(inst),
            },
            Use::Conv(inst) => *self.block_of.get(inst),
            Use::Terminator(b) => Some(b),
        }
    }

    /// The values defined in `region` that some use outside `region` reads.
    fn escaping_values(&self, func: &Function, region: &FxHashSet<Block>) -> Vec<Value> {
        let mut out = Vec::new();
        for &b in region {
            for &i in &func.blocks[b].insts {
                let Some(v) = func.insts[i].result else {
                    continue;
                };
                let escapes = self.uses.uses(v).iter().any(|u| {
                    self.use_block(func, *u)
                        .is_some_and(|ub| !region.contains(&ub))
                });
                if escapes {
                    out.push(v);
                }
            }
        }
        out
    }
}

/// What one divergent branch makes divergent.
#[derive(Debug, Default)]
pub(crate) struct Effects {
    /// Blocks whose phis are divergent.
    pub(crate) join_blocks: Vec<Block>,
    /// Values that are divergent where read outside a region (the region given): lanes
    /// that ran the region apart meet after it, each with its own value.
    pub(crate) escaping: Vec<(Value, std::rc::Rc<FxHashSet<Block>>)>,
    /// Headers of the loops found to have divergent exits.
    pub(crate) divergent_exit_loops: Vec<Block>,
}

/// The effects of a divergent terminator in block `b` of `func`.
pub(crate) fn divergent_branch(shape: &Shape, func: &Function, b: Block) -> Effects {
    let mut succs: Vec<Block> = Vec::new();
    for s in shape.cfg.succs(b) {
        if !succs.contains(s) {
            succs.push(*s);
        }
    }
    let mut effects = Effects::default();
    if succs.len() < 2 {
        return effects;
    }
    let around = shape.cycles_around(b);
    let stop = match shape.pdom.ipdom(b) {
        Some(PostDomNode::Block(p)) if shape.precise => Some(p),
        _ => None,
    };
    let mut marked: FxHashSet<CycleId> = FxHashSet::default();
    if !shape.precise {
        marked.extend(around.iter().copied());
    }
    let mut reached_from: FxHashMap<Block, usize> = FxHashMap::default();
    for &s in &succs {
        let mut seen: FxHashSet<Block> = FxHashSet::default();
        let mut stack: Vec<(Block, Block)> = vec![(b, s)];
        while let Some((from, to)) = stack.pop() {
            if shape.precise {
                if shape.dom.dominates(to, from) {
                    // A back edge: lanes going around a loop around `b` may be in another
                    // iteration than lanes that stopped; not followed.
                    if let Some(&c) = around.iter().find(|c| shape.cycles.cycle(**c).header == to) {
                        marked.insert(c);
                    }
                    continue;
                }
                for &c in &around {
                    if shape.cycles.contains(c, from) && !shape.cycles.contains(c, to) {
                        marked.insert(c);
                    }
                }
            }
            if !seen.insert(to) {
                continue;
            }
            if Some(to) == stop {
                continue;
            }
            for &n in shape.cfg.succs(to) {
                stack.push((to, n));
            }
        }
        for x in seen {
            *reached_from.entry(x).or_default() += 1;
        }
    }
    effects.join_blocks = reached_from
        .into_iter()
        .filter(|(_, n)| *n >= 2)
        .map(|(x, _)| x)
        .collect();
    for c in marked {
        let header = shape.cycles.cycle(c).header;
        effects.divergent_exit_loops.push(header);
        let region = shape.loop_region(c);
        for &x in &region {
            for &s in shape.cfg.succs(x) {
                if !region.contains(&s) {
                    effects.join_blocks.push(s);
                }
            }
        }
        let region = std::rc::Rc::new(region);
        for v in shape.escaping_values(func, &region) {
            effects.escaping.push((v, region.clone()));
        }
        if !shape.precise {
            let nowhere = std::rc::Rc::new(FxHashSet::default());
            for v in shape.after_cycle(func, c) {
                effects.escaping.push((v, nowhere.clone()));
            }
        }
    }
    if let (Terminator::Switch { .. }, Some(tree)) = (&func.blocks[b].term, &shape.constructs) {
        if let Some(id) = tree.of_header(b) {
            let mut region: FxHashSet<Block> = tree.region(id).into_iter().collect();
            region.remove(&b);
            let region = std::rc::Rc::new(region);
            for v in shape.escaping_values(func, &region) {
                effects.escaping.push((v, region.clone()));
            }
        }
    }
    effects
}
