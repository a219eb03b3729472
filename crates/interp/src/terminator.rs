//! Terminators: branches, the divergence at `br_if` and `switch`, returns and kills.

use tangle_ir::{Block, Merge, Terminator};

use crate::config::{FallthroughPolicy, SwitchPolicy, Variant};
use crate::error::{InterpError, R};
use crate::state::{lanes_of, Kind, Run, Subgroup, Tangle};
use crate::value::OpFail;
use crate::Mask;

impl Run<'_, '_> {
    /// Executes the terminator of `t`'s block, pushing the header's construct instances first.
    pub(crate) fn exec_term(&mut self, sg: &mut Subgroup, mut t: Tangle) -> R<Option<Tangle>> {
        let m = self.it.module;
        let fr = *t.frames.last().expect("frame");
        let func = &m.funcs[fr.func];
        let bd = &func.blocks[fr.block];
        match bd.merge {
            Some(Merge::Loop {
                merge,
                continue_target,
                ..
            }) => {
                let back = t.stack.last().is_some_and(|&i| {
                    sg.inst(i).kind
                        == Kind::Loop {
                            header: fr.block,
                            merge,
                        }
                });
                if !back {
                    Self::push_instance(
                        sg,
                        &mut t,
                        Kind::Loop {
                            header: fr.block,
                            merge,
                        },
                    );
                }
                if self.it.config.variant != Variant::NoContinueReconvergence {
                    Self::push_instance(
                        sg,
                        &mut t,
                        Kind::Iteration {
                            cont: continue_target,
                        },
                    );
                }
            }
            Some(Merge::Selection { merge, .. }) => {
                Self::push_instance(sg, &mut t, Kind::Selection { merge })
            }
            None => {}
        }
        if self.order.is_some() {
            if let Terminator::CondBranch { cond: c, .. } | Terminator::Switch { selector: c, .. } =
                &bd.term
            {
                self.order_branch(sg, &t, *c);
            }
        }
        match &bd.term {
            Terminator::Branch(b) => self.branch(sg, t, *b),
            Terminator::CondBranch {
                cond,
                if_true,
                if_false,
            } => {
                let mut tm = 0;
                let c = self.lookup(sg, crate::decode::Src::of(*cond));
                let vals = &sg.values[fr.func.as_u32() as usize].vals;
                for lane in lanes_of(t.mask) {
                    // A defined scalar straight from the lane arrays; anything else (an
                    // undefined or unset condition) through `defined_scalar`, which
                    // reports it.
                    let bits = match c.get(vals, &sg.lanes, lane).bits() {
                        Some(b) => b,
                        None => {
                            match self.defined_scalar(sg, &t, lane, *cond, "branch condition") {
                                Ok(b) => b,
                                // SPIR-V lets an undefined condition take either side.
                                Err(InterpError::UndefinedValue(_))
                                    if self.it.config.undefined_branch.is_some() =>
                                {
                                    u64::from(self.it.config.undefined_branch == Some(true))
                                }
                                Err(e) => return Err(e),
                            }
                        }
                    };
                    if bits != 0 {
                        tm |= 1 << lane;
                    }
                }
                let fm = t.mask & !tm;
                if fm == 0 {
                    return self.branch(sg, t, *if_true);
                }
                if tm == 0 {
                    return self.branch(sg, t, *if_false);
                }
                let serial = self.next_serial();
                let tt = t.split(&mut sg.spare, tm, serial);
                t.mask = fm;
                t.serial = self.next_serial();
                if let Some(n) = self.branch(sg, tt, *if_true)? {
                    sg.tangles.push(n);
                }
                if let Some(n) = self.branch(sg, t, *if_false)? {
                    sg.tangles.push(n);
                }
                Ok(None)
            }
            Terminator::Switch {
                selector,
                default,
                cases,
            } => {
                let mut groups: Vec<(Block, u64, Mask)> = Vec::new();
                for lane in lanes_of(t.mask) {
                    let s = self.defined_scalar(sg, &t, lane, *selector, "switch selector")?;
                    let target = cases
                        .iter()
                        .find(|(v, _)| *v == s)
                        .map(|(_, b)| *b)
                        .unwrap_or(*default);
                    let key = match self.it.config.switch_policy {
                        SwitchPolicy::ByTarget => 0,
                        SwitchPolicy::BySelector => s,
                    };
                    match groups
                        .iter_mut()
                        .find(|(b, k, _)| *b == target && *k == key)
                    {
                        Some(g) => g.2 |= 1 << lane,
                        None => groups.push((target, key, 1 << lane)),
                    }
                }
                let mut stacks: Vec<Vec<usize>> = vec![t.stack.clone(); groups.len()];
                if self.it.config.fallthrough_policy == FallthroughPolicy::Merge {
                    self.case_instances(sg, &t, &groups, &mut stacks);
                }
                if groups.len() == 1 {
                    t.stack = stacks.pop().expect("one group");
                    return self.branch(sg, t, groups[0].0);
                }
                for ((b, _, mask), stack) in groups.into_iter().zip(stacks) {
                    let mut n = t.clone();
                    n.stack = stack;
                    n.mask = mask;
                    n.serial = self.next_serial();
                    if let Some(n) = self.branch(sg, n, b)? {
                        sg.tangles.push(n);
                    }
                }
                Ok(None)
            }
            Terminator::Return | Terminator::ReturnValue(_) => {
                let k = t
                    .stack
                    .iter()
                    .rposition(|&i| matches!(sg.inst(i).kind, Kind::Call { .. }));
                let Some(k) = k else {
                    self.exit(sg, &t)?;
                    sg.spare.tangle(t);
                    return Ok(None);
                };
                let Kind::Call { dest } = sg.inst(t.stack[k]).kind else {
                    unreachable!()
                };
                // The caller's frame is the one below the callee's.
                let caller = t.frames[t.frames.len() - 2].func.as_u32() as usize;
                if let (Some(d), Terminator::ReturnValue(o)) = (dest, &bd.term) {
                    for lane in lanes_of(t.mask) {
                        let v = *self.arg(sg, &t, lane, crate::decode::Src::of(*o))?;
                        sg.set_slot(caller, d.as_u32(), lane, v);
                    }
                    if self.order.is_some() {
                        self.order_return(sg, &t, caller, d.as_u32(), *o);
                    }
                }
                if self.it.config.variant == Variant::NoCallReconvergence {
                    // Known-wrong: the returning tangle goes on alone.
                    let ids: Vec<usize> = t.stack[k..].to_vec();
                    for &i in &ids {
                        sg.inst_mut(i).participants &= !t.mask;
                    }
                    for &i in ids.iter().rev() {
                        self.check(sg, i)?;
                    }
                    t.stack.truncate(k);
                    t.frames.pop();
                    t.frames.last_mut().expect("caller").idx += 1;
                    return Ok(Some(t));
                }
                self.escape(sg, &t, k, fr.block)?;
                sg.spare.tangle(t);
                Ok(None)
            }
            Terminator::Kill | Terminator::TerminateInvocation => {
                self.exit(sg, &t)?;
                sg.spare.tangle(t);
                Ok(None)
            }
            Terminator::Unreachable => {
                Err(self.fail(&t, OpFail::Undefined("reached unreachable".into())))
            }
        }
    }
}
