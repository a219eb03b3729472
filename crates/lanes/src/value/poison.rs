//! Undefined values ("poison"): where one was born and why, and the helpers every op uses to
//! propagate it. A value SPIR-V leaves undefined is not an error until something observes it
//! (a branch, an address, an atomic operand, an `EXPECT`); until then it flows through every
//! value op and into memory, component by component and lane by lane.

use std::fmt;
use std::sync::Arc;

use tangle_ir::{Const, Global, Type, TypeData, TypeTable};

use super::Val;
use crate::Position;

/// Where an undefined value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Born {
    /// At the instruction being executed: the engine replaces this with its position
    /// (per-lane ops do not know where they run).
    Here,
    /// At this instruction.
    At(Position),
    /// An `OpUndef` constant (or a constant built from one).
    Const(Const),
    /// The initial contents of a variable without initializer.
    Variable(Global),
    /// A buffer byte that was already undefined when the dispatch started (left undefined
    /// by an earlier dispatch).
    Input,
}

/// Why a value is undefined and where it was born.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Poison {
    /// Where.
    pub born: Born,
    /// The rule that made it undefined (e.g. "integer division by zero").
    pub why: String,
}

impl Poison {
    /// A fresh undefined value born at the executing instruction.
    pub fn here(why: impl Into<String>) -> Val {
        Val::Undef(Arc::new(Poison {
            born: Born::Here,
            why: why.into(),
        }))
    }
}

impl fmt::Display for Poison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.born {
            Born::Here => write!(f, "born here: {}", self.why),
            Born::At(p) => write!(f, "born at {p}: {}", self.why),
            Born::Const(c) => write!(f, "born at constant {c}: {}", self.why),
            Born::Variable(g) => write!(f, "born in variable {g}: {}", self.why),
            Born::Input => write!(f, "undefined on entry to the dispatch: {}", self.why),
        }
    }
}

impl Val {
    /// The first undefined component of this value, depth first; `None` when it is fully
    /// defined.
    #[inline]
    pub fn poison(&self) -> Option<&Arc<Poison>> {
        match self {
            Val::Undef(p) => Some(p),
            Val::Comp(c) => c.iter().find_map(Val::poison),
            _ => None,
        }
    }

    /// Whether some component is undefined.
    #[inline]
    pub fn is_poisoned(&self) -> bool {
        self.poison().is_some()
    }

    /// Replaces [`Born::Here`] in every undefined component with `at`. Returns whether one
    /// was replaced (a value born at this instruction).
    pub fn stamp(&mut self, at: Position) -> bool {
        self.stamp_born(&Born::At(at))
    }

    /// Replaces [`Born::Here`] in every undefined component with `born`. Returns whether
    /// one was replaced.
    pub fn stamp_born(&mut self, born: &Born) -> bool {
        match self {
            Val::Undef(p) if p.born == Born::Here => {
                Arc::make_mut(p).born = born.clone();
                true
            }
            Val::Comp(c) => c.iter_mut().fold(false, |any, v| v.stamp_born(born) | any),
            _ => false,
        }
    }
}

/// The first undefined component among `vals`.
pub fn first_poison(vals: &[Val]) -> Option<&Arc<Poison>> {
    vals.iter().find_map(Val::poison)
}

/// A value of type `ty` whose every scalar component is `p` (composites keep their shape,
/// so a later extract of one component is undefined too).
pub fn undef_like(types: &TypeTable, ty: Type, p: &Arc<Poison>) -> Val {
    match types.get(ty) {
        TypeData::Vector { elem, count } => {
            Val::Comp(vec![undef_like(types, *elem, p); usize::from(*count)])
        }
        TypeData::Array { elem, len, .. } => {
            Val::Comp(vec![undef_like(types, *elem, p); *len as usize])
        }
        TypeData::Matrix { column, count, .. } => {
            Val::Comp(vec![undef_like(types, *column, p); usize::from(*count)])
        }
        TypeData::Struct { members, .. } => {
            Val::Comp(members.iter().map(|m| undef_like(types, m.ty, p)).collect())
        }
        _ => Val::Undef(p.clone()),
    }
}
