//! Warp-wide operations: VOTE, VOTEU, SHFL, MATCH and REDUX.
//!
//! They run over *parts*: each part is an instruction and the lanes that execute it. A
//! plain issue is one part (the issuing group's active lanes). The body of
//! `WARPSYNC.COLLECTIVE` on SM90 runs as one operation over the lanes that met there, which
//! may stand at different program points, each with its own copy of the instruction
//! (`../shared/barrier-semantics.md` §(a)): every part reads its own operands, the
//! exchange spans all parts.

use tangle_sass::typed::VoteMode;
use tangle_sass::Op;

use crate::error::SimError;
use crate::kernel::Inst;
use crate::operands::{write, write_pred, Cx};
use crate::warp::{lanes, Warp};

/// Whether `op` is one of the warp-wide operations of this module.
pub fn is_warp_op(op: Op) -> bool {
    matches!(op, Op::Vote | Op::Voteu | Op::Shfl | Op::Match | Op::Redux)
}

/// Executes a warp-wide operation over `parts` (instruction, lanes executing it).
pub fn exec(cx: &mut Cx<'_>, w: &mut Warp, parts: &[(&Inst, u32)]) -> Result<(), SimError> {
    let all: u32 = parts.iter().fold(0, |m, (_, a)| m | a);
    let op = parts[0].0.op();
    if let Some((bad, _)) = parts.iter().find(|(i, _)| i.op() != op) {
        return Err(cx.unsupported(bad, "a collective body mixing different operations"));
    }
    // Phase 1: every lane's inputs from its own instruction.
    let mut v = [0u64; 32];
    let mut q = [0u32; 32];
    let mut c = [0u32; 32];
    let mut who: [Option<usize>; 32] = [None; 32];
    for (n, (i, a)) in parts.iter().enumerate() {
        for l in lanes(*a) {
            who[l] = Some(n);
            match op {
                Op::Vote | Op::Voteu => v[l] = cx.pred(w, i, i.srcs[0], l) as u64,
                Op::Shfl => {
                    v[l] = cx.rd(w, i, i.srcs[0], l)? as u64;
                    q[l] = cx.rd(w, i, i.srcs[1], l)?;
                    c[l] = cx.rd(w, i, i.srcs[2], l)?;
                }
                Op::Match if i.has("U64") => v[l] = cx.rd64(w, i, i.srcs[0], l)?,
                _ => v[l] = cx.rd(w, i, i.srcs[0], l)? as u64,
            }
        }
    }
    // Phase 2: the exchange, written by each lane's own instruction.
    match op {
        Op::Vote | Op::Voteu => {
            let ballot = lanes(all).fold(0u32, |m, l| m | ((v[l] as u32) << l));
            for (i, a) in parts {
                let r = match i.m.modifier::<VoteMode>() {
                    Some(VoteMode::All) => ballot == all,
                    Some(VoteMode::Eq) => ballot == all || ballot == 0,
                    _ => ballot != 0,
                };
                for l in lanes(*a) {
                    write(w, i, i.dsts[0], l, &[ballot]);
                    write_pred(w, i, i.dsts[1], l, r);
                }
            }
        }
        Op::Shfl => {
            for (i, a) in parts {
                let mode = i.m.modifier::<tangle_sass::typed::ShflMode>();
                for l in lanes(*a) {
                    let lane = l as u32;
                    let b = q[l] & 31;
                    let clamp = c[l] & 31;
                    let seg = (c[l] >> 8) & 31;
                    let max_lane = (lane & seg) | (clamp & !seg);
                    let min_lane = lane & seg;
                    let (j, ok) = match mode {
                        Some(tangle_sass::typed::ShflMode::Up) => {
                            let j = lane as i32 - b as i32;
                            (j, j >= max_lane as i32)
                        }
                        Some(tangle_sass::typed::ShflMode::Down) => {
                            let j = (lane + b) as i32;
                            (j, j <= max_lane as i32)
                        }
                        Some(tangle_sass::typed::ShflMode::Bfly) => {
                            let j = (lane ^ b) as i32;
                            (j, j <= max_lane as i32)
                        }
                        _ => {
                            let j = (min_lane | (b & !seg)) as i32;
                            (j, j <= max_lane as i32)
                        }
                    };
                    let src = if ok { j as usize } else { l };
                    // A source lane that does not take part gives the lane's own value.
                    let val = if who[src].is_some() { v[src] } else { v[l] };
                    write(w, i, i.dsts[1], l, &[val as u32]);
                    write_pred(w, i, i.dsts[0], l, ok);
                }
            }
        }
        Op::Match => {
            for (i, a) in parts {
                let all_mode = i.has("ALL");
                for l in lanes(*a) {
                    let same =
                        lanes(all).fold(0u32, |m, j| if v[j] == v[l] { m | 1 << j } else { m });
                    if all_mode {
                        let ok = same == all;
                        write(w, i, i.dsts[1], l, &[if ok { all } else { 0 }]);
                        write_pred(w, i, i.dsts[0], l, ok);
                    } else {
                        write(w, i, i.dsts[0], l, &[same]);
                    }
                }
            }
        }
        Op::Redux => {
            for (i, a) in parts {
                let signed = i.has("S32");
                let vals = lanes(all).map(|j| v[j] as u32);
                let r = if i.has("SUM") {
                    vals.fold(0u32, u32::wrapping_add)
                } else if i.has("OR") {
                    vals.fold(0, |x, y| x | y)
                } else if i.has("XOR") {
                    vals.fold(0, |x, y| x ^ y)
                } else if i.has("MIN") {
                    if signed {
                        vals.map(|x| x as i32).min().unwrap_or(0) as u32
                    } else {
                        vals.min().unwrap_or(0)
                    }
                } else if i.has("MAX") {
                    if signed {
                        vals.map(|x| x as i32).max().unwrap_or(0) as u32
                    } else {
                        vals.max().unwrap_or(0)
                    }
                } else {
                    vals.fold(!0, |x, y| x & y)
                };
                for l in lanes(*a) {
                    write(w, i, i.dsts[0], l, &[r]);
                }
            }
        }
        _ => return Err(cx.unsupported(parts[0].0, "not a warp-wide operation")),
    }
    Ok(())
}
