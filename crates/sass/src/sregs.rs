//! Special-register names (S2R, S2UR and CS2R operands), per SM, as nvdisasm prints them.

use crate::Arch;

/// Special registers whose names nvdisasm prints alike on every SM (S2R, S2UR and CS2R
/// print the same names), probed with `nvdisasm -b SMxx` on each of the 256 values. Any
/// other value prints as `SR<n>` unless [`PER_SM`] names it.
pub const SREGS: &[(u64, &str)] = &[
    (0x00, "SR_LANEID"),
    (0x01, "SR_CLOCK"),
    (0x02, "SR_VIRTCFG"),
    (0x03, "SR_VIRTID"),
    (0x0f, "SR_ORDERING_TICKET"),
    (0x10, "SR_PRIM_TYPE"),
    (0x11, "SR_INVOCATION_ID"),
    (0x12, "SR_Y_DIRECTION"),
    (0x13, "SR_THREAD_KILL"),
    (0x14, "SM_SHADER_TYPE"),
    (0x15, "SR_DIRECTCBEWRITEADDRESSLOW"),
    (0x16, "SR_DIRECTCBEWRITEADDRESSHIGH"),
    (0x17, "SR_DIRECTCBEWRITEENABLED"),
    (0x19, "SR_MACHINE_ID_1"),
    (0x1a, "SR_MACHINE_ID_2"),
    (0x1b, "SR_MACHINE_ID_3"),
    (0x1c, "SR_AFFINITY"),
    (0x1d, "SR_INVOCATION_INFO"),
    (0x1e, "SR_WSCALEFACTOR_XY"),
    (0x1f, "SR_WSCALEFACTOR_Z"),
    (0x20, "SR_TID"),
    (0x21, "SR_TID.X"),
    (0x22, "SR_TID.Y"),
    (0x23, "SR_TID.Z"),
    (0x25, "SR_CTAID.X"),
    (0x26, "SR_CTAID.Y"),
    (0x27, "SR_CTAID.Z"),
    (0x28, "SR_NTID"),
    (0x29, "SR_CirQueueIncrMinusOne"),
    (0x2a, "SR_NLATC"),
    (0x2c, "SR_SM_SPA_VERSION"),
    (0x2d, "SR_MULTIPASSSHADERINFO"),
    (0x2e, "SR_LWINHI"),
    (0x2f, "SR_SWINHI"),
    (0x30, "SR_SWINLO"),
    (0x31, "SR_SWINSZ"),
    (0x32, "SR_SMEMSZ"),
    (0x33, "SR_SMEMBANKS"),
    (0x34, "SR_LWINLO"),
    (0x35, "SR_LWINSZ"),
    (0x36, "SR_LMEMLOSZ"),
    (0x37, "SR_LMEMHIOFF"),
    (0x38, "SR_EQMASK"),
    (0x39, "SR_LTMASK"),
    (0x3a, "SR_LEMASK"),
    (0x3b, "SR_GTMASK"),
    (0x3c, "SR_GEMASK"),
    (0x3d, "SR_REGALLOC"),
    (0x3e, "SR_BARRIERALLOC"),
    (0x40, "SR_GLOBALERRORSTATUS"),
    (0x42, "SR_WARPERRORSTATUS"),
    (0x43, "SR_VIRTUALSMID"),
    (0x44, "SR_VIRTUALENGINEID"),
    (0x50, "SR_CLOCKLO"),
    (0x51, "SR_CLOCKHI"),
    (0x52, "SR_GLOBALTIMERLO"),
    (0x53, "SR_GLOBALTIMERHI"),
    (0x54, "SR_ESR_PC"),
    (0x55, "SR_ESR_PC_HI"),
    (0x60, "SR_HWTASKID"),
    (0x61, "SR_CIRCULARQUEUEENTRYINDEX"),
    (0x62, "SR_CIRCULARQUEUEENTRYADDRESSLOW"),
    (0x63, "SR_CIRCULARQUEUEENTRYADDRESSHIGH"),
    (0x64, "SR_PM0"),
    (0x65, "SR_PM_HI0"),
    (0x66, "SR_PM1"),
    (0x67, "SR_PM_HI1"),
    (0x68, "SR_PM2"),
    (0x69, "SR_PM_HI2"),
    (0x6a, "SR_PM3"),
    (0x6b, "SR_PM_HI3"),
    (0x6c, "SR_PM4"),
    (0x6d, "SR_PM_HI4"),
    (0x6e, "SR_PM5"),
    (0x6f, "SR_PM_HI5"),
    (0x70, "SR_PM6"),
    (0x71, "SR_PM_HI6"),
    (0x72, "SR_PM7"),
    (0x73, "SR_PM_HI7"),
    (0x74, "SR_SNAP_PM0"),
    (0x75, "SR_SNAP_PM_HI0"),
    (0x76, "SR_SNAP_PM1"),
    (0x77, "SR_SNAP_PM_HI1"),
    (0x78, "SR_SNAP_PM2"),
    (0x79, "SR_SNAP_PM_HI2"),
    (0x7a, "SR_SNAP_PM3"),
    (0x7b, "SR_SNAP_PM_HI3"),
    (0x7c, "SR_SNAP_PM4"),
    (0x7d, "SR_SNAP_PM_HI4"),
    (0x7e, "SR_SNAP_PM5"),
    (0x7f, "SR_SNAP_PM_HI5"),
    (0x80, "SR_SNAP_PM6"),
    (0x81, "SR_SNAP_PM_HI6"),
    (0x82, "SR_SNAP_PM7"),
    (0x83, "SR_SNAP_PM_HI7"),
    (0x84, "SR_VARIABLE_RATE"),
    (0x85, "__HIR0X000"),
    (0xff, "SRZ"),
];

/// Names that only some SMs print (`(value, SM number, name)`); elsewhere `SR<n>`.
pub const PER_SM: &[(u64, u32, &str)] = &[
    (0x18, 75, "SR_MACHINE_ID_0"),
    (0x18, 80, "SR_SW_SCRATCH"),
    (0x18, 86, "SR_SW_SCRATCH"),
    (0x18, 89, "SR_SW_SCRATCH"),
    (0x18, 90, "SR_SW_SCRATCH"),
    (0x41, 90, "SR_CGAERRORSTATUS"),
    (0x86, 90, "SR_WARPGROUP_INFO"),
    (0x87, 90, "SR_WARPGROUPID"),
    (0x88, 90, "SR_CgaCtaId"),
    (0x89, 90, "SR_GpcLocalCgaId"),
    (0x8b, 90, "SR_CTARegPoolSz"),
];
/// The name nvdisasm prints for special register `v` on `arch` (every value 0-255 has
/// one: `SR_TID.X`, or `SR<n>` for the unnamed); `None` above 255.
pub fn sreg_name(v: u64, arch: Arch) -> Option<String> {
    if v > 255 {
        return None;
    }
    if let Some((_, n)) = SREGS.iter().find(|(x, _)| *x == v) {
        return Some(n.to_string());
    }
    if let Some((_, _, n)) = PER_SM
        .iter()
        .find(|(x, sm, _)| *x == v && *sm == arch.number())
    {
        return Some(n.to_string());
    }
    Some(format!("SR{v}"))
}

/// The special register a name stands for on `arch` (the inverse of [`sreg_name`]).
pub fn sreg_number(name: &str, arch: Arch) -> Option<u64> {
    let v = SREGS
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(v, _)| *v)
        .or_else(|| {
            PER_SM
                .iter()
                .find(|(_, sm, n)| *n == name && *sm == arch.number())
                .map(|(v, _, _)| *v)
        })
        .or_else(|| name.strip_prefix("SR")?.parse::<u64>().ok())?;
    (sreg_name(v, arch)? == name).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_are_inverse_on_every_sm() {
        for arch in Arch::ALL {
            for v in 0..256 {
                let n = sreg_name(v, arch).unwrap();
                assert_eq!(sreg_number(&n, arch), Some(v), "{arch} {n}");
            }
        }
        assert_eq!(sreg_name(0x39, Arch::Sm80).unwrap(), "SR_LTMASK");
        assert_eq!(sreg_name(0x88, Arch::Sm86).unwrap(), "SR136");
        assert_eq!(sreg_number("SR136", Arch::Sm90), None);
    }
}
