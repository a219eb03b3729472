//! SSA repair's one scan of the function: every use of the groups' values (the *sites* the
//! repair rewrites), and, when asked, the values outside the groups whose definition no
//! longer dominates one of their uses, with the sites of those too. Finding those in the
//! same scan saves a second read of every instruction, which on large functions comes
//! from memory (docs/lowering-speed.md, round 5).

use crate::cfg::DomTree;
use crate::entity::SecondaryMap;
use crate::hash::FxHashMap;
use crate::module::{Block, Function, Inst, Operand, Value, ValueDef};
use crate::ops::Op;

/// Which undominated values the caller turns down (see `repair_many_mending_in`).
pub(super) type Refuse<'r> = &'r dyn Fn(&Function, Value) -> bool;

/// The position of an instruction in no laid-out block.
const NOT_PLACED: u32 = u32::MAX;

/// Where a use is.
#[derive(Clone, Copy, Debug)]
pub(super) enum Site {
    /// Operand `k` of a non-phi instruction at position `pos` of `block`.
    Inst {
        inst: Inst,
        k: u32,
        block: Block,
        pos: u32,
    },
    /// Operand `k` of a phi: the value must reach the end of `pred`.
    Phi { inst: Inst, k: u32, pred: Block },
    /// The terminator of `block`.
    Term { block: Block },
}

/// What the scan found.
pub(super) struct Scan {
    /// Every site, group after group, each group's in scan order.
    sites: Vec<Site>,
    /// Group `g`'s sites are `sites[start[g]..start[g + 1]]`.
    start: Vec<u32>,
    /// Where the groups' defining instructions sit (only those: a map over every
    /// instruction is written in full and read for a few): block and index.
    pub(super) position: FxHashMap<Inst, (Block, usize)>,
    /// The values found undominated (mending scans only), ascending; value `mended[r]`
    /// is group `groups + r`.
    pub(super) mended: Vec<Value>,
}

impl Scan {
    /// The sites of group `g`.
    pub(super) fn sites(&self, g: usize) -> &[Site] {
        &self.sites[self.start[g] as usize..self.start[g + 1] as usize]
    }
}

/// The mending part of a scan: the uses that could need a value outside the groups
/// repaired, and the values whose definition misses a use.
struct Mender<'a> {
    dom: &'a DomTree,
    entry: Option<Block>,
    /// The block and index of every laid-out instruction ([`NOT_PLACED`] for the others:
    /// eight bytes an entry, not twelve with an `Option`).
    place: SecondaryMap<Inst, (Block, u32)>,
    /// Uses of values outside the groups in blocks other than their definition's, in scan
    /// order. A use in its definition's own block follows the definition (the function
    /// was in SSA form before the rewrite, which only appends), so the repair would find
    /// that definition first and change nothing there: it is left out.
    candidates: Vec<(Value, Site)>,
    /// Values with a use their definition does not dominate (with repeats).
    broken: Vec<Value>,
}

impl Mender<'_> {
    fn def_block(&self, func: &Function, v: Value) -> Option<Block> {
        match func.values.get(v)?.def {
            ValueDef::Param(_) => self.entry,
            ValueDef::Inst(i) => {
                let &(b, pos) = self.place.get(i);
                (pos != NOT_PLACED).then_some(b)
            }
            ValueDef::Unused => None,
        }
    }

    /// A use of `v` (outside the groups) that must be reached at `at`; `site` is where it
    /// sits (none for a convergence-control operand, which the repair does not rewrite).
    fn note(&mut self, func: &Function, v: Value, at: Block, site: Option<Site>) {
        let Some(d) = self.def_block(func, v) else {
            return;
        };
        if d == at {
            return;
        }
        if let Some(site) = site {
            self.candidates.push((v, site));
        }
        if self.dom.is_reachable(at) && !self.dom.dominates(d, at) {
            self.broken.push(v);
        }
    }
}

/// Scans `func` for the sites of the `groups` groups of `group_of` (value → group). With
/// `mend` (the function's current dominator tree), also finds the values outside the
/// groups that a definition no longer dominates; unless `refuse` turns one down (then
/// `Err` with it, the smallest such, and nothing is changed), each becomes a group of its
/// own after the others, entered in `group_of`.
pub(super) fn scan(
    func: &Function,
    group_of: &mut SecondaryMap<Value, Option<u32>>,
    groups: usize,
    mend: Option<(&DomTree, Refuse<'_>)>,
) -> Result<Scan, Value> {
    let mut mender = mend.map(|(dom, _)| {
        let mut place =
            SecondaryMap::with_capacity((Block::from_u32(0), NOT_PLACED), func.insts.len());
        for &b in &func.layout {
            for (pos, &i) in func.blocks[b].insts.iter().enumerate() {
                place.set(i, (b, pos as u32));
            }
        }
        Mender {
            dom,
            entry: func.entry(),
            place,
            // Room for a use per instruction: pages never written cost nothing, and growth
            // by doubling copies what was written.
            candidates: Vec::with_capacity(func.insts.len()),
            broken: Vec::new(),
        }
    });
    // Every use of a group's value, in scan order, with its group: one array written in
    // sequence and grouped afterwards by a stable counting sort, so each group's sites
    // keep the scan's order. A vector per group (29k groups at 100k instructions) grew by
    // doubling: an allocation and a copy or two per group, each on fresh memory.
    let mut found: Vec<(u32, Site)> = Vec::with_capacity(2 * groups);
    if mend.is_some() {
        // The lowering's call, whose groups have many uses: room for one per
        // instruction (as for the candidates below).
        found.reserve(func.insts.len());
    }
    let mut position: FxHashMap<Inst, (Block, usize)> = FxHashMap::default();
    for &b in &func.layout {
        let block = &func.blocks[b];
        for (pos, &i) in block.insts.iter().enumerate() {
            let data = &func.insts[i];
            if data.result.is_some_and(|r| group_of.get(r).is_some()) {
                position.insert(i, (b, pos));
            }
            for (k, a) in data.args.iter().enumerate() {
                let Operand::Value(v) = *a else { continue };
                let (site, at) = match &data.op {
                    Op::Phi(preds) => (
                        Site::Phi {
                            inst: i,
                            k: k as u32,
                            pred: preds[k],
                        },
                        preds[k],
                    ),
                    _ => (
                        Site::Inst {
                            inst: i,
                            k: k as u32,
                            block: b,
                            pos: pos as u32 + 1,
                        },
                        b,
                    ),
                };
                match *group_of.get(v) {
                    Some(g) => found.push((g, site)),
                    None => {
                        if let Some(m) = &mut mender {
                            m.note(func, v, at, Some(site));
                        }
                    }
                }
            }
            if let (Some(m), Some(c)) = (&mut mender, data.conv) {
                if !matches!(data.op, Op::Phi(_)) && group_of.get(c).is_none() {
                    m.note(func, c, b, None);
                }
            }
        }
        // A terminator has at most one operand, so one site per block.
        if let Some(Operand::Value(v)) = block.term.operand() {
            match *group_of.get(v) {
                Some(g) => found.push((g, Site::Term { block: b })),
                None => {
                    if let Some(m) = &mut mender {
                        m.note(func, v, b, Some(Site::Term { block: b }));
                    }
                }
            }
        }
    }
    let mut mended = Vec::new();
    if let (Some(m), Some((_, refuse))) = (mender, mend) {
        mended = m.broken;
        mended.sort_unstable();
        mended.dedup();
        if let Some(&v) = mended.iter().find(|&&v| refuse(func, v)) {
            return Err(v);
        }
        for (r, &v) in mended.iter().enumerate() {
            group_of.set(v, Some((groups + r) as u32));
            if let ValueDef::Inst(i) = func.values[v].def {
                let &(b, pos) = m.place.get(i);
                if pos != NOT_PLACED {
                    position.insert(i, (b, pos as usize));
                }
            }
        }
        for (v, site) in m.candidates {
            if let Ok(r) = mended.binary_search(&v) {
                found.push(((groups + r) as u32, site));
            }
        }
    }
    let total = groups + mended.len();
    let mut start: Vec<u32> = vec![0; total + 1];
    for &(g, _) in &found {
        start[g as usize + 1] += 1;
    }
    for g in 0..total {
        start[g + 1] += start[g];
    }
    let mut sites: Vec<Site> = vec![
        Site::Term {
            block: Block::from_u32(0)
        };
        found.len()
    ];
    let mut next: Vec<u32> = start[..total].to_vec();
    for (g, site) in found {
        let slot = &mut next[g as usize];
        sites[*slot as usize] = site;
        *slot += 1;
    }
    Ok(Scan {
        sites,
        start,
        position,
        mended,
    })
}
