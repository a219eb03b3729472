//! The scope tree of a structured function: the single-entry regions the lowering may give
//! a convergence barrier, read off the construct tree (`tangle_ir::analysis::ConstructTree`).
//!
//! - the function's *root* scope (all of it; its exit is the function's return);
//! - a *selection* scope per selection construct (an `if` or a `switch` with its cases);
//!   its exit is the merge block;
//! - per loop, a *break* scope (loop and continue constructs; its exit is the merge block)
//!   and, when the continue target is not the header, a *continue* scope inside it (the
//!   loop construct: one iteration up to the continue target, its exit).
//!
//! Regions nest like the constructs they come from, so the scopes an edge leaves are a
//! chain from the innermost scope of its source upwards.

use tangle_ir::analysis::{ConstructId, ConstructKind, ConstructTree};
use tangle_ir::{Block, Function};

/// A scope's index in its [`ScopeTree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ScopeId(pub u32);

/// What a scope is made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeKind {
    /// The whole function; its exit is the return.
    Root,
    /// A selection construct (`if` or `switch`).
    Selection,
    /// A loop with its continue construct, up to the merge block.
    LoopBreak,
    /// One iteration of a loop, up to the continue target.
    LoopContinue,
}

/// One scope.
#[derive(Clone, Debug)]
pub struct Scope {
    /// Which kind.
    pub kind: ScopeKind,
    /// The selection or loop header (`None` for the root).
    pub header: Option<Block>,
    /// The construct it comes from (the loop construct for both loop scopes).
    pub construct: Option<ConstructId>,
    /// Where lanes leave it normally: the merge block or continue target; `None` for the
    /// root, which is left by returning.
    pub exit: Option<Block>,
    /// The smallest scope around it.
    pub parent: Option<ScopeId>,
    /// The scopes whose parent this is.
    pub children: Vec<ScopeId>,
    /// Its nesting depth (the root is 0).
    pub depth: u32,
}

/// Every scope of one function, with the construct tree they come from.
#[derive(Clone, Debug)]
pub struct ScopeTree {
    scopes: Vec<Scope>,
    /// The scopes of each construct: (selection or break scope, continue scope).
    of_construct: Vec<(Option<ScopeId>, Option<ScopeId>)>,
    /// The construct tree of the function.
    pub constructs: ConstructTree,
}

/// The root scope's id.
pub const ROOT: ScopeId = ScopeId(0);

impl ScopeTree {
    /// The scopes of `func`.
    pub fn new(func: &Function) -> Self {
        Self::with_constructs(ConstructTree::new(func))
    }

    /// The scopes of the function whose construct tree is `constructs` (the uniformity
    /// analysis builds one; the lowering takes it over rather than build it again).
    pub fn with_constructs(constructs: ConstructTree) -> Self {
        let mut tree = ScopeTree {
            scopes: vec![Scope {
                kind: ScopeKind::Root,
                header: None,
                construct: None,
                exit: None,
                parent: None,
                children: Vec::new(),
                depth: 0,
            }],
            of_construct: vec![(None, None); constructs.len()],
            constructs,
        };
        // Constructs in an order where parents come first: by region size, largest first.
        let mut order: Vec<ConstructId> = tree.constructs.iter().map(|(id, _)| id).collect();
        order.sort_by_key(|&id| std::cmp::Reverse(tree.constructs.region(id).len()));
        for id in order {
            let c = tree.constructs.get(id).clone();
            match c.kind {
                ConstructKind::Selection => {
                    let parent = tree.scope_around(c.parent, c.header);
                    let s = tree.push(ScopeKind::Selection, &c, id, Some(c.merge), parent);
                    tree.of_construct[id.0 as usize].0 = Some(s);
                }
                ConstructKind::Loop => {
                    let parent = tree.scope_around(c.parent, c.header);
                    let b = tree.push(ScopeKind::LoopBreak, &c, id, Some(c.merge), parent);
                    tree.of_construct[id.0 as usize].0 = Some(b);
                    let target = c.continue_target.expect("a loop has a continue target");
                    if target != c.header {
                        let k = tree.push(ScopeKind::LoopContinue, &c, id, Some(target), b);
                        tree.of_construct[id.0 as usize].1 = Some(k);
                    }
                }
                ConstructKind::Case | ConstructKind::Continue => {}
            }
        }
        tree
    }

    fn push(
        &mut self,
        kind: ScopeKind,
        c: &tangle_ir::analysis::Construct,
        id: ConstructId,
        exit: Option<Block>,
        parent: ScopeId,
    ) -> ScopeId {
        let s = ScopeId(self.scopes.len() as u32);
        let depth = self.scopes[parent.0 as usize].depth + 1;
        self.scopes.push(Scope {
            kind,
            header: Some(c.header),
            construct: Some(id),
            exit,
            parent: Some(parent),
            children: Vec::new(),
            depth,
        });
        self.scopes[parent.0 as usize].children.push(s);
        s
    }

    /// The innermost scope around block `at` given the innermost construct `c` whose
    /// region holds it (`None`: the root).
    fn scope_around(&self, c: Option<ConstructId>, at: Block) -> ScopeId {
        let Some(c) = c else { return ROOT };
        let data = self.constructs.get(c);
        match data.kind {
            ConstructKind::Selection => self.of_construct[c.0 as usize].0.unwrap_or(ROOT),
            ConstructKind::Case => {
                let sel = data.partner.expect("a case construct has its switch");
                self.of_construct[sel.0 as usize].0.unwrap_or(ROOT)
            }
            ConstructKind::Continue => {
                let lp = data.partner.expect("a continue construct has its loop");
                self.of_construct[lp.0 as usize].0.unwrap_or(ROOT)
            }
            ConstructKind::Loop => {
                let (b, k) = self.of_construct[c.0 as usize];
                if data.contains(at) {
                    k.or(b).unwrap_or(ROOT)
                } else {
                    b.unwrap_or(ROOT)
                }
            }
        }
    }

    /// The innermost scope holding block `b` (the root for blocks in no construct).
    pub fn innermost(&self, b: Block) -> ScopeId {
        self.scope_around(self.constructs.innermost(b), b)
    }

    /// Scope `s`.
    pub fn get(&self, s: ScopeId) -> &Scope {
        &self.scopes[s.0 as usize]
    }

    /// Every scope id, parents before children.
    pub fn ids(&self) -> impl Iterator<Item = ScopeId> + Clone {
        (0..self.scopes.len() as u32).map(ScopeId)
    }

    /// The number of scopes (the root included).
    pub fn len(&self) -> usize {
        self.scopes.len()
    }

    /// Whether the tree has only its root.
    pub fn is_empty(&self) -> bool {
        self.scopes.len() <= 1
    }

    /// The break and continue scopes of the loop headed by `h`.
    pub fn loop_scopes(&self, h: Block) -> Option<(ScopeId, Option<ScopeId>)> {
        let c = self.constructs.of_header(h)?;
        match self.of_construct[c.0 as usize] {
            (Some(b), k) if self.get(b).kind == ScopeKind::LoopBreak => Some((b, k)),
            _ => None,
        }
    }

    /// The selection scope headed by `h`.
    pub fn selection_scope(&self, h: Block) -> Option<ScopeId> {
        let c = self.constructs.of_header(h)?;
        match self.of_construct[c.0 as usize] {
            (Some(s), _) if self.get(s).kind == ScopeKind::Selection => Some(s),
            _ => None,
        }
    }

    /// Whether block `b` lies in scope `s`'s region.
    pub fn contains(&self, s: ScopeId, b: Block) -> bool {
        let scope = self.get(s);
        match (scope.kind, scope.construct) {
            (ScopeKind::Root, _) => true,
            (ScopeKind::LoopContinue, Some(c)) => self.constructs.get(c).contains(b),
            (_, Some(c)) => self.constructs.region_contains(c, b),
            (_, None) => false,
        }
    }

    /// The blocks of scope `s`'s region (for the root: every block in `func`'s layout).
    pub fn region(&self, func: &Function, s: ScopeId) -> Vec<Block> {
        let scope = self.get(s);
        match (scope.kind, scope.construct) {
            (ScopeKind::LoopContinue, Some(c)) => self.constructs.get(c).blocks.clone(),
            (_, Some(c)) => self.constructs.region(c),
            _ => func.layout.clone(),
        }
    }

    /// Whether `inner` is `outer` or lies inside it.
    pub fn is_within(&self, mut inner: ScopeId, outer: ScopeId) -> bool {
        loop {
            if inner == outer {
                return true;
            }
            match self.get(inner).parent {
                Some(p) => inner = p,
                None => return false,
            }
        }
    }

    /// The scopes an edge from `from` to `to` leaves, innermost first (the root never: an
    /// edge stays in the function).
    pub fn left_by_edge(&self, from: Block, to: Block) -> Vec<ScopeId> {
        let mut out = Vec::new();
        let mut s = self.innermost(from);
        while s != ROOT && !self.contains(s, to) {
            out.push(s);
            s = self.get(s).parent.unwrap_or(ROOT);
        }
        out
    }

    /// The scopes around `from`, innermost first, the root last: what a return leaves.
    pub fn around(&self, from: Block) -> Vec<ScopeId> {
        let mut out = Vec::new();
        let mut s = Some(self.innermost(from));
        while let Some(id) = s {
            out.push(id);
            s = self.get(id).parent;
        }
        out
    }
}
