//! Analyses of a function's control flow and values, computed on demand.
//!
//! Every analysis is a plain value computed from a `&Function` (and its [`Cfg`]): nothing is
//! cached inside the function, so an analysis can never be stale by accident. After an edit,
//! recompute what you need; a pass that edits and queries in a loop recomputes after each
//! batch of edits. (A cache keyed by an edit counter can come later if profiles ask for it:
//! it needs a counter in [`Function`](crate::Function) that every edit bumps.)
//!
//! - [`DomTree`] (in [`crate::cfg`]): dominators;
//! - [`PostDomTree`]: post-dominators, rooted at a virtual exit;
//! - [`CycleInfo`]: cycles (loops) of any graph, irreducible ones included;
//! - [`ConstructTree`]: SPIR-V constructs of a structured function, by structural dominance;
//! - [`UseLists`]: where each value is used.

pub mod constructs;
pub mod cycles;
pub(crate) mod graph;
pub mod postdom;
pub mod uses;

pub use crate::cfg::{reverse_post_order, Cfg, DomTree};
pub use constructs::{Construct, ConstructId, ConstructKind, ConstructTree};
pub use cycles::{dfs_preorder, Cycle, CycleId, CycleInfo};
pub use postdom::{PostDomNode, PostDomTree};
pub use uses::{Use, UseLists};
