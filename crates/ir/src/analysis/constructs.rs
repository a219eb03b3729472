//! The construct tree of a structured function (SPIR-V 2.11), by structural dominance:
//! dominance in the graph where every header also has edges to its merge block and (for
//! loops) its continue target ([`Cfg::structured`]).
//!
//! - a *selection* construct: the blocks the header structurally dominates, less those its
//!   merge block structurally dominates;
//! - a *continue* construct: the blocks the continue target structurally dominates, less those
//!   the loop's merge block structurally dominates;
//! - a *loop* construct: the blocks the loop header structurally dominates, less those of its
//!   continue construct and those its merge block structurally dominates;
//! - a *case* construct, for each switch target `T` other than the merge block: the blocks `T`
//!   structurally dominates, less those the switch's merge block structurally dominates.
//!
//! Nesting is by *region*: a construct's blocks, and for a loop its continue construct's too.
//! A construct's parent is the smallest other region that contains its region (a continue
//! construct's parent is its loop; a case construct's is its switch's selection). The
//! verifier and the interpreter both read constructs from here.

use crate::hash::FxHashSet;

use crate::cfg::{Cfg, DomTree};
use crate::entity::{EntityRef, SecondaryMap};
use crate::module::{Block, Function, Merge, Terminator};

/// A construct's index in its [`ConstructTree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConstructId(pub u32);

/// What kind of construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConstructKind {
    /// A case construct of a structured switch.
    Case,
    /// A loop's continue construct.
    Continue,
    /// A selection construct (`selection_merge`, with a `br_if` or `switch`).
    Selection,
    /// A loop construct (`loop_merge`).
    Loop,
}

/// One construct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Construct {
    /// Which kind.
    pub kind: ConstructKind,
    /// Its first block: the header (selection, loop), continue target or case target.
    pub entry: Block,
    /// The block that carries the merge annotation (a case's switch header, a continue
    /// construct's loop header).
    pub header: Block,
    /// The merge block of that annotation.
    pub merge: Block,
    /// The loop's continue target (loop and continue constructs).
    pub continue_target: Option<Block>,
    /// Its blocks by the specification's definition, sorted by block number.
    pub blocks: Vec<Block>,
    /// The construct whose region is the smallest that contains this one's.
    pub parent: Option<ConstructId>,
    /// The constructs whose parent this is, in creation order.
    pub children: Vec<ConstructId>,
    /// For a loop, its continue construct; for a continue or case construct, the loop or
    /// selection construct of its header.
    pub partner: Option<ConstructId>,
}

impl Construct {
    /// Whether `b` is one of this construct's blocks (by the specification's definition).
    pub fn contains(&self, b: Block) -> bool {
        self.blocks.binary_search(&b).is_ok()
    }
}

/// Every construct of a function and their nesting.
#[derive(Clone, Debug)]
pub struct ConstructTree {
    nodes: Vec<Construct>,
    /// The constructs whose *region* contains each block, block after block in one array:
    /// block `b`'s are `around[around_first[b]..around_first[b + 1]]` (a vector per block
    /// cost an allocation and a free per block each time a tree is built; docs/lowering.md,
    /// "Speed", round 4).
    around: Vec<ConstructId>,
    around_first: Vec<u32>,
    innermost: SecondaryMap<Block, Option<ConstructId>>,
    of_header: SecondaryMap<Block, Option<ConstructId>>,
    roots: Vec<ConstructId>,
}

impl ConstructTree {
    /// Computes the constructs of `func`.
    pub fn new(func: &Function) -> Self {
        let scfg = Cfg::structured(func);
        let sdom = DomTree::new(func, &scfg);
        Self::with_structural_dominators(func, &sdom)
    }

    /// Computes the constructs of `func` from its structural dominator tree (the dominator
    /// tree of [`Cfg::structured`]), for callers that already have it.
    pub fn with_structural_dominators(func: &Function, sdom: &DomTree) -> Self {
        let mut tree = ConstructTree {
            nodes: Vec::new(),
            around: Vec::new(),
            around_first: Vec::new(),
            innermost: SecondaryMap::with_default(None),
            of_header: SecondaryMap::with_default(None),
            roots: Vec::new(),
        };
        // `entry`'s structural dominator subtree, pruned at `stop` blocks.
        let subtree = |entry: Block, stop: &[Block]| -> Vec<Block> {
            let mut out = Vec::new();
            let mut stack = vec![entry];
            while let Some(b) = stack.pop() {
                if stop.contains(&b) && b != entry {
                    continue;
                }
                out.push(b);
                stack.extend(sdom.children_iter(b));
            }
            out.sort_unstable();
            out
        };
        let push = |tree: &mut ConstructTree, c: Construct| {
            let id = ConstructId(tree.nodes.len() as u32);
            tree.nodes.push(c);
            id
        };
        for &h in &func.layout {
            let Some(block) = func.blocks.get(h) else {
                continue;
            };
            let Some(merge) = block.merge else { continue };
            if !sdom.is_reachable(h) {
                continue;
            }
            let m = merge.merge_block();
            match merge {
                Merge::Selection { .. } => {
                    let sel = push(
                        &mut tree,
                        Construct {
                            kind: ConstructKind::Selection,
                            entry: h,
                            header: h,
                            merge: m,
                            continue_target: None,
                            blocks: subtree(h, &[m]),
                            parent: None,
                            children: Vec::new(),
                            partner: None,
                        },
                    );
                    tree.of_header.set(h, Some(sel));
                    if let Terminator::Switch { default, cases, .. } = &block.term {
                        let mut seen = FxHashSet::default();
                        for t in std::iter::once(*default).chain(cases.iter().map(|c| c.1)) {
                            if t == m || !seen.insert(t) || !sdom.is_reachable(t) {
                                continue;
                            }
                            push(
                                &mut tree,
                                Construct {
                                    kind: ConstructKind::Case,
                                    entry: t,
                                    header: h,
                                    merge: m,
                                    continue_target: None,
                                    blocks: subtree(t, &[m]),
                                    parent: None,
                                    children: Vec::new(),
                                    partner: Some(sel),
                                },
                            );
                        }
                    }
                }
                Merge::Loop {
                    continue_target: c, ..
                } => {
                    let cont_blocks = if c == m { Vec::new() } else { subtree(c, &[m]) };
                    let mut loop_blocks = subtree(h, &[m, c]);
                    loop_blocks.retain(|b| cont_blocks.binary_search(b).is_err());
                    let lp = push(
                        &mut tree,
                        Construct {
                            kind: ConstructKind::Loop,
                            entry: h,
                            header: h,
                            merge: m,
                            continue_target: Some(c),
                            blocks: loop_blocks,
                            parent: None,
                            children: Vec::new(),
                            partner: None,
                        },
                    );
                    tree.of_header.set(h, Some(lp));
                    if c != h && c != m && sdom.is_reachable(c) {
                        let ct = push(
                            &mut tree,
                            Construct {
                                kind: ConstructKind::Continue,
                                entry: c,
                                header: h,
                                merge: m,
                                continue_target: Some(c),
                                blocks: cont_blocks,
                                parent: None,
                                children: Vec::new(),
                                partner: Some(lp),
                            },
                        );
                        tree.nodes[lp.0 as usize].partner = Some(ct);
                    }
                }
            }
        }
        tree.link();
        tree
    }

    /// Fills `around`, `innermost`, parents and children.
    fn link(&mut self) {
        let ids: Vec<ConstructId> = (0..self.nodes.len() as u32).map(ConstructId).collect();
        let blocks = ids
            .iter()
            .flat_map(|&id| self.region_blocks(id))
            .map(|b| b.index() + 1)
            .max()
            .unwrap_or(0);
        let mut first = vec![0u32; blocks + 1];
        for &id in &ids {
            for b in self.region_blocks(id) {
                first[b.index() + 1] += 1;
            }
        }
        for b in 0..blocks {
            first[b + 1] += first[b];
        }
        let mut fill = first.clone();
        let mut around = vec![ConstructId(0); first[blocks] as usize];
        for &id in &ids {
            for b in self.region_blocks(id) {
                around[fill[b.index()] as usize] = id;
                fill[b.index()] += 1;
            }
        }
        self.around = around;
        self.around_first = first;
        // A total order on constructs by region size, so that parents are strictly larger.
        let key = |t: &Self, id: ConstructId| {
            let n = &t.nodes[id.0 as usize];
            (t.region_len(id), n.kind, id)
        };
        for &id in &ids {
            let entry = self.nodes[id.0 as usize].entry;
            let mine = key(self, id);
            let region = self.region(id);
            let parent = self
                .regions_around(entry)
                .iter()
                .copied()
                .filter(|&o| o != id && key(self, o) > mine)
                .filter(|&o| region.iter().all(|&b| self.region_contains(o, b)))
                .min_by_key(|&o| key(self, o));
            self.nodes[id.0 as usize].parent = parent;
            match parent {
                Some(p) => self.nodes[p.0 as usize].children.push(id),
                None => self.roots.push(id),
            }
        }
        for &id in &ids {
            let inner = key(self, id);
            for b in self.nodes[id.0 as usize].blocks.clone() {
                let better = match *self.innermost.get(b) {
                    None => true,
                    Some(o) => inner < key(self, o),
                };
                if better {
                    self.innermost.set(b, Some(id));
                }
            }
        }
    }

    fn region_len(&self, id: ConstructId) -> usize {
        let n = &self.nodes[id.0 as usize];
        let extra = match (n.kind, n.partner) {
            (ConstructKind::Loop, Some(c)) => self.nodes[c.0 as usize].blocks.len(),
            _ => 0,
        };
        n.blocks.len() + extra
    }

    /// The region of a construct: its blocks, and for a loop its continue construct's too.
    pub fn region(&self, id: ConstructId) -> Vec<Block> {
        self.region_blocks(id).collect()
    }

    /// The blocks of [`ConstructTree::region`], without collecting them.
    fn region_blocks(&self, id: ConstructId) -> impl Iterator<Item = Block> + '_ {
        let n = &self.nodes[id.0 as usize];
        let extra: &[Block] = match (n.kind, n.partner) {
            (ConstructKind::Loop, Some(c)) => &self.nodes[c.0 as usize].blocks,
            _ => &[],
        };
        n.blocks.iter().chain(extra).copied()
    }

    /// Whether `b` is in the region of construct `id`.
    pub fn region_contains(&self, id: ConstructId, b: Block) -> bool {
        self.regions_around(b).contains(&id)
    }

    /// The constructs whose region contains `b`, in creation order.
    pub fn regions_around(&self, b: Block) -> &[ConstructId] {
        match (
            self.around_first.get(b.index()),
            self.around_first.get(b.index() + 1),
        ) {
            (Some(&from), Some(&to)) => &self.around[from as usize..to as usize],
            _ => &[],
        }
    }

    /// The construct with id `id`.
    pub fn get(&self, id: ConstructId) -> &Construct {
        &self.nodes[id.0 as usize]
    }

    /// Every construct, by id.
    pub fn iter(&self) -> impl Iterator<Item = (ConstructId, &Construct)> {
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, c)| (ConstructId(i as u32), c))
    }

    /// The number of constructs.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the function has no construct.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The constructs no other region contains.
    pub fn roots(&self) -> &[ConstructId] {
        &self.roots
    }

    /// The smallest construct whose blocks (by the specification's definition) include `b`:
    /// where the interpreter finds the merge and continue target that `b` can branch to.
    pub fn innermost(&self, b: Block) -> Option<ConstructId> {
        *self.innermost.get(b)
    }

    /// The selection or loop construct headed by `h`.
    pub fn of_header(&self, h: Block) -> Option<ConstructId> {
        *self.of_header.get(h)
    }

    /// The case constructs of the structured switch in `header`, in the order of the
    /// switch's targets (default first), duplicates and the merge block left out.
    pub fn cases(&self, header: Block) -> Vec<ConstructId> {
        let Some(sel) = self.of_header(header) else {
            return Vec::new();
        };
        self.iter()
            .filter(|(_, c)| c.kind == ConstructKind::Case && c.partner == Some(sel))
            .map(|(id, _)| id)
            .collect()
    }

    /// The case targets that case construct `case` branches to (falls through to), in the
    /// order its blocks' edges are found. A valid switch has at most one. This is the
    /// specification's (and the verifier's) view: a block of the construct that no path
    /// from the entry reaches (an unreachable merge block) still counts.
    pub fn fallthrough_targets(&self, func: &Function, case: ConstructId) -> Vec<Block> {
        self.fallthrough_from(func, case, |_| true)
    }

    /// Like [`Self::fallthrough_targets`], counting only blocks reachable from the entry
    /// (`dom` is the function's dominator tree over [`Cfg::new`]): the fallthroughs an
    /// execution can take, which is what the interpreter needs.
    pub fn executable_fallthrough_targets(
        &self,
        func: &Function,
        dom: &DomTree,
        case: ConstructId,
    ) -> Vec<Block> {
        self.fallthrough_from(func, case, |b| dom.is_reachable(b))
    }

    fn fallthrough_from(
        &self,
        func: &Function,
        case: ConstructId,
        counts: impl Fn(Block) -> bool,
    ) -> Vec<Block> {
        let c = self.get(case);
        if c.kind != ConstructKind::Case {
            return Vec::new();
        }
        let targets: Vec<Block> = self
            .cases(c.header)
            .iter()
            .map(|&t| self.get(t).entry)
            .collect();
        let mut out = Vec::new();
        for &b in c.blocks.iter().filter(|&&b| counts(b)) {
            for s in func.blocks[b].term.successors() {
                if s != c.entry && !c.contains(s) && targets.contains(&s) && !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        out
    }

    /// For the structured switch in `header`: each case target with the case target its
    /// construct falls through to, if any (the first, for an invalid switch with several).
    pub fn case_fallthrough(&self, func: &Function, header: Block) -> Vec<(Block, Option<Block>)> {
        self.cases(header)
            .into_iter()
            .map(|id| {
                (
                    self.get(id).entry,
                    self.fallthrough_targets(func, id).first().copied(),
                )
            })
            .collect()
    }

    /// [`Self::case_fallthrough`] as an execution sees it: each case target of the switch
    /// in `header` with the case target it can fall into, counting only blocks reachable
    /// from the entry (`dom` over [`Cfg::new`]). What the interpreter's case instances need.
    pub fn executable_case_fallthrough(
        &self,
        func: &Function,
        dom: &DomTree,
        header: Block,
    ) -> Vec<(Block, Option<Block>)> {
        self.cases(header)
            .into_iter()
            .map(|id| {
                let into = self.executable_fallthrough_targets(func, dom, id);
                (self.get(id).entry, into.first().copied())
            })
            .collect()
    }
}
