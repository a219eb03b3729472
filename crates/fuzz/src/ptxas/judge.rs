//! Judging one run of ptxas's code against the reference: what must match whatever the
//! tangles (a difference there is a simulator or emitter bug), and the tangle differences
//! that show where ptxas's code departs from maximal reconvergence, with the program shape
//! around the observation that shows it.

use std::collections::{BTreeSet, HashMap};

use crate::ast::{Collective, Cond, Program, Selector, Stmt, Trip, RECORD_WORDS};

/// What an observation id records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObsKind {
    /// `subgroupBallot(true)`: `__activemask()`.
    Ballot,
    /// `subgroupElect()`.
    Elect,
    /// A collective over the tangle.
    Collective(Collective),
}

impl std::fmt::Display for ObsKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ObsKind::Ballot => "ballot",
            ObsKind::Elect => "elect",
            ObsKind::Collective(Collective::Sum) => "sum",
            ObsKind::Collective(Collective::InclusiveSum) => "inclusive-sum",
            ObsKind::Collective(Collective::BroadcastFirst) => "broadcast-first",
        })
    }
}

/// How one run compares with the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every word equal.
    Agree,
    /// Only tangle-dependent words differ: ptxas's code ran other tangles than maximal
    /// reconvergence defines.
    Tangle(TangleDiff),
    /// Something that holds whatever the tangles does not: a simulator or emitter bug.
    Broken(String),
}

/// Where a run's tangles differ from the reference's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TangleDiff {
    /// The first differing word.
    pub word: usize,
    /// Its record.
    pub record: usize,
    /// Its invocation.
    pub invocation: usize,
    /// The observation id the reference recorded there (or the run, when the reference
    /// has none).
    pub id: u32,
    /// The reference's word and the run's.
    pub reference: u32,
    /// The run's word.
    pub got: u32,
    /// Every observation id with a differing record (the reference's id, else the run's).
    pub ids: BTreeSet<u32>,
}

/// The observations of `program` by id.
pub fn observations(program: &Program) -> HashMap<u32, ObsKind> {
    fn walk(stmts: &[Stmt], out: &mut HashMap<u32, ObsKind>) {
        for s in stmts {
            match s {
                Stmt::Ballot { id } => {
                    out.insert(*id, ObsKind::Ballot);
                }
                Stmt::Elect { id } => {
                    out.insert(*id, ObsKind::Elect);
                }
                Stmt::Collective { id, op } => {
                    out.insert(*id, ObsKind::Collective(*op));
                }
                Stmt::If { then, els, .. } => {
                    walk(then, out);
                    walk(els.as_deref().unwrap_or(&[]), out);
                }
                Stmt::For { body, .. } | Stmt::Infinite { body } | Stmt::DoWhileElect { body } => {
                    walk(body, out)
                }
                Stmt::Switch { cases, default, .. } => {
                    walk(default.as_deref().unwrap_or(&[]), out);
                    for (_, b) in cases {
                        walk(b, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = HashMap::new();
    walk(&program.body, &mut out);
    for f in &program.functions {
        walk(f, &mut out);
    }
    out
}

/// Whether which observations a lane reaches can depend on tangles: only loops left
/// through `subgroupElect()` make a lane's path depend on the lanes it runs with.
pub fn path_depends_on_tangles(program: &Program) -> bool {
    fn any(stmts: &[Stmt]) -> bool {
        stmts.iter().any(|s| match s {
            Stmt::Infinite { .. } | Stmt::DoWhileElect { .. } => true,
            Stmt::If { then, els, .. } => any(then) || any(els.as_deref().unwrap_or(&[])),
            Stmt::For { body, .. } => any(body),
            Stmt::Switch { cases, default, .. } => {
                any(default.as_deref().unwrap_or(&[])) || cases.iter().any(|(_, b)| any(b))
            }
            _ => false,
        })
    }
    any(&program.body) || program.functions.iter().any(|f| any(f))
}

/// Judges `got` (the run's output buffer, at least as long as `reference`) against the
/// reference's buffer for `program` at subgroup size 32.
///
/// Checked whatever the tangles (a failure is [`Verdict::Broken`]): every record is either
/// unwritten (all zero, and so are the invocation's later records) or names an observation
/// of the program with zero padding words; a ballot holds its own lane, only lanes of its
/// warp that exist, and every lane of it recorded the same ballot at the same observation
/// (the lanes of a tangle see one mask); an elect is 0 or 1; a sum, inclusive sum or
/// broadcast lies in the range some set of the warp's lanes holding the invocation gives.
/// When no loop is left through an election, each invocation's sequence of observation ids
/// equals the reference's. Everything else that differs is a tangle difference.
pub fn judge(program: &Program, reference: &[u32], got: &[u32]) -> Verdict {
    let obs = observations(program);
    let n = program.local_size as usize;
    let rw = RECORD_WORDS as usize;
    let per_record = n * rw;
    let records = got.len() / per_record;
    let value = |r: usize, inv: usize| got[(r * n + inv) * rw];
    let id_of =
        |buf: &[u32], r: usize, inv: usize| buf.get((r * n + inv) * rw + 4).copied().unwrap_or(0);
    // The set of (id, value) each invocation recorded, for the tangle-consistency check.
    let mut seen: Vec<BTreeSet<(u32, u32)>> = vec![BTreeSet::new(); n];
    for (inv, set) in seen.iter_mut().enumerate() {
        for r in 0..records {
            let id = id_of(got, r, inv);
            if id != 0 {
                set.insert((id, value(r, inv)));
            }
        }
    }
    for inv in 0..n {
        let warp = inv / 32;
        let lane = inv % 32;
        let live = (0..32)
            .filter(|l| warp * 32 + l < n)
            .fold(0u32, |m, l| m | 1 << l);
        let mut ended = false;
        for r in 0..records {
            let base = (r * n + inv) * rw;
            let rec = &got[base..base + rw];
            let at = |what: String| {
                Verdict::Broken(format!("record {r} of invocation {inv}: {what} ({rec:x?})"))
            };
            if rec[4] == 0 {
                if rec.iter().any(|&w| w != 0) {
                    return at("written without an observation id".into());
                }
                ended = true;
                continue;
            }
            if ended {
                return at("written after an unwritten record".into());
            }
            let Some(kind) = obs.get(&(rec[4] - 1)) else {
                return at(format!(
                    "id {} is no observation of the program",
                    rec[4] - 1
                ));
            };
            if rec[1..4].iter().any(|&w| w != 0) {
                return at("nonzero padding words".into());
            }
            let v = rec[0];
            let invs_of = |m: u32| (0..32).filter(move |l| m >> l & 1 != 0);
            let value_of = |l: usize| (warp * 32 + l + 1) as u64;
            let ok = match kind {
                ObsKind::Ballot => {
                    if v >> lane & 1 == 0 || v & !live != 0 {
                        return at(format!("ballot {v:#x} without its own lane or with lanes outside the warp's {live:#x}"));
                    }
                    if let Some(j) =
                        invs_of(v).find(|&j| !seen[warp * 32 + j].contains(&(rec[4], v)))
                    {
                        return at(format!(
                            "ballot {v:#x}, but invocation {} recorded no such ballot there",
                            warp * 32 + j
                        ));
                    }
                    true
                }
                ObsKind::Elect => v <= 1,
                ObsKind::Collective(Collective::Sum) => {
                    let all: u64 = invs_of(live).map(value_of).sum();
                    (value_of(lane)..=all).contains(&(v as u64))
                }
                ObsKind::Collective(Collective::InclusiveSum) => {
                    let below: u64 = invs_of(live).filter(|&l| l <= lane).map(value_of).sum();
                    (value_of(lane)..=below).contains(&(v as u64))
                }
                ObsKind::Collective(Collective::BroadcastFirst) => {
                    (value_of(0)..=value_of(lane)).contains(&(v as u64))
                }
            };
            if !ok {
                return at(format!("{kind} {v:#x} is impossible for any set of lanes"));
            }
        }
    }
    let strict_paths = !path_depends_on_tangles(program);
    let mut first: Option<TangleDiff> = None;
    let mut ids = BTreeSet::new();
    for word in 0..got.len() {
        let want = reference.get(word).copied().unwrap_or(0);
        if got[word] == want {
            continue;
        }
        let record = word / per_record;
        let invocation = word % per_record / rw;
        let reference_id = id_of(reference, record, invocation);
        let got_id = id_of(got, record, invocation);
        if strict_paths && reference_id != got_id {
            return Verdict::Broken(format!(
                "record {record} of invocation {invocation}: observation {} where the \
                 reference has {} (no loop is left through an election, so the sequence \
                 cannot depend on tangles)",
                got_id as i64 - 1,
                reference_id as i64 - 1
            ));
        }
        let id = if reference_id != 0 {
            reference_id
        } else {
            got_id
        } - 1;
        ids.insert(id);
        first.get_or_insert(TangleDiff {
            word,
            record,
            invocation,
            id,
            reference: want,
            got: got[word],
            ids: BTreeSet::new(),
        });
    }
    match first {
        None => Verdict::Agree,
        Some(mut d) => {
            d.ids = ids;
            Verdict::Tangle(d)
        }
    }
}

/// The shape around observation `id`: its enclosing constructs from the function down
/// (conditions named by what they depend on), the construct just before it in its list
/// (`after ...`), the observation, and the jump that ends its statement list, if any —
/// e.g. `for(lane-trip) > if(lane) > [ballot] ; break`, `after for(lane-trip) ; [ballot]`.
pub fn shape(program: &Program, id: u32) -> String {
    fn obs_id(s: &Stmt) -> Option<u32> {
        match s {
            Stmt::Ballot { id } | Stmt::Elect { id } | Stmt::Collective { id, .. } => Some(*id),
            _ => None,
        }
    }
    fn cond(c: &Cond) -> &'static str {
        match c {
            Cond::LaneMask(_) => "lane",
            Cond::ArgIsLane => "arg-lane",
            Cond::Uniform { .. } => "uniform",
            Cond::LoopIndexIsLane { .. } => "index-lane",
            Cond::InvocationBelowInput { .. } => "invocation",
        }
    }
    fn head(s: &Stmt) -> String {
        match s {
            Stmt::If { cond: c, els, .. } => {
                format!(
                    "if({}){}",
                    cond(c),
                    if els.is_some() { "-else" } else { "" }
                )
            }
            Stmt::For { trip, .. } => match trip {
                Trip::Uniform(_) => "for(uniform-trip)".into(),
                Trip::LaneBits(_) => "for(lane-trip)".into(),
            },
            Stmt::Infinite { .. } => "while(true)".into(),
            Stmt::DoWhileElect { .. } => "do-while(!elect)".into(),
            Stmt::Switch { selector, .. } => match selector {
                Selector::Uniform { .. } => "switch(uniform)".into(),
                Selector::LoopIndex { .. } => "switch(index)".into(),
                Selector::LaneBits => "switch(lane)".into(),
            },
            Stmt::Call { .. } => "call".into(),
            _ => "jump".into(),
        }
    }
    fn find(stmts: &[Stmt], id: u32, path: &mut Vec<String>) -> Option<String> {
        for (k, s) in stmts.iter().enumerate() {
            if obs_id(s) == Some(id) {
                let kind = match s {
                    Stmt::Ballot { .. } => "ballot".to_string(),
                    Stmt::Elect { .. } => "elect".to_string(),
                    Stmt::Collective { op, .. } => ObsKind::Collective(*op).to_string(),
                    _ => unreachable!("an observation"),
                };
                let tail = match stmts.last() {
                    Some(Stmt::Break) => " ; break",
                    Some(Stmt::Continue) => " ; continue",
                    Some(Stmt::Return) => " ; return",
                    _ => "",
                };
                let before = stmts[..k]
                    .iter()
                    .rev()
                    .find(|s| obs_id(s).is_none())
                    .map_or(String::new(), |s| format!("after {} ; ", head(s)));
                let mut p = path.clone();
                p.push(format!("{before}[{kind}]{tail}"));
                return Some(p.join(" > "));
            }
            let inner = |label: String, body: &[Stmt], path: &mut Vec<String>| {
                path.push(label);
                let r = find(body, id, path);
                path.pop();
                r
            };
            let r = match s {
                Stmt::If { cond: c, then, els } => inner(format!("if({})", cond(c)), then, path)
                    .or_else(|| {
                        inner(
                            format!("else({})", cond(c)),
                            els.as_deref().unwrap_or(&[]),
                            path,
                        )
                    }),
                Stmt::For { trip, body, .. } => {
                    let t = match trip {
                        Trip::Uniform(_) => "uniform-trip",
                        Trip::LaneBits(_) => "lane-trip",
                    };
                    inner(format!("for({t})"), body, path)
                }
                Stmt::Infinite { body } => inner("while(true)".into(), body, path),
                Stmt::DoWhileElect { body } => inner("do-while(!elect)".into(), body, path),
                Stmt::Switch {
                    selector,
                    cases,
                    default,
                    ..
                } => {
                    let sel = match selector {
                        Selector::Uniform { .. } => "uniform",
                        Selector::LoopIndex { .. } => "index",
                        Selector::LaneBits => "lane",
                    };
                    inner(
                        format!("switch({sel}) default"),
                        default.as_deref().unwrap_or(&[]),
                        path,
                    )
                    .or_else(|| {
                        cases
                            .iter()
                            .find_map(|(_, b)| inner(format!("switch({sel}) case"), b, path))
                    })
                }
                _ => None,
            };
            if r.is_some() {
                return r;
            }
        }
        None
    }
    let mut path = Vec::new();
    if let Some(s) = find(&program.body, id, &mut path) {
        return s;
    }
    for f in &program.functions {
        let mut path = vec!["helper".to_string()];
        if let Some(s) = find(f, id, &mut path) {
            return s;
        }
    }
    format!("[observation {id} not found]")
}
