//! The verifier: checks a module against the IR's rules and collects every error with its
//! location, instead of stopping at the first.
//!
//! Rules are grouped by [`Rule`] so that callers (and the comparison with spirv-val) can tell
//! which kind of rule a module breaks.

mod block_layout;
mod block_order;
mod builtins;
mod continue_construct;
mod environment;
mod form;
mod module_rules;
mod ssa;
mod structure;
mod switch_cases;
pub mod tokens;
mod typing;

use std::fmt;

use crate::module::{Block, Form, Func, Module, Value};

/// The kind of rule an error breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// A reference to a type, constant, global, function, block or value that does not exist.
    Reference,
    /// SSA form: a use not dominated by its definition, a malformed phi.
    Ssa,
    /// Operand and result types.
    Type,
    /// Explicit layout of interface blocks (offsets, strides, `Block`).
    Layout,
    /// Structured control flow (SPIR-V 2.11): merge annotations, constructs, back edges.
    Structure,
    /// The extra rules of `SPV_KHR_maximal_reconvergence`.
    MaximalReconvergence,
    /// Entry points, execution modes, capabilities and interfaces.
    Module,
    /// What the function's form allows: no merge annotations in a lowered function, no
    /// lowered-only operation in a structured one.
    Form,
    /// SPIR-V's block order: every reachable block after its dominators.
    BlockOrder,
    /// The static rules of convergence-control tokens: where `conv_entry` and `conv_loop`
    /// stand, the closed-path (cycle) rules, nested regions, no mixing of controlled and
    /// uncontrolled convergent operations (`verify/tokens.rs`, `docs/tokens.md`).
    Tokens,
}

impl Rule {
    /// A short lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Reference => "reference",
            Rule::Ssa => "ssa",
            Rule::Type => "type",
            Rule::Layout => "layout",
            Rule::Structure => "structure",
            Rule::MaximalReconvergence => "maximal-reconvergence",
            Rule::Module => "module",
            Rule::Form => "form",
            Rule::BlockOrder => "block-order",
            Rule::Tokens => "tokens",
        }
    }
}

/// Where an error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Location {
    /// The function, if the error is inside one.
    pub func: Option<Func>,
    /// The block, if the error is inside one.
    pub block: Option<Block>,
    /// The instruction or terminator within the block.
    pub point: Option<Point>,
    /// The value the instruction defines, if any.
    pub value: Option<Value>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(func) = self.func {
            parts.push(func.to_string());
        }
        if let Some(b) = self.block {
            parts.push(b.to_string());
        }
        if let Some(v) = self.value {
            parts.push(v.to_string());
        } else {
            match self.point {
                Some(Point::Inst(i)) => parts.push(format!("#{i}")),
                Some(Point::Terminator) => parts.push("terminator".to_string()),
                None => {}
            }
        }
        if parts.is_empty() {
            f.write_str("module")
        } else {
            f.write_str(&parts.join(" "))
        }
    }
}

/// A place within a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    /// The instruction at this position (from 0).
    Inst(usize),
    /// The merge annotation and terminator.
    Terminator,
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// Which kind of rule.
    pub rule: Rule,
    /// Where.
    pub loc: Location,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: [{}] {}", self.loc, self.rule.name(), self.message)
    }
}

/// Every error found in a module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyErrors(pub Vec<VerifyError>);

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.0 {
            writeln!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyErrors {}

impl VerifyErrors {
    /// Whether any error breaks `rule`.
    pub fn breaks(&self, rule: Rule) -> bool {
        self.0.iter().any(|e| e.rule == rule)
    }
}

/// Collects errors while the checks run.
pub(crate) struct Sink {
    errors: Vec<VerifyError>,
}

impl Sink {
    pub(crate) fn report(&mut self, rule: Rule, loc: Location, message: impl Into<String>) {
        self.errors.push(VerifyError {
            rule,
            loc,
            message: message.into(),
        });
    }
}

/// Whether `module` declares `cap`, directly or through a capability that implicitly
/// declares it (SPIR-V's capability dependencies, for the capabilities tangle reads).
pub(crate) fn declares(module: &Module, cap: spirv::Capability) -> bool {
    use spirv::Capability as C;
    let implied_by = |c: C| -> &'static [C] {
        match c {
            C::GroupNonUniform => &[
                C::GroupNonUniformVote,
                C::GroupNonUniformArithmetic,
                C::GroupNonUniformBallot,
                C::GroupNonUniformShuffle,
                C::GroupNonUniformShuffleRelative,
                C::GroupNonUniformClustered,
                C::GroupNonUniformQuad,
                C::GroupNonUniformPartitionedNV,
            ],
            C::Int64 => &[C::Int64Atomics],
            C::StorageBuffer8BitAccess => &[C::UniformAndStorageBuffer8BitAccess],
            C::StorageBuffer16BitAccess => &[C::UniformAndStorageBuffer16BitAccess],
            C::Matrix => &[C::Shader],
            _ => &[],
        }
    };
    module.capabilities.contains(&cap) || implied_by(cap).iter().any(|c| declares(module, *c))
}

/// Checks every rule, each function in its own [`Form`]; `Ok` when none is broken.
pub fn verify(module: &Module) -> Result<(), VerifyErrors> {
    verify_with(module, None)
}

/// Checks every rule with every function taken to be of `form`, whatever form it declares
/// (a filetest's `; test: verify lowered`, or a check that lowered code is not structured).
pub fn verify_as(module: &Module, form: Form) -> Result<(), VerifyErrors> {
    verify_with(module, Some(form))
}

fn verify_with(module: &Module, form_override: Option<Form>) -> Result<(), VerifyErrors> {
    let mut sink = Sink { errors: Vec::new() };
    module_rules::check(module, &mut sink);
    builtins::check(module, &mut sink);
    environment::check(module, &mut sink);
    // Function checks rely on references being sound; skip a function whose references
    // are broken rather than index out of bounds.
    for (f, func) in module.funcs.iter() {
        let before = sink.errors.len();
        ssa::check_references(module, f, func, &mut sink);
        if sink.errors.len() != before {
            continue;
        }
        let form = form_override.unwrap_or(func.form);
        let cfg = crate::cfg::Cfg::new(func);
        let dom = crate::cfg::DomTree::new(func, &cfg);
        ssa::check(module, f, func, &cfg, &dom, &mut sink);
        typing::check(module, f, func, &mut sink);
        form::check(f, func, form, &mut sink);
        block_order::check(f, func, &dom, &mut sink);
        tokens::check(module, f, func, &cfg, &dom, &mut sink);
        match form {
            Form::Structured => structure::check(module, f, func, &cfg, &dom, &mut sink),
            Form::Lowered => {}
        }
    }
    if sink.errors.is_empty() {
        Ok(())
    } else {
        Err(VerifyErrors(sink.errors))
    }
}
