//! Checks the input before allocation so every later step may rely on it: known values and
//! blocks, legal sizes, agreeing edge lists, no critical edges, every block reachable, φs
//! well formed, constraints satisfiable. Returns the reverse post-order the allocator walks.
//! (Strict SSA — every use dominated by its definition — is checked by liveness: a value
//! live into the entry block is used on a path that skips its definition.)

use crate::error::AllocError;
use crate::function::{BlockId, DefConstraint, Function, Limits, ValueId};

/// Validates `func` against `limits` and returns its blocks in reverse post-order.
pub(crate) fn validate(func: &Function, limits: &Limits) -> Result<Vec<BlockId>, AllocError> {
    if func.blocks.is_empty() {
        return Err(AllocError::Empty);
    }
    check_limits(limits)?;
    for (index, info) in func.values.iter().enumerate() {
        let ok = matches!(info.size, 1 | 2 | 4) && info.size <= info.class.max_size();
        if !ok {
            return Err(AllocError::BadSize {
                value: ValueId(index as u32),
                class: info.class,
                size: info.size,
            });
        }
    }
    check_cfg(func)?;
    let rpo = reverse_post_order(func);
    if rpo.len() != func.blocks.len() {
        let mut seen = vec![false; func.blocks.len()];
        for block in &rpo {
            seen[block.0 as usize] = true;
        }
        let block = seen.iter().position(|s| !s).unwrap_or(0);
        return Err(AllocError::Unreachable {
            block: BlockId(block as u32),
        });
    }
    check_values_and_phis(func)?;
    check_constraints(func, limits)?;
    Ok(rpo)
}

fn check_limits(limits: &Limits) -> Result<(), AllocError> {
    let hardware = Limits::HARDWARE;
    for class in crate::RegClass::ALL {
        if limits.of(class) > hardware.of(class) || limits.of(class) == 0 {
            return Err(AllocError::BadConstraint {
                block: BlockId(0),
                inst: 0,
                what: format!(
                    "limit {} for class {class} is outside 1..={}",
                    limits.of(class),
                    hardware.of(class)
                ),
            });
        }
    }
    Ok(())
}

fn check_cfg(func: &Function) -> Result<(), AllocError> {
    let count = func.blocks.len();
    if !func.blocks[0].preds.is_empty() {
        return Err(AllocError::BadCfg {
            block: BlockId(0),
            what: "the entry block has predecessors".into(),
        });
    }
    for (index, block) in func.blocks.iter().enumerate() {
        let id = BlockId(index as u32);
        for (list, name) in [(&block.preds, "predecessor"), (&block.succs, "successor")] {
            for (position, other) in list.iter().enumerate() {
                if other.0 as usize >= count {
                    return Err(AllocError::BadCfg {
                        block: id,
                        what: format!("{name} {other} does not exist"),
                    });
                }
                if list[..position].contains(other) {
                    return Err(AllocError::BadCfg {
                        block: id,
                        what: format!("{name} {other} is listed twice"),
                    });
                }
            }
        }
        for succ in &block.succs {
            if !func.blocks[succ.0 as usize].preds.contains(&id) {
                return Err(AllocError::BadCfg {
                    block: id,
                    what: format!("successor {succ} does not list it as a predecessor"),
                });
            }
            if block.succs.len() > 1 && func.blocks[succ.0 as usize].preds.len() > 1 {
                return Err(AllocError::CriticalEdge {
                    from: id,
                    to: *succ,
                });
            }
        }
        for pred in &block.preds {
            if !func.blocks[pred.0 as usize].succs.contains(&id) {
                return Err(AllocError::BadCfg {
                    block: id,
                    what: format!("predecessor {pred} does not list it as a successor"),
                });
            }
        }
    }
    Ok(())
}

/// Blocks reachable from the entry, in reverse post-order of a depth-first search.
pub(crate) fn reverse_post_order(func: &Function) -> Vec<BlockId> {
    let count = func.blocks.len();
    let mut visited = vec![false; count];
    let mut post = Vec::with_capacity(count);
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    visited[0] = true;
    while let Some(top) = stack.last_mut() {
        let (block, next) = *top;
        let succs = &func.blocks[block].succs;
        if next < succs.len() {
            top.1 += 1;
            let succ = succs[next].0 as usize;
            if !visited[succ] {
                visited[succ] = true;
                stack.push((succ, 0));
            }
        } else {
            post.push(BlockId(block as u32));
            stack.pop();
        }
    }
    post.reverse();
    post
}

fn check_values_and_phis(func: &Function) -> Result<(), AllocError> {
    let count = func.values.len();
    let mut defined = vec![false; count];
    let known = |block: BlockId, what: &dyn Fn() -> String, value: ValueId| {
        if value.0 as usize >= count {
            Err(AllocError::UnknownValue {
                block,
                what: what(),
                value,
                count,
            })
        } else {
            Ok(())
        }
    };
    let mut define = |block: BlockId, value: ValueId| {
        if std::mem::replace(&mut defined[value.0 as usize], true) {
            Err(AllocError::NotSsa {
                block,
                value,
                what: "defined more than once".into(),
            })
        } else {
            Ok(())
        }
    };
    for (index, block) in func.blocks.iter().enumerate() {
        let id = BlockId(index as u32);
        if !block.phis.is_empty() && block.preds.is_empty() {
            return Err(AllocError::BadPhi {
                block: id,
                phi: 0,
                what: "a block without predecessors has phis".into(),
            });
        }
        for (p, phi) in block.phis.iter().enumerate() {
            known(id, &|| format!("phi {p}"), phi.dst)?;
            define(id, phi.dst)?;
            if phi.srcs.len() != block.preds.len() {
                return Err(AllocError::BadPhi {
                    block: id,
                    phi: p,
                    what: format!(
                        "{} sources for {} predecessors",
                        phi.srcs.len(),
                        block.preds.len()
                    ),
                });
            }
            for src in &phi.srcs {
                known(id, &|| format!("phi {p} source"), *src)?;
                if func.info(*src) != func.info(phi.dst) {
                    return Err(AllocError::BadPhi {
                        block: id,
                        phi: p,
                        what: format!("source {src} differs from {} in class or size", phi.dst),
                    });
                }
            }
        }
        for (i, inst) in block.insts.iter().enumerate() {
            for (u, use_) in inst.uses.iter().enumerate() {
                known(id, &|| format!("inst {i} use {u}"), use_.value)?;
            }
            for (d, def) in inst.defs.iter().enumerate() {
                known(id, &|| format!("inst {i} def {d}"), def.value)?;
                define(id, def.value)?;
            }
        }
    }
    Ok(())
}

fn check_constraints(func: &Function, limits: &Limits) -> Result<(), AllocError> {
    for (index, block) in func.blocks.iter().enumerate() {
        let id = BlockId(index as u32);
        let end_takes_copies = block.succs.len() == 1 && {
            let succ = func.block(block.succs[0]);
            succ.preds.len() > 1 || !succ.phis.is_empty()
        };
        for (i, inst) in block.insts.iter().enumerate() {
            let bad = |what: String| AllocError::BadConstraint {
                block: id,
                inst: i,
                what,
            };
            if inst.branch {
                if i + 1 != block.insts.len() {
                    return Err(bad(
                        "a branch that is not the block's last instruction".into()
                    ));
                }
                if !inst.defs.is_empty() {
                    return Err(bad("a branch may not define values".into()));
                }
                if end_takes_copies && !inst.uses.is_empty() {
                    return Err(bad(
                        "the branch of a block whose end takes copies may not read values".into(),
                    ));
                }
            }
            let mut fixed: Vec<(crate::RegClass, u16, u16, ValueId, bool)> = Vec::new();
            for use_ in &inst.uses {
                if let Some(reg) = use_.fixed {
                    fixed.push((
                        func.info(use_.value).class,
                        reg,
                        func.info(use_.value).size.into(),
                        use_.value,
                        false,
                    ));
                }
            }
            for def in &inst.defs {
                let info = func.info(def.value);
                match def.constraint {
                    DefConstraint::Free => {}
                    DefConstraint::Fixed(reg) => {
                        fixed.push((info.class, reg, info.size.into(), def.value, true))
                    }
                    DefConstraint::TiedToUse(k) => {
                        let Some(use_) = inst.uses.get(k) else {
                            return Err(bad(format!(
                                "{} is tied to use {k}, which does not exist",
                                def.value
                            )));
                        };
                        if func.info(use_.value) != info {
                            return Err(bad(format!(
                                "{} is tied to {}, of another class or size",
                                def.value, use_.value
                            )));
                        }
                        if inst.early_clobber {
                            return Err(bad("a tied def in an early-clobber instruction".into()));
                        }
                        if inst
                            .defs
                            .iter()
                            .filter(|d| d.constraint == DefConstraint::TiedToUse(k))
                            .count()
                            > 1
                        {
                            return Err(bad(format!("two defs tied to use {k}")));
                        }
                    }
                }
            }
            for (n, &(class, reg, size, value, is_def)) in fixed.iter().enumerate() {
                if reg % size != 0 || reg + size > limits.of(class) {
                    return Err(bad(format!(
                        "{value} fixed to {}{reg}: misaligned or past the limit of {}",
                        class.prefix(),
                        limits.of(class)
                    )));
                }
                for &(other_class, other_reg, other_size, other_value, other_def) in &fixed[..n] {
                    let overlap = class == other_class
                        && reg < other_reg + other_size
                        && other_reg < reg + size;
                    if !overlap || is_def != other_def {
                        continue;
                    }
                    if value != other_value || reg != other_reg {
                        return Err(bad(format!(
                            "{value} and {other_value} are fixed to overlapping registers"
                        )));
                    }
                }
            }
            for def in &inst.defs {
                let DefConstraint::TiedToUse(k) = def.constraint else {
                    continue;
                };
                let (Some(reg), info) = (inst.uses[k].fixed, func.info(def.value)) else {
                    continue;
                };
                let size = u16::from(info.size);
                let clash = fixed.iter().any(|&(class, other, other_size, _, is_def)| {
                    is_def && class == info.class && reg < other + other_size && other < reg + size
                });
                if clash {
                    return Err(bad(format!(
                        "{} is tied to a use fixed where a fixed def goes",
                        def.value
                    )));
                }
            }
            for use_ in &inst.uses {
                if use_.fixed.is_none() {
                    continue;
                }
                let conflicting = inst.uses.iter().any(|other| {
                    other.value == use_.value && other.fixed.is_some() && other.fixed != use_.fixed
                });
                if conflicting {
                    return Err(bad(format!(
                        "{} is fixed to two registers at once",
                        use_.value
                    )));
                }
            }
        }
    }
    Ok(())
}
