//! Typed run errors and the positions they name.

pub use tangle_lanes::Position;

/// Why a run failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum InterpError {
    /// The configuration or the bindings do not fit the module.
    #[error("configuration: {0}")]
    Config(String),
    /// Something the interpreter does not implement.
    #[error("unsupported at {at}: {what}")]
    Unsupported {
        /// Where.
        at: Position,
        /// What.
        what: String,
    },
    /// A memory access outside its buffer or variable.
    #[error("out-of-bounds access at {at}: {what}")]
    OutOfBounds {
        /// Where.
        at: Position,
        /// What.
        what: String,
    },
    /// An operation whose result the specification leaves undefined.
    #[error("undefined behaviour at {at}: {what}")]
    Undefined {
        /// Where.
        at: Position,
        /// What.
        what: String,
    },
    /// A lane used an undefined value where its value decides what happens (a branch
    /// condition, a switch selector, an address or index, an atomic operand), or, under
    /// `Config::strict_undefined`, an instruction produced one. Boxed: every result of the
    /// interpreter's inner loop carries this error type, so it is kept small.
    #[error("{0}")]
    UndefinedValue(Box<UndefinedUse>),
    /// The interpreter broke one of its own invariants: a bug in tangle, not in the shader.
    #[error("internal error at {at}: {what}")]
    Internal {
        /// Where.
        at: Position,
        /// What.
        what: String,
    },
    /// No tangle can run and some lanes have not finished.
    #[error("deadlock in workgroup {workgroup:?}:\n{tangles}")]
    Deadlock {
        /// The workgroup.
        workgroup: [u32; 3],
        /// Where every tangle of every subgroup waits.
        tangles: String,
    },
    /// The step budget ran out.
    #[error("step budget of {budget} exhausted in workgroup {workgroup:?}:\n{tangles}")]
    Budget {
        /// The budget.
        budget: u64,
        /// The workgroup.
        workgroup: [u32; 3],
        /// Where every tangle of every subgroup is.
        tangles: String,
    },
}

pub(crate) type R<T> = Result<T, InterpError>;

/// An undefined value used where its value matters: [`InterpError::UndefinedValue`].
#[derive(Clone, Debug, thiserror::Error)]
#[error("undefined value at {at}: lane {lane}'s {what} is undefined ({born})")]
pub struct UndefinedUse {
    /// Where it was used.
    pub at: Position,
    /// The subgroup lane that used it.
    pub lane: u32,
    /// What it was used as.
    pub what: String,
    /// Where it was born and why (the [`crate::value::Poison`]).
    pub born: String,
}

#[cfg(test)]
mod tests {
    /// Every per-lane step returns `Result<_, InterpError>`: a large error type makes each
    /// of those moves large. Keep new variants boxed.
    #[test]
    fn the_error_type_stays_small() {
        let size = std::mem::size_of::<super::InterpError>();
        assert!(size <= 48, "InterpError is {size} bytes");
    }
}
