//! The pass pipeline: a registry of named passes and a flat list of them to run.
//!
//! A pass is either a function pass (`fn(&mut Function, &Context) -> bool`, run on every
//! function with a body) or a module pass (`fn(&mut Module) -> bool`); it returns whether it
//! changed anything. Registering a pass is one line in [`PASSES`]. After each pass, when
//! [`Pipeline::verify_each`] is set (the default in debug builds, hence in every test), the
//! verifier checks the module with each function in the form it has after the pass: a pass
//! that lowers a function sets its [`crate::Form`] and is then held to the lowered rules.

use crate::entity::EntityVec;
use crate::module::{Const, ConstData, Function, Global, GlobalData, Module};
use crate::types::TypeTable;
use crate::verify::{verify, VerifyErrors};

/// What a function pass may read of the module besides its function.
pub struct Context<'a> {
    /// The type table.
    pub types: &'a TypeTable,
    /// The constants.
    pub consts: &'a EntityVec<Const, ConstData>,
    /// The module-level variables.
    pub globals: &'a EntityVec<Global, GlobalData>,
}

/// How a pass runs.
#[derive(Clone, Copy)]
pub enum PassRun {
    /// On every function with a body, one at a time.
    Function(fn(&mut Function, &Context<'_>) -> bool),
    /// On the whole module.
    Module(fn(&mut Module) -> bool),
}

/// A registered pass.
#[derive(Clone, Copy)]
pub struct Pass {
    /// Its name on the command line and in filetest headers (`reverse-post-order`).
    pub name: &'static str,
    /// One line on what it does.
    pub summary: &'static str,
    /// How it runs.
    pub run: PassRun,
}

impl Pass {
    /// A function pass.
    pub const fn function(
        name: &'static str,
        summary: &'static str,
        run: fn(&mut Function, &Context<'_>) -> bool,
    ) -> Self {
        Pass {
            name,
            summary,
            run: PassRun::Function(run),
        }
    }

    /// A module pass.
    pub const fn module(
        name: &'static str,
        summary: &'static str,
        run: fn(&mut Module) -> bool,
    ) -> Self {
        Pass {
            name,
            summary,
            run: PassRun::Module(run),
        }
    }

    /// Runs the pass on `module`; returns whether it changed anything.
    pub fn apply(&self, module: &mut Module) -> bool {
        match self.run {
            PassRun::Module(run) => run(module),
            PassRun::Function(run) => {
                let Module {
                    types,
                    consts,
                    globals,
                    funcs,
                    ..
                } = module;
                let cx = Context {
                    types,
                    consts,
                    globals,
                };
                let mut changed = false;
                for (_, func) in funcs.iter_mut() {
                    if !func.layout.is_empty() {
                        changed |= run(func, &cx);
                    }
                }
                changed
            }
        }
    }
}

/// Every pass, by name: one line per pass.
pub const PASSES: &[Pass] = &[
    Pass::function(
        "dead-code",
        "removes instructions without effects whose results nothing needs",
        |f, _| crate::passes::dead_code::run(f),
    ),
    Pass::function(
        "reverse-post-order",
        "lays blocks out in reverse post-order (dominators first), unreachable blocks last",
        |f, _| crate::passes::reverse_post_order::run(f),
    ),
    Pass::function(
        "renumber",
        "numbers instructions in layout order, so whole-function walks read them in order (the text is unchanged)",
        |f, _| crate::passes::renumber::run(f),
    ),
    Pass::function(
        "split-critical-edges",
        "splits every critical edge (lowered functions; structured ones are left alone)",
        |f, _| crate::passes::split_critical_edges::run(f),
    ),
    Pass::function(
        "remove-unreachable",
        "removes blocks the entry does not reach (keeps merge blocks and continue targets that headers name)",
        |f, _| crate::passes::remove_unreachable::run(f),
    ),
    Pass::function(
        "simplify-cfg",
        "folds constant branches, skips empty forwarding blocks, merges straight-line blocks (lowered functions)",
        |f, cx| crate::passes::simplify_cfg::run(f, cx.consts),
    ),
];

/// The registered pass called `name`.
pub fn lookup(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}

/// Why a pipeline could not be built or run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PipelineError {
    /// A pass name that is not registered.
    #[error("unknown pass `{name}` (known: {})", known_passes())]
    UnknownPass {
        /// The name asked for.
        name: String,
    },
    /// The module was invalid before the first pass.
    #[error("the input does not verify:\n{errors}")]
    InvalidInput {
        /// What the verifier found.
        errors: VerifyErrors,
    },
    /// A pass left the module invalid.
    #[error("the module does not verify after pass `{pass}`:\n{errors}")]
    InvalidAfter {
        /// The pass.
        pass: &'static str,
        /// What the verifier found.
        errors: VerifyErrors,
    },
}

fn known_passes() -> String {
    PASSES.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

/// A list of passes to run in order.
#[derive(Clone)]
pub struct Pipeline {
    /// The passes, in order (a pass may appear more than once).
    pub passes: Vec<&'static Pass>,
    /// Whether to verify the module before the first pass and after each one. On by default
    /// in debug builds (and so in tests); passes expect a valid module either way.
    pub verify_each: bool,
}

impl Pipeline {
    /// The pipeline of the passes named in `list`, separated by commas (`a,b,c`).
    pub fn parse(list: &str) -> Result<Self, PipelineError> {
        Self::parse_with(list, &[])
    }

    /// Like [`Pipeline::parse`], also finding passes in `extra`: registries of crates above
    /// the IR (the token passes of `tangle-tokens`), which this crate cannot name.
    pub fn parse_with(list: &str, extra: &'static [Pass]) -> Result<Self, PipelineError> {
        let passes = list
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|name| {
                lookup(name)
                    .or_else(|| extra.iter().find(|p| p.name == name))
                    .ok_or_else(|| PipelineError::UnknownPass {
                        name: name.to_string(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Pipeline {
            passes,
            verify_each: cfg!(debug_assertions),
        })
    }

    /// Runs every pass in order. `after` sees the module after each pass, with the pass and
    /// whether it changed anything (for `--print-after`). Stops at the first verifier
    /// failure when `verify_each` is set.
    pub fn run(
        &self,
        module: &mut Module,
        mut after: impl FnMut(&Pass, bool, &Module),
    ) -> Result<(), PipelineError> {
        if self.verify_each {
            verify(module).map_err(|errors| PipelineError::InvalidInput { errors })?;
        }
        for pass in &self.passes {
            let changed = pass.apply(module);
            if self.verify_each {
                verify(module).map_err(|errors| PipelineError::InvalidAfter {
                    pass: pass.name,
                    errors,
                })?;
            }
            after(pass, changed, module);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse;

    const TEXT: &str = "spirv 1.3\nmemory_model GLSL450\ncapability Shader\ntype t0 = void\n\
        entry GLCompute \"main\" f0 () [local_size 1 1 1]\n\
        fn f0() -> void {\nb0:\n  br b1\nb1:\n  br b2\nb2:\n  return\n}\n";

    /// A pass that breaks the block order: it swaps the last two blocks.
    fn swap_last_two(func: &mut Function, _: &Context<'_>) -> bool {
        let n = func.layout.len();
        func.layout.swap(n - 2, n - 1);
        true
    }

    /// A pass that lowers every function without changing anything else.
    fn mark_lowered(module: &mut Module) -> bool {
        for (_, f) in module.funcs.iter_mut() {
            f.form = crate::Form::Lowered;
        }
        true
    }

    static BROKEN: Pass = Pass::function("swap-last-two", "breaks the block order", swap_last_two);
    static LOWER: Pass = Pass::module("mark-lowered", "sets every form to lowered", mark_lowered);

    #[test]
    fn the_verifier_runs_after_each_pass_and_names_the_pass_that_broke_the_module() {
        let mut m = parse(TEXT).unwrap();
        let mut seen = Vec::new();
        let p = Pipeline {
            passes: vec![lookup("reverse-post-order").unwrap(), &BROKEN, &LOWER],
            verify_each: true,
        };
        let e = p
            .run(&mut m, |pass, changed, _| seen.push((pass.name, changed)))
            .unwrap_err();
        assert_eq!(
            seen,
            [("reverse-post-order", false)],
            "stops at the broken pass"
        );
        match e {
            PipelineError::InvalidAfter { pass, errors } => {
                assert_eq!(pass, "swap-last-two");
                assert_eq!(
                    errors.to_string(),
                    "f0 b2: [block-order] b2 appears before its dominator b1\n"
                );
            }
            other => panic!("{other}"),
        }
        // Without verification the pipeline runs to the end.
        let mut m = parse(TEXT).unwrap();
        let p = Pipeline {
            verify_each: false,
            ..p
        };
        p.run(&mut m, |_, _, _| {}).unwrap();
    }

    #[test]
    fn each_function_is_verified_in_the_form_it_has_after_the_pass() {
        // A merge annotation is fine while structured and a form error once lowered.
        let text = TEXT.replace(
            "b0:\n  br b1\n",
            "b0:\n  selection_merge b2\n  br_if c0, b1, b2\n",
        );
        let text = text.replace(
            "type t0 = void\n",
            "type t0 = void\ntype t1 = bool\nconst c0 bool = true\n",
        );
        let mut m = parse(&text).unwrap();
        let p = Pipeline {
            passes: vec![&LOWER],
            verify_each: true,
        };
        let e = p.run(&mut m, |_, _, _| {}).unwrap_err();
        assert!(
            e.to_string()
                .contains("[form] a lowered function has no merge annotations"),
            "{e}"
        );
    }

    #[test]
    fn pass_lists_parse_and_names_are_unique() {
        let p = Pipeline::parse("dead-code, reverse-post-order,dead-code").unwrap();
        let names: Vec<&str> = p.passes.iter().map(|p| p.name).collect();
        assert_eq!(names, ["dead-code", "reverse-post-order", "dead-code"]);
        assert!(Pipeline::parse("").unwrap().passes.is_empty());
        assert_eq!(
            Pipeline::parse("dead-code,nope").err(),
            Some(PipelineError::UnknownPass {
                name: "nope".into()
            })
        );
        let mut names: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), PASSES.len());
    }
}
