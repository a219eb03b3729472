//! The generator's own program form: a small structured compute program.
//!
//! Every program runs one workgroup of [`Program::local_size`] invocations. It reads a
//! fixed input buffer ([`INPUT`], set 0 binding 1) and writes observation records into an
//! output buffer (set 0 binding 0). Each invocation keeps a counter `loc` of the records it
//! has written; an observation writes record `loc` of that invocation and increments it, so
//! the final buffer shows, per invocation, the sequence of tangles it observed.

/// Words of one observation record: the four ballot (or elect) words and the observation's
/// id plus one (so an unwritten record, all zero, is told apart from a written one).
pub const RECORD_WORDS: u32 = 5;

/// How many words of the input buffer the programs read.
pub const INPUT_LEN: usize = 16;

/// The input buffer's words: `INPUT[i]` is what `in[i]` holds. Uniform conditions compare
/// such a word with a constant; invocation conditions compare the invocation index with one.
pub const INPUT: [u32; INPUT_LEN] = [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 100, 7, 64, 31, 17];

/// A whole program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Invocations of the (single) workgroup, in x.
    pub local_size: u32,
    /// The entry point's body.
    pub body: Vec<Stmt>,
    /// How many loops the program has (loop ids are `0..loops`, over all functions).
    pub loops: u32,
    /// Helper functions `f(u32 arg)`: function `k` calls only functions after it (no
    /// recursion). In a helper, `return` goes back to the caller.
    pub functions: Vec<Vec<Stmt>>,
}

/// A subgroup operation on `LocalInvocationIndex + 1` inside (possibly divergent) code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    /// `subgroupAdd`: the sum over the tangle.
    Sum,
    /// `subgroupInclusiveAdd`: the sum over the tangle's lanes up to this one.
    InclusiveSum,
    /// `subgroupBroadcastFirst`: the value of the tangle's lowest lane.
    BroadcastFirst,
}

/// A per-lane boolean condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// Bit `SubgroupLocalInvocationId & 31` of the mask (divergent on lane bits).
    LaneMask(u32),
    /// `(SubgroupLocalInvocationId & 3) == arg` for the helper function's argument (only in
    /// helper functions).
    ArgIsLane,
    /// `in[index] == value`: the same for every invocation.
    Uniform {
        /// The input word read.
        index: u32,
        /// The value it is compared with.
        value: u32,
    },
    /// `(SubgroupLocalInvocationId & 3) == i` for the index `i` of an enclosing for-loop.
    LoopIndexIsLane {
        /// The loop whose index is compared.
        loop_id: u32,
    },
    /// `LocalInvocationIndex < in[index]`.
    InvocationBelowInput {
        /// The input word read.
        index: u32,
    },
}

/// A switch's selector (always in `0..4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selector {
    /// `in[index] & 3`: the same for every invocation.
    Uniform {
        /// The input word read.
        index: u32,
    },
    /// The index of an enclosing for-loop (below 4: trip counts are at most 4).
    LoopIndex {
        /// The loop whose index is the selector.
        loop_id: u32,
    },
    /// `SubgroupLocalInvocationId & 3`: divergent on lane bits.
    LaneBits,
}

/// A for-loop's trip count (always at least one: the loop is a do-while).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trip {
    /// The same count for every lane.
    Uniform(u32),
    /// `(SubgroupLocalInvocationId & mask) + 1` (`mask` is 1 or 3): lane-dependent.
    LaneBits(u32),
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// Record `subgroupBallot(true)`.
    Ballot {
        /// The observation's id (unique in the program).
        id: u32,
    },
    /// Record `subgroupElect()` (1 for the elected lane, 0 for the others).
    Elect {
        /// The observation's id (unique in the program).
        id: u32,
    },
    /// Record a collective's result (then three zero words).
    Collective {
        /// The observation's id (unique in the program).
        id: u32,
        /// Which operation.
        op: Collective,
    },
    /// `if (cond) { then } else { els }`.
    If {
        /// The condition.
        cond: Cond,
        /// The then branch.
        then: Vec<Stmt>,
        /// The else branch, if any.
        els: Option<Vec<Stmt>>,
    },
    /// `for (i = 0; ; ) { body; continue: i++; if !(i < trip) break; }`: a do-while with a
    /// counted back edge.
    For {
        /// The loop's id (names its index variable).
        loop_id: u32,
        /// The trip count.
        trip: Trip,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `while (true) { body; if (subgroupElect()) break; }`: left by one lane per iteration
    /// at least. Its body never `continue`s this loop directly.
    Infinite {
        /// The body (the elect and break are added when the body can fall through).
        body: Vec<Stmt>,
    },
    /// `switch (selector) { default: ... case l: ... }`. No `break` of an enclosing loop is
    /// generated inside a case.
    Switch {
        /// The selector.
        selector: Selector,
        /// The cases: distinct literals in `0..4`, each with its body.
        cases: Vec<(u32, Vec<Stmt>)>,
        /// The default case, if any (else unmatched lanes go to the merge).
        default: Option<Vec<Stmt>>,
        /// Per case body in operand order (the default first, then `cases`): whether its
        /// end falls through into the next body (else it ends with a switch break). The
        /// last body's end goes to the merge either way.
        fallthrough: Vec<bool>,
    },
    /// Call helper function `func` with the index of loop `arg` (an enclosing for-loop of
    /// the same function), or with 1.
    Call {
        /// The helper function's index in [`Program::functions`].
        func: u32,
        /// The enclosing for-loop whose index is passed, if any.
        arg: Option<u32>,
    },
    /// `do { body } while (!subgroupElect());`: the exit test is in the continue construct,
    /// so `continue` (allowed here) goes to it; at least one lane leaves per iteration.
    DoWhileElect {
        /// The body.
        body: Vec<Stmt>,
    },
    /// Leave the innermost loop.
    Break,
    /// Go to the innermost loop's continue target.
    Continue,
    /// Return: from a helper function, back to the caller; from the entry point, the lane
    /// ends.
    Return,
}

impl Stmt {
    /// Whether control never falls through this statement (every path jumps away).
    pub fn always_jumps(&self) -> bool {
        match self {
            Stmt::Break | Stmt::Continue | Stmt::Return => true,
            Stmt::If {
                then,
                els: Some(els),
                ..
            } => block_always_jumps(then) && block_always_jumps(els),
            _ => false,
        }
    }
}

/// Whether control never falls through the end of a statement list.
pub fn block_always_jumps(stmts: &[Stmt]) -> bool {
    stmts.iter().any(Stmt::always_jumps)
}

/// Counts statements (recursively), for size reports.
pub fn count_stmts(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| {
            1 + match s {
                Stmt::If { then, els, .. } => {
                    count_stmts(then) + els.as_deref().map_or(0, count_stmts)
                }
                Stmt::For { body, .. } | Stmt::Infinite { body } | Stmt::DoWhileElect { body } => {
                    count_stmts(body)
                }
                Stmt::Switch { cases, default, .. } => {
                    cases.iter().map(|c| count_stmts(&c.1)).sum::<usize>()
                        + default.as_deref().map_or(0, count_stmts)
                }
                _ => 0,
            }
        })
        .sum()
}
