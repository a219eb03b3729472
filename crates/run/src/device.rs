//! The device tangle emulates: its limits and how it picks a pipeline's subgroup size.
//!
//! The limits are those of an NVIDIA GPU under Vulkan (workgroup, dispatch, push-constant
//! and shared-memory limits of the Turing-to-Hopper generation). The device reports what
//! NVIDIA reports for subgroups: `subgroupSize`, `minSubgroupSize` and `maxSubgroupSize` all
//! 32 (or the size given with `--subgroup-size`), and Vulkan's rules that depend on them
//! (`FULLY_POPULATED`, `REQUIRED_SIZE MIN|MAX`) are judged against that. Beyond the reported
//! range, tangle runs any power of two from 1 to 128 that a pipeline asks for with
//! `REQUIRED_SIZE n` or `MIN_SIZE`/`MAX_SIZE`, so that reconvergence can be checked at every
//! size. Subgroups are made of consecutive local invocation indices. `docs/run.md` lists the
//! same numbers.

use tangle_amber::{RequiredSize, Subgroup};

/// The emulated device's properties and limits (Vulkan names, in snake case).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// `subgroupSize`: the size used when the pipeline does not ask for one.
    pub subgroup_size: u32,
    /// `minSubgroupSize` (what `REQUIRED_SIZE MIN` asks for).
    pub min_subgroup_size: u32,
    /// `maxSubgroupSize` (what `REQUIRED_SIZE MAX` asks for and `FULLY_POPULATED` with a
    /// varying size is judged against).
    pub max_subgroup_size: u32,
    /// The sizes tangle can run when a pipeline names one (`REQUIRED_SIZE n`, `MIN_SIZE`,
    /// `MAX_SIZE`): powers of two in this range, wider than the reported one.
    pub selectable_subgroup_sizes: (u32, u32),
    /// `maxComputeWorkgroupSubgroups`.
    pub max_compute_workgroup_subgroups: u32,
    /// `maxComputeWorkGroupSize`.
    pub max_compute_workgroup_size: [u32; 3],
    /// `maxComputeWorkGroupInvocations`.
    pub max_compute_workgroup_invocations: u32,
    /// `maxComputeWorkGroupCount`.
    pub max_compute_workgroup_count: [u32; 3],
    /// `maxPushConstantsSize`, in bytes.
    pub max_push_constants_size: u32,
}

impl Default for Device {
    fn default() -> Self {
        Device {
            subgroup_size: 32,
            min_subgroup_size: 32,
            max_subgroup_size: 32,
            selectable_subgroup_sizes: (1, 128),
            max_compute_workgroup_subgroups: 1024,
            max_compute_workgroup_size: [1024, 1024, 64],
            max_compute_workgroup_invocations: 1024,
            max_compute_workgroup_count: [0x7fff_ffff, 65535, 65535],
            max_push_constants_size: 256,
        }
    }
}

/// A pipeline or dispatch the device cannot run (Vulkan would reject it as invalid usage).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DeviceError(pub String);

impl Device {
    /// A device like the default one that reports `size` as its subgroup size
    /// (`subgroupSize`, `minSubgroupSize` and `maxSubgroupSize`).
    pub fn with_default_subgroup_size(size: u32) -> Result<Device, DeviceError> {
        let d = Device {
            subgroup_size: size,
            min_subgroup_size: size,
            max_subgroup_size: size,
            ..Device::default()
        };
        d.check_size(size, "default subgroup size")?;
        Ok(d)
    }

    fn check_size(&self, size: u32, what: &str) -> Result<(), DeviceError> {
        let (lo, hi) = self.selectable_subgroup_sizes;
        if !size.is_power_of_two() || size < lo || size > hi {
            return Err(DeviceError(format!(
                "{what} {size} is not a power of two in {lo}..={hi}"
            )));
        }
        Ok(())
    }

    /// The subgroup size a pipeline runs with, given its `SUBGROUP` block (if any), its
    /// workgroup size and whether its module is SPIR-V 1.6 or later (where Vulkan behaves
    /// as if `VARYING_SIZE` were on), checked as Vulkan checks pipeline creation:
    /// - `REQUIRED_SIZE n|MIN|MAX` gives that size (`MIN`/`MAX` are the reported
    ///   `minSubgroupSize`/`maxSubgroupSize`); it must be a size tangle runs, and the
    ///   workgroup may hold at most `maxComputeWorkgroupSubgroups` subgroups of it;
    /// - `MIN_SIZE`/`MAX_SIZE` narrow the range and the default size is clamped into it;
    /// - `VARYING_SIZE` allows any size; tangle still picks the default (or required) size,
    ///   deterministically;
    /// - `FULLY_POPULATED` needs the workgroup's x size to be a multiple of the required
    ///   size; without one, of `maxSubgroupSize` when the size may vary (VUID-02758) and of
    ///   `subgroupSize` when it may not (VUID-02759) — with `MAX_SIZE`/`MIN_SIZE` given, of
    ///   the size they select.
    pub fn subgroup_size(
        &self,
        control: Option<&Subgroup>,
        local_size: [u32; 3],
        spirv_1_6: bool,
    ) -> Result<u32, DeviceError> {
        let Some(control) = control else {
            return Ok(self.subgroup_size);
        };
        let (size, largest) = match control.required_size {
            Some(required) => {
                let n = match required {
                    RequiredSize::Size(n) => n,
                    RequiredSize::Min => self.min_subgroup_size,
                    RequiredSize::Max => self.max_subgroup_size,
                };
                self.check_size(n, "REQUIRED_SIZE")?;
                let invocations: u64 = local_size.iter().map(|&d| d as u64).product();
                let subgroups = invocations.div_ceil(n as u64);
                if subgroups > self.max_compute_workgroup_subgroups as u64 {
                    return Err(DeviceError(format!(
                        "a workgroup of {invocations} invocations needs {subgroups} subgroups of \
                         {n}, more than maxComputeWorkgroupSubgroups ({})",
                        self.max_compute_workgroup_subgroups
                    )));
                }
                (n, n)
            }
            None if control.min_size.is_some() || control.max_size.is_some() => {
                let (sel_lo, sel_hi) = self.selectable_subgroup_sizes;
                let lo = control.min_size.unwrap_or(sel_lo);
                let hi = control.max_size.unwrap_or(sel_hi);
                self.check_size(lo, "MIN_SIZE")?;
                self.check_size(hi, "MAX_SIZE")?;
                if lo > hi {
                    return Err(DeviceError(format!("MIN_SIZE {lo} is above MAX_SIZE {hi}")));
                }
                let size = self.subgroup_size.clamp(lo, hi);
                (size, size)
            }
            None if control.varying_size || spirv_1_6 => {
                (self.subgroup_size, self.max_subgroup_size)
            }
            None => (self.subgroup_size, self.subgroup_size),
        };
        if control.fully_populated && local_size[0] % largest != 0 {
            let which = if control.required_size.is_some() {
                "the required subgroup size"
            } else if control.min_size.is_some() || control.max_size.is_some() {
                "the subgroup size MIN_SIZE/MAX_SIZE select"
            } else if control.varying_size || spirv_1_6 {
                "maxSubgroupSize (the size may vary)"
            } else {
                "subgroupSize"
            };
            return Err(DeviceError(format!(
                "FULLY_POPULATED needs the workgroup's x size ({}) to be a multiple of {which} \
                 ({largest})",
                local_size[0]
            )));
        }
        Ok(size)
    }

    /// Checks a workgroup size and a dispatch against the device's limits.
    pub fn check_dispatch(
        &self,
        local_size: [u32; 3],
        groups: [u32; 3],
    ) -> Result<(), DeviceError> {
        for axis in 0..3 {
            let name = ["x", "y", "z"][axis];
            if local_size[axis] > self.max_compute_workgroup_size[axis] {
                return Err(DeviceError(format!(
                    "workgroup size {name} = {} exceeds maxComputeWorkGroupSize[{axis}] = {}",
                    local_size[axis], self.max_compute_workgroup_size[axis]
                )));
            }
            if groups[axis] > self.max_compute_workgroup_count[axis] {
                return Err(DeviceError(format!(
                    "{} workgroups in {name} exceed maxComputeWorkGroupCount[{axis}] = {}",
                    groups[axis], self.max_compute_workgroup_count[axis]
                )));
            }
        }
        let invocations: u64 = local_size.iter().map(|&d| d as u64).product();
        if invocations > self.max_compute_workgroup_invocations as u64 {
            return Err(DeviceError(format!(
                "a workgroup of {invocations} invocations exceeds \
                 maxComputeWorkGroupInvocations = {}",
                self.max_compute_workgroup_invocations
            )));
        }
        Ok(())
    }

    /// Checks the size of a push-constant block.
    pub fn check_push_constants(&self, bytes: usize) -> Result<(), DeviceError> {
        if bytes > self.max_push_constants_size as usize {
            return Err(DeviceError(format!(
                "{bytes} bytes of push constants exceed maxPushConstantsSize = {}",
                self.max_push_constants_size
            )));
        }
        Ok(())
    }
}
