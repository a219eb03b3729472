//! Convergence regions nest (LLVM's "Convergence Regions"): the region of a token `T`
//! defined by `D` is the set of instruction positions strictly dominated by `D` from which
//! a use of `T` can be reached without passing `D` again (where `T` is live and used; a
//! use's own position belongs to it). If the region of `T1` holds a use of another token
//! `T2`, it must hold `T2`'s definition too.

use crate::hash::FxHashMap;

use super::{at, Site, TokenSites};
use crate::cfg::{Cfg, DomTree};
use crate::module::{Block, Func, Function};
use crate::verify::{Rule, Sink};

/// The region of one token.
struct Region<'a> {
    func: &'a Function,
    cfg: &'a Cfg,
    dom: &'a DomTree,
    def: Site,
    uses: Vec<Site>,
    live_in: FxHashMap<Block, bool>,
}

impl<'a> Region<'a> {
    fn new(func: &'a Function, cfg: &'a Cfg, dom: &'a DomTree, def: Site, uses: Vec<Site>) -> Self {
        let mut r = Region {
            func,
            cfg,
            dom,
            def,
            uses,
            live_in: FxHashMap::default(),
        };
        loop {
            let mut changed = false;
            for &b in dom.rpo().iter().rev() {
                if r.live_in.get(&b).copied().unwrap_or(false) {
                    continue;
                }
                if r.live_from(b, 0) {
                    r.live_in.insert(b, true);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        r
    }

    /// Whether a use is reachable from position `index` of `b` without passing the
    /// definition, with what is known of block entries so far.
    fn live_from(&self, b: Block, index: usize) -> bool {
        match self.scan(b, index) {
            Some(found) => found,
            None => self
                .cfg
                .succs(b)
                .iter()
                .any(|s| self.live_in.get(s).copied().unwrap_or(false)),
        }
    }

    /// Whether a use is reached from position `index` of `b` before the definition, in the
    /// block itself (`Some(true)`), or the definition comes first (`Some(false)`).
    fn scan(&self, b: Block, index: usize) -> Option<bool> {
        let insts = &self.func.blocks[b].insts;
        for k in index..insts.len() {
            if (b, k) == (self.def.block, self.def.index) {
                return Some(false);
            }
            if self.uses.iter().any(|u| (u.block, u.index) == (b, k)) {
                return Some(true);
            }
        }
        None
    }

    /// The blocks of a path from position `p` (in the region) to a use of the token that
    /// does not execute the definition: the witness that `p` is in the region.
    fn witness(&self, p: Site) -> String {
        let mut path = vec![p.block];
        let mut at = p.block;
        let mut from = p.index;
        while self.scan(at, from) != Some(true) && path.len() <= self.func.layout.len() {
            let Some(&next) = self
                .cfg
                .succs(at)
                .iter()
                .find(|s| self.live_in.get(s).copied().unwrap_or(false))
            else {
                break;
            };
            path.push(next);
            at = next;
            from = 0;
        }
        path.iter()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(" -> ")
    }

    fn contains(&self, p: Site) -> bool {
        let dominated = (p.block == self.def.block && p.index > self.def.index)
            || self.dom.strictly_dominates(self.def.block, p.block);
        dominated && self.live_from(p.block, p.index)
    }
}

pub(super) fn check(
    f: Func,
    func: &Function,
    cfg: &Cfg,
    dom: &DomTree,
    sites: &TokenSites,
    sink: &mut Sink,
) {
    for &d1 in &sites.defs {
        let Some(t1) = func.insts[d1.inst].result else {
            continue;
        };
        let uses: Vec<Site> = sites
            .uses
            .iter()
            .filter(|u| u.token == t1)
            .map(|u| u.at)
            .collect();
        if uses.is_empty() {
            continue;
        }
        let region = Region::new(func, cfg, dom, d1, uses);
        for u2 in sites.uses.iter().filter(|u| u.token != t1) {
            if region.contains(u2.at) && !region.contains(u2.def) {
                sink.report(
                    Rule::Tokens,
                    at(f, func, u2.at),
                    format!(
                        "convergence regions do not nest: the region of {t1} (defined at {} #{}) holds this use of {} but not its definition at {} #{} (path {} to a use of {t1})",
                        d1.block, d1.index, u2.token, u2.def.block, u2.def.index, region.witness(u2.at)
                    ),
                );
            }
        }
    }
}
