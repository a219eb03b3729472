//! Operand roles (what an instruction reads and writes), register widths, implicit operands
//! and memory effects, derived once per form from its operation and operand layout.
//!
//! The rules, checked against the forms' layouts (`docs/sass.md`, "Typed instructions"):
//! * a register, uniform register, predicate or uniform predicate in bits 16-23 is the
//!   destination; predicates in 81-83 and 84-86 are results (ISETP's pair, IADD3's and
//!   LEA's carry-outs, LOP3's and PLOP3's outputs, SHFL's in-range flag, ATOMG's status);
//!   everything else is read;
//! * barrier registers: BSSY writes its barrier, BSYNC reads it, BREAK and
//!   `BMOV.32.CLEAR Rd, Bn` read and write it, `BMOV.32 Bn, Ra` writes it;
//! * widths: an operand marked as a pair in the form is two registers, one marked as a
//!   quad four (SM90's `.F32x4`, `.F16x8`, `.BF16x8` atomics); the data register
//!   of a memory operation is as wide as its size modifier (`.64` two, `.128` four); global
//!   addresses and their descriptor or uniform address registers are 64-bit pairs;
//!   `UIMAD.WIDE`'s destination and addend are pairs (nvdisasm accepts odd ones);
//! * implicit operands: `P2R` reads and `R2P` writes the predicates its mask selects (the
//!   `PR` operand); SM80-SM89 global memory operations read the descriptor `UR4:UR5`,
//!   which is a constant of their forms (nvdisasm does not print it);
//! * RPCMOV moves one half of the return program counter (`Rpc.LO`, `Rpc.HI`) to or from a
//!   general register: the half is a location ([`crate::typed::Loc::Rpc`]), written when
//!   it is the first operand, else read (CALL and RET do not name it: not established).

use crate::form::{Form, MemFmt, OpndKind};
use crate::op::Op;

/// How an instruction uses one of its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Written.
    Def,
    /// Read.
    Use,
    /// Read and written (BREAK's barrier).
    DefUse,
}

impl Role {
    /// Whether the operand is written.
    pub fn defines(self) -> bool {
        matches!(self, Role::Def | Role::DefUse)
    }
    /// Whether the operand is read.
    pub fn uses(self) -> bool {
        matches!(self, Role::Use | Role::DefUse)
    }
}

/// The role of every operand of `form`, in operand order.
pub(crate) fn roles_of(form: &Form, op: Op) -> Vec<Role> {
    form.ops
        .iter()
        .map(|o| {
            let at = o.pieces.first().map_or(0, |p| p.0);
            match o.kind {
                OpndKind::Bar => match op {
                    Op::Bssy => Role::Def,
                    Op::Bsync => Role::Use,
                    Op::Break => Role::DefUse,
                    // 0x356 `BMOV.32 Bn, Ra` writes Bn; 0x355 `BMOV.32.CLEAR Rd, Bn` reads
                    // and clears it.
                    _ if form.opcode == 0x356 => Role::Def,
                    _ => Role::DefUse,
                },
                // RPCMOV: the return program counter's half is written when it is the
                // destination (0x352 `RPCMOV.32 Rpc.HI, Ra`), read when it is the source
                // (0x353 `RPCMOV.32 Rd, Rpc.HI`, whose Rd is at 16).
                OpndKind::RpcHalf if std::ptr::eq(o, &form.ops[0]) => Role::Def,
                OpndKind::Reg | OpndKind::UReg if at == 16 => Role::Def,
                // A texture operation's second destination.
                OpndKind::Reg if at == 64 && is_texture(op) => Role::Def,
                OpndKind::Pred | OpndKind::UPred if matches!(at, 16 | 81 | 84) => Role::Def,
                _ => Role::Use,
            }
        })
        .collect()
}

/// Where a memory operation goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Global memory (LDG, STG, RED, ATOMG).
    Global,
    /// Shared memory (LDS, STS, ATOMS).
    Shared,
    /// Thread-local memory (LDL, STL).
    Local,
    /// Constant banks (LDC, ULDC).
    Constant,
    /// A generic address (LD, ST): global, shared or local, decided at run time by the
    /// address window it falls in.
    Generic,
}

/// What a memory operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Reads memory.
    Load,
    /// Writes memory.
    Store,
    /// Reads and writes memory atomically (RED writes only, but as a read-modify-write).
    Atomic,
}

/// The memory effect of `op`, if any. Memory operands inside other operations (constant
/// bank sources `c[0x0][0x160]` of ALU ops) are reads of the constant space too, but have
/// no latency of their own and are not listed here.
pub fn memory_effect(op: Op) -> Option<(Space, Access)> {
    use Access::*;
    use Space::*;
    Some(match op {
        Op::Ldg => (Global, Load),
        // `multimem.ld_reduce`: reads (and reduces) the copies of a multimem address.
        Op::Ldgmc => (Global, Load),
        Op::Stg => (Global, Store),
        Op::Red | Op::Redg | Op::Atomg => (Global, Atomic),
        Op::Lds | Op::Ldsm => (Shared, Load),
        Op::Sts | Op::Stsm => (Shared, Store),
        Op::Atoms => (Shared, Atomic),
        Op::Ldl => (Local, Load),
        Op::Stl => (Local, Store),
        Op::Ldc | Op::Uldc => (Constant, Load),
        Op::Ld => (Generic, Load),
        Op::St => (Generic, Store),
        Op::Atom => (Generic, Atomic),
        // Surfaces are global memory reached through a descriptor (the handle).
        Op::Suld => (Global, Load),
        Op::Sust => (Global, Store),
        Op::Sured => (Global, Atomic),
        // Textures read global memory through a descriptor (the handle).
        Op::Tex | Op::Tld | Op::Tld4 | Op::Txd | Op::Txq => (Global, Load),
        // SM90's transaction barriers update their barrier word in shared memory.
        Op::Syncs => (Shared, Atomic),
        // The asynchronous copy reads global memory and writes shared memory; one
        // (space, access) cannot say both, so it is ordered against every memory
        // operation as a generic read-modify-write.
        Op::Ldgsts => (Generic, Atomic),
        // SM90's bulk and tensor-map copies and reductions move memory between global
        // and shared memory (either way): ordered like LDGSTS. Prefetches change no
        // memory and have no effect here.
        Op::Utmaldg | Op::Utmastg | Op::Utmaredg | Op::Ublkcp | Op::Ublkred => (Generic, Atomic),
        // `st.async` / `red.async` write (another block's) shared memory.
        Op::Stas => (Shared, Store),
        Op::Redas => (Shared, Atomic),
        _ => return None,
    })
}

/// Whether `op` is a texture operation (TEX, TLD, TLD4, TXD, TXQ).
pub fn is_texture(op: Op) -> bool {
    matches!(op, Op::Tex | Op::Tld | Op::Tld4 | Op::Txd | Op::Txq)
}

/// How many consecutive registers operand `i` of a texture operation covers, given its
/// modifiers' texts (`mods`) and its component mask. nvdisasm prints only the first
/// register of each vector; the counts were derived from the PTX that produced each
/// word and from the registers ptxas filled before it (`docs/sass-texture-syncs.md`):
/// * results: one register per component the mask selects, the first two in the
///   destination (16), the rest in the second one (64); with an f16 rounding each pair
///   of components is one register (`.F16.RN` with four results: one in each);
/// * Ra (24): the coordinates, array index first; TXD before SM90 puts the bindless
///   handle first; TXQ's Ra is the handle (before SM90) and, for the dimension query,
///   the level;
/// * Rb (32): before SM90 the handle first (TEX, TLD, TLD4), then the level of detail
///   (`.LB`, `.LL`, `.LC`: one; `.LB.LC`: two), the packed offsets (`.AOFFI`: one; TLD4's
///   `.PTP`: two), the depth reference (`.DC`) and TLD's sample index (`.MS`); TXD's Rb
///   is the gradients (two per coordinate other than the array index) and its offsets;
/// * SM90's handle is a 64-bit uniform register pair (40).
pub(crate) fn texture_width(form: &Form, op: Op, i: usize, mods: &str, mask: u64) -> u8 {
    let o = &form.ops[i];
    let at = o.pieces.first().map_or(0, |p| p.0);
    if o.kind == OpndKind::UReg {
        return 2;
    }
    if o.kind != OpndKind::Reg {
        return 1;
    }
    let has = |m: &str| mods.split('.').any(|c| c == m);
    let dim = form
        .ops
        .iter()
        .find_map(|o| match o.kind {
            OpndKind::Fixed(t) => Some(t),
            _ => None,
        })
        .unwrap_or("");
    let coords = crate::forms::texture_coordinates(dim);
    let bindless_regs = !form.ops.iter().any(|o| o.kind == OpndKind::UReg);
    let handle = u8::from(bindless_regs);
    // Results: the first two components in Rd, the others in the second destination;
    // with an f16 rounding two components share a register.
    let results = mask.count_ones() as u8;
    let (first, second) = (results.min(2), results.saturating_sub(2));
    let (first, second) = if has("F16") {
        (first.div_ceil(2), second.div_ceil(2))
    } else {
        (first, second)
    };
    let flag = |m: &str| u8::from(has(m));
    match at {
        16 => first,
        64 => second,
        24 => match op {
            Op::Txd => handle + coords,
            Op::Txq => handle + u8::from(dim == "TEX_HEADER_DIMENSION"),
            _ => coords,
        },
        32 => match op {
            Op::Tex => {
                let lod = if has("LB") && has("LC") {
                    2
                } else {
                    flag("LB") | flag("LL") | flag("LC")
                };
                handle + lod + flag("AOFFI") + flag("DC")
            }
            Op::Tld => handle + flag("LL") + flag("AOFFI") + flag("MS"),
            Op::Tld4 => handle + flag("AOFFI") + 2 * flag("PTP") + flag("DC"),
            Op::Txd => {
                let spatial = coords - u8::from(dim.starts_with("ARRAY"));
                2 * spatial + flag("AOFFI")
            }
            _ => 0,
        },
        _ => 1,
    }
}

/// Whether `op` may transfer control (branches, calls, returns, exits) or changes which
/// threads run together (convergence barriers, warp synchronisation).
pub fn is_control(op: Op) -> bool {
    matches!(
        op,
        Op::Bra
            | Op::Brx
            | Op::Call
            | Op::Ret
            | Op::Exit
            | Op::Endcollective
            | Op::Bssy
            | Op::Bsync
            | Op::Break
            | Op::Warpsync
            | Op::Yield
            | Op::Bar
    )
}

/// How many consecutive registers operand `i` of `form` covers, given the texts of the
/// instruction's modifiers (`mods`, concatenated): 1, 2 or 4. Address operands count the
/// register of the address (a pair for global addresses).
pub(crate) fn width_of(form: &Form, op: Op, i: usize, mods: &str) -> u8 {
    let o = &form.ops[i];
    if o.align > 1 {
        return o.align;
    }
    if let OpndKind::Mem(fmt) = o.kind {
        if matches!(op, Op::Suld | Op::Sust | Op::Sured) {
            // A surface's coordinates: x; array index and x; x and y; index, x and y;
            // x, y and z.
            return if mods.contains(".3D") || mods.contains(".2D_ARRAY") {
                3
            } else if mods.contains(".2D") || mods.contains(".1D_ARRAY") {
                2
            } else {
                1
            };
        }
        return match fmt {
            MemFmt::Global
            | MemFmt::GlobalPlain
            | MemFmt::Global64
            | MemFmt::GlobalDesc
            | MemFmt::UrAddr
            | MemFmt::GlobalUr => 2,
            MemFmt::Shared | MemFmt::CIndexed => 1,
        };
    }
    if !matches!(o.kind, OpndKind::Reg | OpndKind::UReg) {
        return 1;
    }
    if let Some(n) = bulk_ureg_width(op, i, mods) {
        return n;
    }
    if matches!(op, Op::Suld | Op::Sust | Op::Sured) {
        // Only the data register (16 of loads, 32 of stores and reductions) is sized;
        // the handle is one register. SUST.P stores four components (its mask is all
        // four).
        let data = o.kind == OpndKind::Reg && o.pieces[0].0 == if op == Op::Suld { 16 } else { 32 };
        if !data {
            return 1;
        }
        if op == Op::Sust && mods.starts_with(".P") {
            return 4;
        }
    }
    if matches!(op, Op::Hmma | Op::Dmma | Op::Imma | Op::Qmma) && i < 4 {
        return mma_fragment(op, i, mods);
    }
    if (op == Op::Ldsm && i == 0) || (op == Op::Stsm && i == 1) {
        // One register per 8x8 matrix: `.2` two, `.4` four.
        return if mods.ends_with(".4") {
            4
        } else if mods.ends_with(".2") {
            2
        } else {
            1
        };
    }
    let sized = memory_effect(op).is_some();
    if sized {
        if mods.contains(".128") {
            return 4;
        }
        if mods.contains(".64") {
            return 2;
        }
    }
    if op == Op::Uimad && mods.contains(".WIDE") && (i == 0 || o.pieces[0].0 == 64) {
        return 2;
    }
    1
}

/// How many consecutive uniform registers operand `i` of an SM90 bulk, tensor-map or
/// SYNCS.EXCH operation covers (`None`: not such an operand). nvdisasm prints only the
/// first; the counts come from the PTX that produced each word and the uniform registers
/// ptxas filled before it (`docs/sass-sm90-async.md`):
/// * a global address or tensor map: a 64-bit pair;
/// * UTMALDG's first operand: the shared destination, the mbarrier, then one coordinate
///   per dimension (`.2D`: UR4 address, UR5 mbarrier, UR6-UR7 coordinates); UTMASTG's and
///   UTMAREDG's: the shared source, then the coordinates; UTMAPF's: the coordinates;
/// * UBLKCP/UBLKRED's destination: a shared one is the address and the mbarrier (`.S.G`:
///   UR4 address, UR5 mbarrier), a global one a pair; a shared source one register;
/// * the byte count, one register; SYNCS.EXCH.64's result and value, pairs.
pub(crate) fn bulk_ureg_width(op: Op, i: usize, mods: &str) -> Option<u8> {
    let dims = || {
        (1..=5u8)
            .find(|d| mods.contains(&format!(".{d}D")))
            .unwrap_or(1)
    };
    // Direction `.dst.src` of the bulk copies: the second component is the source.
    let src_shared = mods.get(2..4) == Some(".S");
    Some(match (op, i) {
        (Op::Utmaldg, 0) => 2 + dims(),
        (Op::Utmastg | Op::Utmaredg, 0) => 1 + dims(),
        (Op::Utmapf, 0) => dims(),
        (Op::Utmaldg | Op::Utmastg | Op::Utmaredg | Op::Utmapf, 1) => 2,
        (Op::Utmacctl, 0) => 2,
        (Op::Ublkcp | Op::Ublkred, 0) => 2,
        (Op::Ublkcp | Op::Ublkred, 1) => {
            if src_shared {
                1
            } else {
                2
            }
        }
        (Op::Ublkcp | Op::Ublkred, 2) | (Op::Ublkpf, 1) => 1,
        (Op::Ublkpf, 0) => 2,
        (Op::Syncs, 0 | 2) if mods.starts_with(".EXCH") => 2,
        (Op::Syncs, 1) if mods.starts_with(".EXCH") => 1,
        _ => return None,
    })
}

/// The registers of operand `i` (D, A, B, C) of a warp-level MMA: a fragment of the
/// matrix spread over 32 lanes. HMMA m16n8k16 f16: A 8 halves (4 registers), B 4 halves
/// (2), C and D 4 floats (4) or 4 halves (2); m16n8k8 half those of A and B; TF32 inputs
/// take one register per element (k4: A 2, B 1; k8: A 4, B 2). DMMA m8n8k4 f64: A and B
/// one double (2), C and D two (4). IMMA on bytes: m8n8k16 A 1, B 1, C/D 2; m16n8k16 A 2,
/// B 1, C/D 4; m16n8k32 A 4, B 2, C/D 4. QMMA (fp8) as IMMA on bytes, C and D four
/// registers for `.F32` and two for `.F16`. Sparse HMMA (`.SP`): A is half the dense
/// A (m16n8k32 f16: 4, m16n8k16: 2; tf32 m16n8k16: 4, m16n8k8: 2), B as dense B (k32 f16
/// 4, k16 2; tf32 k16 4, k8 2); its metadata register and selector are one register and
/// an immediate.
fn mma_fragment(op: Op, i: usize, mods: &str) -> u8 {
    if op == Op::Qmma {
        // fp8: A holds M*K bytes (m16n8k32 four registers, m16n8k16 two), B N*K (two,
        // one), C and D four floats or two f16 pairs.
        let k32 = mods.starts_with(".16832");
        return match i {
            1 => 2 + 2 * u8::from(k32),
            2 => 1 + u8::from(k32),
            _ if mods.contains(".F32") => 4,
            _ => 2,
        };
    }
    if op == Op::Imma {
        // 8-bit integers: A holds M*K bytes, B N*K, C and D M*N int32, over 32 lanes.
        let (m, n, k): (u16, u16, u16) = if mods.starts_with(".8816") {
            (8, 8, 16)
        } else if mods.starts_with(".16816") {
            (16, 8, 16)
        } else {
            (16, 8, 32)
        };
        let regs = match i {
            1 => m * k / 128,
            2 => n * k / 128,
            _ => m * n / 32,
        };
        return regs as u8;
    }
    if op == Op::Dmma {
        return if i == 1 || i == 2 { 2 } else { 4 };
    }
    if mods.starts_with(".SP") {
        // Sparse HMMA (m16n8kK): A holds the 16 x K/2 kept elements, B K x 8, C and D as
        // dense; an element is 16 bits (f16, bf16) or 32 (tf32) over 32 lanes of 32 bits.
        let k: u16 = if mods.contains(".16832") {
            32
        } else if mods.contains(".16816") {
            16
        } else {
            8
        };
        let bits: u16 = if mods.contains(".TF32") { 32 } else { 16 };
        return match i {
            1 => (16 * k / 2 * bits / 1024).max(1) as u8,
            2 => (k * 8 * bits / 1024).max(1) as u8,
            _ if mods.contains(".F32") => 4,
            _ => 2,
        };
    }
    let k16 = mods.contains(".16816");
    let tf32_k8 = mods.contains(".TF32") && mods.contains(".1688");
    match i {
        1 if k16 || tf32_k8 => 4,
        1 => 2,
        2 if k16 || tf32_k8 => 2,
        2 => 1,
        _ if mods.contains(".F32") => 4,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_form_has_one_role_per_operand() {
        for f in crate::forms::all() {
            assert_eq!(f.roles.len(), f.ops.len(), "{}", f.name);
        }
    }
}
