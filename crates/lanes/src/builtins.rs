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

/// The workgroup size of entry point `entry`: its `LocalSize` or `LocalSizeId` execution mode,
/// overridden by a constant decorated `WorkgroupSize` (as SPIR-V specifies), with the
/// module's evaluated constants `consts`. Every engine sets up a dispatch from it.
pub fn workgroup_size(
    module: &tangle_ir::Module,
    entry: &tangle_ir::EntryPoint,
    consts: &[Val],
) -> Result<[u32; 3], String> {
    let mut size = None;
    for m in &entry.modes {
        match m {
            tangle_ir::ExecMode::LocalSize(s) => size = Some(*s),
            tangle_ir::ExecMode::LocalSizeId(ids) => {
                size = Some(ids.map(|c| consts[c.as_u32() as usize].bits() as u32))
            }
            _ => {}
        }
    }
    for (c, d) in module.consts.iter() {
        if d.builtin == Some(BuiltIn::WorkgroupSize) {
            if let Val::Comp(v) = &consts[c.as_u32() as usize] {
                size = Some([v[0].bits() as u32, v[1].bits() as u32, v[2].bits() as u32]);
            }
        }
    }
    size.ok_or_else(|| "entry point has no workgroup size".to_string())
}

/// Writes input built-in `b` of invocation `inv` into `region`, the memory of a built-in
/// variable of pointer type `var_ty`; an error names a built-in the engines do not model or
/// one whose variable has an unexpected type.
pub fn store_builtin(
    types: &tangle_ir::TypeTable,
    region: &mut crate::value::Region,
    var_ty: tangle_ir::Type,
    inv: &Invocation,
    b: BuiltIn,
) -> Result<(), String> {
    let v = inv
        .builtin(b)
        .ok_or_else(|| format!("built-in {b:?} unsupported"))?;
    let (_, pointee) = types
        .pointer(var_ty)
        .ok_or_else(|| format!("built-in {b:?} is not a pointer variable"))?;
    crate::value::write(types, region, 0, pointee, &v)
        .ok_or_else(|| format!("built-in {b:?} has an unexpected type"))
}
