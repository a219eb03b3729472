//! The input built-ins of one compute invocation.

use spirv::BuiltIn;

use crate::group::ballot_val;
use crate::value::Val;
use crate::{lanes_below, Mask};

/// Where one invocation is in the dispatch: everything its input built-ins derive from.
#[derive(Clone, Copy, Debug)]
pub struct Invocation {
    /// `WorkgroupId`.
    pub workgroup: [u32; 3],
    /// `NumWorkgroups`.
    pub num_workgroups: [u32; 3],
    /// `WorkgroupSize` (the local size).
    pub local_size: [u32; 3],
    /// `LocalInvocationIndex`.
    pub local_index: u32,
    /// `SubgroupSize`.
    pub subgroup_size: u32,
    /// `SubgroupId`: the subgroup within the workgroup.
    pub subgroup: u32,
    /// `NumSubgroups`.
    pub num_subgroups: u32,
    /// `SubgroupLocalInvocationId`: the lane within the subgroup.
    pub lane: u32,
}

impl Invocation {
    /// `LocalInvocationId`: x fastest, then y, then z.
    pub fn local_id(&self) -> [u32; 3] {
        let [lx, ly, _] = self.local_size;
        let i = self.local_index;
        [i % lx, (i / lx) % ly, i / (lx * ly)]
    }

    /// The value of input built-in `b`, or `None` for one a compute shader does not have
    /// (or the interpreter does not model).
    pub fn builtin(&self, b: BuiltIn) -> Option<Val> {
        let v3 = |a: [u32; 3]| Val::Comp(a.iter().map(|x| Val::Bits(u64::from(*x))).collect());
        let u = |x: u32| Val::Bits(u64::from(x));
        let ls = self.local_size;
        let lid = self.local_id();
        let wg = self.workgroup;
        let lane_bit: Mask = 1 << self.lane;
        // Mask built-ins have no bits at or above SubgroupSize.
        let in_size = lanes_below(self.subgroup_size);
        Some(match b {
            BuiltIn::LocalInvocationId => v3(lid),
            BuiltIn::LocalInvocationIndex => u(self.local_index),
            BuiltIn::WorkgroupId => v3(wg),
            BuiltIn::NumWorkgroups => v3(self.num_workgroups),
            BuiltIn::WorkgroupSize => v3(ls),
            BuiltIn::GlobalInvocationId => v3([
                wg[0] * ls[0] + lid[0],
                wg[1] * ls[1] + lid[1],
                wg[2] * ls[2] + lid[2],
            ]),
            BuiltIn::SubgroupSize => u(self.subgroup_size),
            BuiltIn::SubgroupLocalInvocationId => u(self.lane),
            BuiltIn::SubgroupId => u(self.subgroup),
            BuiltIn::NumSubgroups => u(self.num_subgroups),
            BuiltIn::SubgroupEqMask => ballot_val(lane_bit),
            BuiltIn::SubgroupGeMask => ballot_val(!(lane_bit - 1) & in_size),
            BuiltIn::SubgroupGtMask => ballot_val(!(lane_bit - 1) & !lane_bit & in_size),
            BuiltIn::SubgroupLeMask => ballot_val((lane_bit - 1) | lane_bit),
            BuiltIn::SubgroupLtMask => ballot_val(lane_bit - 1),
            _ => return None,
        })
    }
}
