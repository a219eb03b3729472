//! Dispatch setup: a workgroup's subgroups, their lanes, memory and input built-ins. Each
//! subgroup starts as one group of all its lanes at the entry block.

use spirv::StorageClass;
use tangle_ir::Global;
use tangle_lanes::builtins::Invocation;
use tangle_lanes::value::Region;
use tangle_lanes::{lanes_below, memory as lanes_memory};

use crate::error::{MachineError, R};
use crate::state::{Group, Lane, LaneFrame, Pc, Run, Status, Subgroup};

impl Run<'_, '_> {
    /// Adds a memory region; `private` when one lane alone can reach it.
    pub(crate) fn push_region(&mut self, r: Region, private: bool) -> u32 {
        self.mems.push(r);
        self.private.push(private);
        (self.mems.len() - 1) as u32
    }

    /// Allocates the memory of global `g` (its initializer written, or undefined bytes).
    fn alloc_global(&mut self, g: Global, private: bool) -> u32 {
        let m = self.module();
        let gd = &m.globals[g];
        let (_, pointee) = m.types.pointer(gd.ty).expect("global of pointer type");
        let init = gd.init.map(|c| &self.machine.consts[c.as_u32() as usize]);
        let region = lanes_memory::global_region(&m.types, g, pointee, init);
        self.push_region(region, private)
    }

    /// Creates the subgroups of workgroup `wg`, each one group at the entry block.
    pub(crate) fn subgroups(&mut self, wg: [u32; 3], keys: &[(u32, u32)]) -> R<Vec<Subgroup>> {
        let machine = self.machine;
        let m = machine.module;
        let [lx, ly, lz] = machine.local_size;
        let total = lx * ly * lz;
        let size = machine.config.subgroup_size;
        let nsub = total.div_ceil(size);
        let shared = lanes_memory::workgroup_regions(m, &machine.consts, &mut |r| {
            self.push_region(r, false)
        });
        let func = &m.funcs[machine.entry];
        let entry_block = func
            .entry()
            .ok_or_else(|| MachineError::Config("entry has no body".into()))?;
        let mut subgroups = Vec::new();
        for s in 0..nsub {
            let count = size.min(total - s * size);
            let mut lanes = Vec::with_capacity(count as usize);
            for l in 0..count {
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
                            Some((self.alloc_global(g, true), 0))
                        }
                        StorageClass::Input => {
                            let id = self.alloc_global(g, true);
                            if let Some(b) = gd.decorations.builtin {
                                let inv = Invocation {
                                    workgroup: wg,
                                    num_workgroups: machine.config.workgroups,
                                    local_size: machine.local_size,
                                    local_index: s * size + l,
                                    subgroup_size: size,
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
                                .map_err(MachineError::Config)?;
                            }
                            Some((id, 0))
                        }
                        _ => None,
                    };
                }
                lanes.push(Lane {
                    frames: vec![LaneFrame {
                        vals: vec![None; func.values.len()],
                        prev: None,
                        tok: crate::tokens::TokenFrame::default(),
                    }],
                    globals,
                    exited: false,
                    bars: Vec::new(),
                    wait: 0,
                });
            }
            let mut sg = Subgroup {
                index: s,
                lanes,
                groups: Vec::new(),
            };
            let mut g = Group {
                mask: lanes_below(count),
                frames: vec![Pc {
                    func: machine.entry,
                    block: entry_block,
                    idx: 0,
                }],
                status: Status::Ready,
                last_issued: self.steps,
            };
            self.enter(&mut sg, &mut g)?;
            sg.groups.push(g);
            subgroups.push(sg);
        }
        Ok(subgroups)
    }
}
