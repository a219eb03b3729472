//! Shrinking a failing program: greedy one-step reductions of the program form, kept while
//! the failure persists.
//!
//! Steps: delete a statement; replace a construct by one of its bodies (an if by an arm, a
//! loop or a switch by a body) when the result is still well formed; lower a trip count; empty
//! a helper function; shrink the workgroup. Each candidate is checked for well-formedness
//! ([`well_formed`]: jumps inside loops, loop indices in scope, nothing after a jump) before
//! the predicate runs, so the reproducer is always a program the generator could have made.

use crate::ast::{Cond, Program, Selector, Stmt, Trip};

/// Whether `p` keeps the program form's rules: `break` and `continue` only inside a loop
/// (no `continue` of an infinite loop, no loop `break` directly in a switch case), loop
/// indices and helper arguments used only where they are in scope, calls only of later
/// helpers, and no statement after one that always jumps.
pub fn well_formed(p: &Program) -> bool {
    #[derive(Clone)]
    struct Scope {
        /// Innermost loop: `Some(true)` a for-loop, `Some(false)` an infinite loop.
        innermost: Option<bool>,
        in_switch: bool,
        for_loops: Vec<u32>,
        in_function: bool,
        /// Helpers this function may call: `first..`.
        first_callee: u32,
    }
    fn cond_ok(c: &Cond, s: &Scope) -> bool {
        match c {
            Cond::LoopIndexIsLane { loop_id } => s.for_loops.contains(loop_id),
            Cond::ArgIsLane => s.in_function,
            _ => true,
        }
    }
    fn list(stmts: &[Stmt], s: &Scope, p: &Program) -> bool {
        for (i, st) in stmts.iter().enumerate() {
            if st.always_jumps() && i + 1 != stmts.len() {
                return false;
            }
            let ok = match st {
                Stmt::Ballot { .. } | Stmt::Elect { .. } | Stmt::Collective { .. } => true,
                Stmt::Return => true,
                Stmt::Break => s.innermost.is_some() && !s.in_switch,
                Stmt::Continue => s.innermost == Some(true),
                Stmt::If { cond, then, els } => {
                    cond_ok(cond, s)
                        && list(then, s, p)
                        && els.as_deref().is_none_or(|e| list(e, s, p))
                }
                Stmt::For { loop_id, body, .. } => {
                    let mut inner = s.clone();
                    inner.innermost = Some(true);
                    inner.in_switch = false;
                    inner.for_loops.push(*loop_id);
                    *loop_id < p.loops && list(body, &inner, p)
                }
                Stmt::Infinite { body } => {
                    let mut inner = s.clone();
                    inner.innermost = Some(false);
                    inner.in_switch = false;
                    list(body, &inner, p)
                }
                Stmt::DoWhileElect { body } => {
                    let mut inner = s.clone();
                    inner.innermost = Some(true);
                    inner.in_switch = false;
                    list(body, &inner, p)
                }
                Stmt::Switch {
                    selector,
                    cases,
                    default,
                    fallthrough,
                } => {
                    let mut inner = s.clone();
                    inner.in_switch = true;
                    let sel_ok = match selector {
                        Selector::LoopIndex { loop_id } => s.for_loops.contains(loop_id),
                        _ => true,
                    };
                    sel_ok
                        && fallthrough.len() == cases.len() + usize::from(default.is_some())
                        && cases.iter().all(|c| list(&c.1, &inner, p))
                        && default.as_deref().is_none_or(|d| list(d, &inner, p))
                }
                Stmt::Call { func, arg } => {
                    *func >= s.first_callee
                        && (*func as usize) < p.functions.len()
                        && arg.is_none_or(|l| s.for_loops.contains(&l))
                }
            };
            if !ok {
                return false;
            }
        }
        true
    }
    let top = |in_function, first_callee| Scope {
        innermost: None,
        in_switch: false,
        for_loops: Vec::new(),
        in_function,
        first_callee,
    };
    p.local_size >= 1
        && list(&p.body, &top(false, 0), p)
        && p.functions
            .iter()
            .enumerate()
            .all(|(k, f)| list(f, &top(true, k as u32 + 1), p))
}

/// Every one-step reduction of a statement list.
fn list_steps(stmts: &[Stmt]) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    for i in 0..stmts.len() {
        let splice = |with: &[Stmt]| {
            let mut v = stmts[..i].to_vec();
            v.extend_from_slice(with);
            v.extend_from_slice(&stmts[i + 1..]);
            v
        };
        out.push(splice(&[]));
        for replacement in stmt_steps(&stmts[i]) {
            out.push(splice(&replacement));
        }
    }
    out
}

/// One-step reductions of one statement, each as the statements that replace it.
fn stmt_steps(s: &Stmt) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    match s {
        Stmt::If { cond, then, els } => {
            out.push(then.clone());
            if let Some(e) = els {
                out.push(e.clone());
                out.push(vec![Stmt::If {
                    cond: *cond,
                    then: then.clone(),
                    els: None,
                }]);
            }
            for t in list_steps(then) {
                out.push(vec![Stmt::If {
                    cond: *cond,
                    then: t,
                    els: els.clone(),
                }]);
            }
            for e in els.as_deref().map(list_steps).unwrap_or_default() {
                out.push(vec![Stmt::If {
                    cond: *cond,
                    then: then.clone(),
                    els: Some(e),
                }]);
            }
        }
        Stmt::For {
            loop_id,
            trip,
            body,
        } => {
            out.push(body.clone());
            let lower = match trip {
                Trip::Uniform(n) if *n > 1 => Some(Trip::Uniform(n - 1)),
                Trip::LaneBits(3) => Some(Trip::LaneBits(1)),
                Trip::LaneBits(_) => Some(Trip::Uniform(2)),
                _ => None,
            };
            if let Some(trip) = lower {
                out.push(vec![Stmt::For {
                    loop_id: *loop_id,
                    trip,
                    body: body.clone(),
                }]);
            }
            for b in list_steps(body) {
                out.push(vec![Stmt::For {
                    loop_id: *loop_id,
                    trip: *trip,
                    body: b,
                }]);
            }
        }
        Stmt::Infinite { body } => {
            out.push(body.clone());
            for b in list_steps(body) {
                out.push(vec![Stmt::Infinite { body: b }]);
            }
        }
        Stmt::DoWhileElect { body } => {
            out.push(body.clone());
            for b in list_steps(body) {
                out.push(vec![Stmt::DoWhileElect { body: b }]);
            }
        }
        Stmt::Switch {
            selector,
            cases,
            default,
            fallthrough,
        } => {
            let has_default = usize::from(default.is_some());
            if let Some(d) = default {
                out.push(d.clone());
                out.push(vec![Stmt::Switch {
                    selector: *selector,
                    cases: cases.clone(),
                    default: None,
                    fallthrough: fallthrough[1..].to_vec(),
                }]);
                for d in list_steps(d) {
                    out.push(vec![Stmt::Switch {
                        selector: *selector,
                        cases: cases.clone(),
                        default: Some(d),
                        fallthrough: fallthrough.clone(),
                    }]);
                }
            }
            for (k, case) in cases.iter().enumerate() {
                out.push(case.1.clone());
                let mut fewer = cases.clone();
                fewer.remove(k);
                let mut ft = fallthrough.clone();
                ft.remove(has_default + k);
                out.push(vec![Stmt::Switch {
                    selector: *selector,
                    cases: fewer,
                    default: default.clone(),
                    fallthrough: ft,
                }]);
                for b in list_steps(&case.1) {
                    let mut changed = cases.clone();
                    changed[k].1 = b;
                    out.push(vec![Stmt::Switch {
                        selector: *selector,
                        cases: changed,
                        default: default.clone(),
                        fallthrough: fallthrough.clone(),
                    }]);
                }
            }
            for (k, f) in fallthrough.iter().enumerate() {
                if *f {
                    let mut ft = fallthrough.clone();
                    ft[k] = false;
                    out.push(vec![Stmt::Switch {
                        selector: *selector,
                        cases: cases.clone(),
                        default: default.clone(),
                        fallthrough: ft,
                    }]);
                }
            }
        }
        _ => {}
    }
    out
}

/// Every one-step reduction of a program.
fn program_steps(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    for size in [1, 2, 4, 8, 16, 32, 64] {
        if size < p.local_size {
            out.push(Program {
                local_size: size,
                ..p.clone()
            });
        }
    }
    for body in list_steps(&p.body) {
        out.push(Program { body, ..p.clone() });
    }
    for (k, f) in p.functions.iter().enumerate() {
        for body in list_steps(f) {
            let mut functions = p.functions.clone();
            functions[k] = body;
            out.push(Program {
                functions,
                ..p.clone()
            });
        }
    }
    out
}

/// Shrinks `program`, for which `fails` holds, to a program for which it still holds and no
/// single step keeps it failing. Stops after `max_checks` predicate calls.
pub fn shrink(program: &Program, fails: impl Fn(&Program) -> bool, max_checks: usize) -> Program {
    let mut best = program.clone();
    let mut checks = 0;
    'outer: loop {
        for candidate in program_steps(&best) {
            if !well_formed(&candidate) {
                continue;
            }
            if checks >= max_checks {
                break 'outer;
            }
            checks += 1;
            if fails(&candidate) {
                best = candidate;
                continue 'outer;
            }
        }
        break;
    }
    best
}

/// Shrinks the program of a mismatch found under `variant`: a candidate keeps failing when
/// it still disagrees in the same way (a buffer difference, or an interpreter failure) at
/// the same subgroup size.
pub fn shrink_mismatch(
    program: &Program,
    mismatch: &crate::Mismatch,
    variant: tangle_interp::Variant,
    max_checks: usize,
) -> Program {
    let size = mismatch.subgroup_size();
    let words = matches!(mismatch, crate::Mismatch::Words { .. });
    shrink(
        program,
        |p| match crate::compare(p, &[size], variant) {
            Err(crate::Mismatch::Words { .. }) => words,
            Err(crate::Mismatch::RefError { .. }) => !words,
            Ok(()) => false,
        },
        max_checks,
    )
}

/// [`shrink`] for a predicate that is cheaper on many programs at once (one compiler call
/// for a batch): each round hands `first_failing` the well-formed one-step reductions of
/// the current program, `chunk` at a time in the order [`shrink`] tries them, and
/// continues from the first it names — the same result as [`shrink`]. Stops after
/// `max_calls` calls of `first_failing`.
pub fn shrink_batched(
    program: &Program,
    mut first_failing: impl FnMut(&[Program]) -> Option<usize>,
    chunk: usize,
    max_calls: usize,
) -> Program {
    let mut best = program.clone();
    let mut calls = 0;
    'outer: loop {
        let candidates: Vec<Program> = program_steps(&best)
            .into_iter()
            .filter(well_formed)
            .collect();
        for part in candidates.chunks(chunk.max(1)) {
            if calls >= max_calls {
                break 'outer;
            }
            calls += 1;
            if let Some(k) = first_failing(part).filter(|&k| k < part.len()) {
                best = part[k].clone();
                continue 'outer;
            }
        }
        break;
    }
    best
}
