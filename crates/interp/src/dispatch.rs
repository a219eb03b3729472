//! Dispatch setup: a workgroup's subgroups, their lanes, memory and input built-ins.

use spirv::StorageClass;
use tangle_lanes::builtins::Invocation;

use crate::error::{InterpError, R};
use crate::slot::Slot;
use crate::state::{lanes_below, FuncValues, Lane, Run, Subgroup, TFrame, Tangle};

impl Run<'_, '_> {
    /// Runs one workgroup to completion.
    pub(crate) fn workgroup(&mut self, wg: [u32; 3], keys: &[(u32, u32)]) -> R<()> {
        self.workgroup = wg;
        self.phase = 0;
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
        let mems = &mut self.mems;
        let shared = tangle_lanes::memory::workgroup_regions(m, &it.consts, &mut |r| {
            mems.push(r);
            (mems.len() - 1) as u32
        });
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
                let mut globals = vec![None; m.globals.len()];
                for (g, gd) in m.globals.iter() {
                    let gi = g.as_u32() as usize;
                    globals[gi] = match gd.storage {
                        StorageClass::Workgroup => shared[gi].map(|mem| (mem, 0)),
                        StorageClass::StorageBuffer | StorageClass::Uniform => {
                            match (gd.decorations.set, gd.decorations.binding) {
                                (Some(st), Some(b)) => {
                                    let pointee = m.types.pointer(gd.ty).map(|(_, p)| p);
                                    pointee
                                        .and_then(|p| self.descriptors.global(&m.types, st, b, p))
                                }
                                _ => None,
                            }
                        }
                        StorageClass::PushConstant => Some((keys.len() as u32, 0)),
                        StorageClass::Private | StorageClass::Output => {
                            Some((self.alloc_global(g), 0))
                        }
                        StorageClass::Input => {
                            let id = self.alloc_global(g);
                            if let Some(b) = gd.decorations.builtin {
                                let inv = Invocation {
                                    workgroup: wg,
                                    num_workgroups: it.config.workgroups,
                                    local_size: it.local_size,
                                    local_index: local,
                                    subgroup_size: ssize,
                                    subgroup: s,
                                    num_subgroups: nsub,
                                    lane: l,
                                };
                                tangle_lanes::builtins::store_builtin(
                                    &m.types,
                                    &mut self.mems[id as usize],
                                    gd.ty,
                                    &inv,
                                    b,
                                )
                                .map_err(InterpError::Config)?;
                            }
                            Some((id, 0))
                        }
                        _ => None,
                    };
                }
                lanes.push(Lane {
                    globals: globals
                        .into_iter()
                        .map(|g| match g {
                            Some((mem, off)) => Slot::Ptr { mem, off },
                            None => Slot::Unset,
                        })
                        .collect(),
                    alive: true,
                });
            }
            let mask = lanes_below(count);
            let serial = self.next_serial();
            let mut values = vec![FuncValues::default(); m.funcs.len()];
            let fi = it.entry.as_u32() as usize;
            values[fi] = FuncValues {
                vals: crate::state::unset_slots(it.facts[fi].values * ssize as usize),
                prev: vec![None; ssize as usize],
                taint: Vec::new(),
            };
            let mut sg = Subgroup {
                index: s,
                width: ssize as usize,
                lanes,
                values,
                store: Default::default(),
                instances: Vec::new(),
                free: Vec::new(),
                tangles: Vec::new(),
                spare: Default::default(),
                order_dependent: false,
            };
            let mut t = Tangle {
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
            self.enter(&mut sg, &mut t)?;
            sg.tangles.push(t);
            subgroups.push(sg);
        }
        Ok(subgroups)
    }
}
