//! Dispatch setup: a workgroup's subgroups, their lanes, memory and input built-ins.

use spirv::{BuiltIn, StorageClass};

use crate::error::{InterpError, R};
use crate::group;
use crate::state::{lanes_below, Lane, LaneFrame, Run, Subgroup, TFrame, Tangle};
use crate::value::{self, Val};
use crate::Mask;

impl Run<'_, '_> {
    /// Runs one workgroup to completion.
    pub(crate) fn workgroup(&mut self, wg: [u32; 3], keys: &[(u32, u32)]) -> R<()> {
        self.workgroup = wg;
        let subgroups = self.subgroups(wg, keys)?;
        self.schedule(wg, subgroups)
    }

    /// Creates the subgroups of workgroup `wg`, each one tangle at the entry block.
    fn subgroups(&mut self, wg: [u32; 3], keys: &[(u32, u32)]) -> R<Vec<Subgroup>> {
        let it = self.it;
        let m = it.module;
        let [lx, ly, lz] = it.local_size;
        let total = lx * ly * lz;
        let ssize = it.config.subgroup_size;
        let nsub = total.div_ceil(ssize);
        // Shared memory for this workgroup.
        let mut shared: Vec<Option<u32>> = vec![None; m.globals.len()];
        for (g, gd) in m.globals.iter() {
            if gd.storage == StorageClass::Workgroup {
                shared[g.as_u32() as usize] = Some(self.alloc_global(g));
            }
        }
        let func = &m.funcs[it.entry];
        let entry_block = func
            .entry()
            .ok_or_else(|| InterpError::Config("entry has no body".into()))?;
        let mut subgroups = Vec::new();
        for s in 0..nsub {
            let mut lanes = Vec::new();
            let count = ssize.min(total - s * ssize);
            for l in 0..count {
                let local = s * ssize + l;
                let lid = [local % lx, (local / lx) % ly, local / (lx * ly)];
                let mut globals = vec![None; m.globals.len()];
                for (g, gd) in m.globals.iter() {
                    let gi = g.as_u32() as usize;
                    globals[gi] = match gd.storage {
                        StorageClass::Workgroup => shared[gi],
                        StorageClass::StorageBuffer | StorageClass::Uniform => {
                            match (gd.decorations.set, gd.decorations.binding) {
                                (Some(st), Some(b)) => {
                                    keys.iter().position(|k| *k == (st, b)).map(|p| p as u32)
                                }
                                _ => None,
                            }
                        }
                        StorageClass::PushConstant => Some(keys.len() as u32),
                        StorageClass::Private | StorageClass::Output => Some(self.alloc_global(g)),
                        StorageClass::Input => {
                            let id = self.alloc_global(g);
                            if let Some(b) = gd.decorations.builtin {
                                let v = self.builtin(b, wg, lid, local, s, l, count, nsub)?;
                                let (_, pointee) = m.types.pointer(gd.ty).expect("pointer");
                                value::write(&m.types, &mut self.mems[id as usize], 0, pointee, &v)
                                    .ok_or_else(|| {
                                        InterpError::Config(format!(
                                            "built-in {b:?} has an unexpected type"
                                        ))
                                    })?;
                            }
                            Some(id)
                        }
                        _ => None,
                    };
                }
                lanes.push(Lane {
                    frames: vec![LaneFrame {
                        vals: vec![None; func.values.len()],
                        prev: None,
                    }],
                    globals,
                    alive: true,
                });
            }
            let mask = lanes_below(count);
            let serial = self.next_serial();
            let mut sg = Subgroup {
                index: s,
                lanes,
                instances: Vec::new(),
                free: Vec::new(),
                tangles: Vec::new(),
            };
            let t = Tangle {
                serial,
                mask,
                frames: vec![TFrame {
                    func: it.entry,
                    block: entry_block,
                    idx: 0,
                }],
                stack: Vec::new(),
                at_barrier: false,
            };
            let t = self.enter(&mut sg, t)?;
            sg.tangles.push(t);
            subgroups.push(sg);
        }
        Ok(subgroups)
    }

    /// The value of input built-in `b` for one lane.
    #[allow(clippy::too_many_arguments)]
    fn builtin(
        &self,
        b: BuiltIn,
        wg: [u32; 3],
        lid: [u32; 3],
        local: u32,
        sgid: u32,
        lane: u32,
        count: u32,
        nsub: u32,
    ) -> R<Val> {
        let it = self.it;
        let v3 = |a: [u32; 3]| Val::Comp(a.iter().map(|x| Val::Bits(u64::from(*x))).collect());
        let u = |x: u32| Val::Bits(u64::from(x));
        let _ = count;
        let ls = it.local_size;
        let lane_bit: Mask = 1 << lane;
        // Mask built-ins have no bits at or above SubgroupSize.
        let size = it.config.subgroup_size;
        let in_size = lanes_below(size);
        Ok(match b {
            BuiltIn::LocalInvocationId => v3(lid),
            BuiltIn::LocalInvocationIndex => u(local),
            BuiltIn::WorkgroupId => v3(wg),
            BuiltIn::NumWorkgroups => v3(it.config.workgroups),
            BuiltIn::WorkgroupSize => v3(ls),
            BuiltIn::GlobalInvocationId => v3([
                wg[0] * ls[0] + lid[0],
                wg[1] * ls[1] + lid[1],
                wg[2] * ls[2] + lid[2],
            ]),
            BuiltIn::SubgroupSize => u(it.config.subgroup_size),
            BuiltIn::SubgroupLocalInvocationId => u(lane),
            BuiltIn::SubgroupId => u(sgid),
            BuiltIn::NumSubgroups => u(nsub),
            BuiltIn::SubgroupEqMask => group::ballot_val(lane_bit),
            BuiltIn::SubgroupGeMask => group::ballot_val(!(lane_bit - 1) & in_size),
            BuiltIn::SubgroupGtMask => group::ballot_val(!(lane_bit - 1) & !lane_bit & in_size),
            BuiltIn::SubgroupLeMask => group::ballot_val((lane_bit - 1) | lane_bit),
            BuiltIn::SubgroupLtMask => group::ballot_val(lane_bit - 1),
            other => {
                return Err(InterpError::Config(format!(
                    "built-in {other:?} unsupported"
                )))
            }
        })
    }
}
