//! Memory: pointers, access chains, loads and stores of buffers (LDG/STG through each
//! binding's 64-bit base in constant bank 0), push constants (constant bank 0), built-ins
//! (S2R and the launch dimensions in constant bank 0), function-local variables (local
//! memory at `R1`, the stack pointer ptxas keeps) and atomics (ATOMG).

use spirv::{BuiltIn, StorageClass};
use tangle_ir::{AtomicOp, Global, Operand, Type, TypeData};
use tangle_sass::typed::{r, Addr, Operand as SOperand, Val, PT, RZ};
use tangle_sass::{Arch, Op};

use super::layout::Leaf;
use super::{Frame, Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass, VReg};

/// A memory a pointer points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mem {
    /// A buffer whose 64-bit base is at this constant-bank-0 offset.
    Buffer(u32),
    /// A descriptor array whose element 0's base is at this constant-bank-0 offset (the
    /// others follow 8 bytes apart); an access chain's first index picks the element.
    Buffers(u32),
    /// A buffer whose 64-bit base is in this register pair (an element of a descriptor
    /// array picked by a dynamic index).
    Global(VReg),
    /// The push constants.
    Push,
    /// An input built-in.
    Builtin(BuiltIn),
    /// The local-memory frame.
    Local,
    /// Workgroup (shared) memory.
    Shared,
    /// Explicitly laid out workgroup memory (`Workgroup` variables of `Block` type, which
    /// alias one region): shared memory with the buffers' explicit layout.
    SharedBlock,
}

/// A pointer: a memory, a constant byte offset and a dynamic one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ptr {
    /// The memory.
    pub mem: Mem,
    /// Constant byte offset.
    pub off: u32,
    /// Dynamic byte offset (a 32-bit register).
    pub dyn_off: Option<VReg>,
    /// The pointee type.
    pub ty: Type,
}

impl Isel<'_> {
    /// The pointer a module-level variable is.
    pub(crate) fn global_ptr(&mut self, g: Global) -> Result<Ptr, CompileError> {
        let d = &self.module.globals[g];
        let ty = self
            .module
            .types
            .pointer(d.ty)
            .map(|(_, t)| t)
            .ok_or_else(|| CompileError::Internal(format!("{g} is not a pointer")))?;
        let mem = match d.storage {
            StorageClass::StorageBuffer | StorageClass::Uniform => {
                let (Some(set), Some(binding)) = (d.decorations.set, d.decorations.binding) else {
                    return Err(self.unsupported("a buffer without set and binding"));
                };
                let off = self
                    .opts
                    .abi
                    .buffer_offset(set, binding)
                    .ok_or_else(|| CompileError::Internal(format!("no parameter for {g}")))?;
                self.buffer_mem(off, ty)?
            }
            StorageClass::PushConstant => Mem::Push,
            StorageClass::Input => match d.decorations.builtin {
                Some(b) => Mem::Builtin(b),
                None => return Err(self.unsupported("an input that is not a built-in")),
            },
            StorageClass::Private => return self.private_ptr(g, ty),
            StorageClass::Workgroup => return self.shared_ptr(g, ty),
            other => return Err(self.unsupported(format!("variables in {other:?} storage"))),
        };
        Ok(Ptr {
            mem,
            off: 0,
            dyn_off: None,
            ty,
        })
    }

    /// A `Private` variable: a slot of the local-memory frame, given its initializer (if
    /// any) at the kernel's entry.
    fn private_ptr(&mut self, g: Global, ty: Type) -> Result<Ptr, CompileError> {
        if let Some(p) = self.privates.get(&g) {
            return Ok(*p);
        }
        let size = 4 * self.scalar_kinds(ty)?.len() as u32;
        let p = Ptr {
            mem: Mem::Local,
            off: self.frame_bytes,
            dyn_off: None,
            ty,
        };
        self.frame_bytes += size;
        self.privates.insert(g, p);
        if let Some(init) = self.module.globals[g].init {
            let v = self.opts.consts[init.as_u32() as usize].clone();
            let scs = self.const_val(ty, &v)?;
            let saved = self.cur;
            self.cur = self.entry;
            let r = self.store(&p, &scs);
            self.cur = saved;
            r?;
        }
        Ok(p)
    }

    /// A `Workgroup` variable: a slot of the kernel's static shared memory.
    fn shared_ptr(&mut self, g: Global, ty: Type) -> Result<Ptr, CompileError> {
        if let Some(p) = self.privates.get(&g) {
            return Ok(*p);
        }
        if tangle_lanes::memory::is_block(&self.module.types, ty) {
            // Explicitly laid out blocks alias one another from one region's start.
            return self.workgroup_block(ty);
        }
        let size = 4 * self.scalar_kinds(ty)?.len() as u32;
        let p = Ptr {
            mem: Mem::Shared,
            off: self.shared_bytes,
            dyn_off: None,
            ty,
        };
        self.shared_bytes += size;
        self.privates.insert(g, p);
        if let Some(init) = self.module.globals[g].init {
            // Every invocation stores the same initial value at the entry; a BAR.SYNC after
            // the entry's set-up keeps any warp from running ahead of another's stores.
            let v = self.opts.consts[init.as_u32() as usize].clone();
            let scs = self.const_val(ty, &v)?;
            let saved = self.cur;
            self.cur = self.entry;
            let r = self.store(&p, &scs);
            self.cur = saved;
            r?;
            self.shared_init = true;
        }
        Ok(p)
    }

    /// The pointer operand `o`.
    pub(crate) fn ptr(&mut self, o: Operand, frame: &Frame) -> Result<Ptr, CompileError> {
        match self.val(o, frame)? {
            MVal::Ptr(p) => Ok(p),
            _ => Err(self.unsupported("a value where a pointer was expected")),
        }
    }

    /// A new function-local variable of pointer type `ty` in the local-memory frame.
    pub(crate) fn local_variable(&mut self, ptr_ty: Type) -> Result<Ptr, CompileError> {
        let ty = self
            .module
            .types
            .pointer(ptr_ty)
            .map(|(_, t)| t)
            .ok_or_else(|| CompileError::Internal("variable of non-pointer type".into()))?;
        let size = 4 * self.scalar_kinds(ty)?.len() as u32;
        let off = self.frame_bytes;
        self.frame_bytes += size;
        Ok(Ptr {
            mem: Mem::Local,
            off,
            dyn_off: None,
            ty,
        })
    }

    /// The base register pair of the buffer whose pointer is at `cb`, loaded at the entry.
    fn buffer_base(&mut self, cb: u32) -> VReg {
        if let Some(v) = self.buffer_bases.get(&cb) {
            return *v;
        }
        let v = self.mf.vreg(RegClass::R, 2);
        self.emit_entry(
            MInst::new(Op::Ldc)
                .m(".64")
                .d(v)
                .f(SOperand::new(Val::CBankIdx {
                    bank: 0,
                    base: RZ,
                    offset: cb as i64,
                })),
        );
        self.buffer_bases.insert(cb, v);
        v
    }

    /// The address register of an access to buffer memory `mem` (a [`Mem::Buffer`] or a
    /// [`Mem::Global`]).
    pub(crate) fn global_addr(&mut self, mem: Mem, dyn_off: Option<VReg>) -> VReg {
        let base = match mem {
            Mem::Global(base) => base,
            Mem::Buffer(cb) => self.buffer_base(cb),
            other => unreachable!("{other:?} is not a buffer"),
        };
        match dyn_off {
            None => base,
            Some(d) => {
                let a = self.mf.vreg(RegClass::R, 2);
                self.emit(
                    MInst::new(Op::Imad)
                        .m(".WIDE")
                        .m(".U32")
                        .d(a)
                        .u(d)
                        .imm(1)
                        .u(base),
                );
                a
            }
        }
    }

    /// The local-memory address register of an access with dynamic offset `dyn_off`
    /// (`None`: the stack pointer R1 itself).
    fn local_addr(&mut self, dyn_off: Option<VReg>) -> Option<VReg> {
        dyn_off.map(|d| {
            let a = self.r();
            self.emit(MInst::new(Op::Iadd3).d(a).u(d).f(r(1)).f(RZ));
            a
        })
    }

    /// `OpLoad`.
    pub(crate) fn load(&mut self, p: &Ptr, ty: Type) -> Result<MVal, CompileError> {
        if let Mem::Builtin(b) = p.mem {
            return self.builtin(b, p.off, ty);
        }
        // The pointee's layout (a laid-out matrix, a strided column) places the value's
        // scalars; the value's own type has none.
        let placed = if self.module.types.same_value_type(p.ty, ty) {
            p.ty
        } else {
            ty
        };
        let leaves = self.leaves(p.mem, placed)?;
        let mut out = Vec::new();
        match p.mem {
            Mem::Buffer(_) | Mem::Global(_) => {
                let a = self.global_addr(p.mem, p.dyn_off);
                for l in leaves {
                    let d = self.r();
                    // 8- and 16-bit loads zero-extend, the form narrow integers live in.
                    let i = MInst::new(Op::Ldg).m(".E");
                    let i = match l.size {
                        1 => i.m(".U8"),
                        2 => i.m(".U16"),
                        _ => i,
                    };
                    self.emit(i.d(d).o(MOpnd::Mem {
                        base: Some(a),
                        offset: (p.off + l.off) as i64,
                    }));
                    out.push(Sc::R(d));
                }
            }
            Mem::Push => {
                for l in leaves {
                    let byte = p.off + l.off;
                    out.push(Sc::R(self.push_load(byte, l.size, p.dyn_off)?));
                }
            }
            Mem::Local | Mem::Shared | Mem::SharedBlock => {
                let (a, op) = match p.mem {
                    Mem::Local => (self.local_addr(p.dyn_off), Op::Ldl),
                    _ => (p.dyn_off, Op::Lds),
                };
                for Leaf {
                    off: o,
                    class: k,
                    size,
                } in leaves
                {
                    let d = self.r();
                    let at = self.frame_mem(p.mem, a, p.off + o);
                    // Sub-word scalars (explicit layout only) load zero-extended.
                    self.emit(sized(MInst::new(op), size).d(d).o(at));
                    if k == RegClass::P {
                        let pd = self.p();
                        self.emit(
                            MInst::new(Op::Isetp)
                                .m(".NE")
                                .m(".U32")
                                .m(".AND")
                                .d(pd)
                                .f(PT)
                                .u(d)
                                .f(RZ)
                                .f(PT),
                        );
                        out.push(Sc::P(pd));
                    } else {
                        out.push(Sc::R(d));
                    }
                }
            }
            Mem::Builtin(_) => unreachable!("handled above"),
            Mem::Buffers(_) => return Err(self.unsupported("a load of a whole descriptor array")),
        }
        Ok(MVal::Scalars(out))
    }

    /// A push constant of `size` bytes at byte `byte` of the block (plus the dynamic
    /// offset `dyn_off`), zero-extended: `MOV` from constant bank 0 at a constant offset,
    /// `LDC` at a register one; a narrow one shifted down from its word.
    fn push_load(
        &mut self,
        byte: u32,
        size: u32,
        dyn_off: Option<VReg>,
    ) -> Result<VReg, CompileError> {
        let word = byte & !3;
        let cb =
            self.opts.abi.push_offset(word).ok_or_else(|| {
                self.unsupported(format!("push constant byte {byte} past the block"))
            })?;
        let d = self.r();
        match dyn_off {
            None => {
                self.emit(MInst::new(Op::Mov).d(d).f(SOperand::cbank(0, cb as u16)));
            }
            Some(x) => {
                if size != 4 {
                    return Err(self
                        .unsupported("a dynamic index into push constants narrower than 32 bits"));
                }
                // A constant-bank address in a register: `LDC d, c[0x0][x + cb]` (the
                // machine form writes it as a memory operand; emission makes it a
                // constant-bank one).
                self.emit(MInst::new(Op::Ldc).d(d).o(MOpnd::Mem {
                    base: Some(x),
                    offset: cb as i64,
                }));
                return Ok(d);
            }
        }
        if size == 4 {
            return Ok(d);
        }
        let sh = self.reg(Sc::Imm(8 * (byte & 3)))?;
        let down = self.r();
        self.emit(
            MInst::new(Op::Shf)
                .m(".R")
                .m(".U32")
                .m(".HI")
                .d(down)
                .f(RZ)
                .u(sh)
                .u(d),
        );
        match self.mask(Sc::R(down), 8 * size)? {
            Sc::R(v) => Ok(v),
            _ => unreachable!("a register masked stays a register"),
        }
    }

    /// `OpStore`.
    pub(crate) fn store(&mut self, p: &Ptr, v: &[Sc]) -> Result<(), CompileError> {
        let leaves = self.leaves(p.mem, p.ty)?;
        if leaves.len() != v.len() {
            return Err(CompileError::Internal(format!(
                "{}: store of {} scalars into {} places",
                self.at,
                v.len(),
                leaves.len()
            )));
        }
        match p.mem {
            Mem::Buffer(_) | Mem::Global(_) => {
                let a = self.global_addr(p.mem, p.dyn_off);
                for (l, s) in leaves.into_iter().zip(v) {
                    let x = self.reg(*s)?;
                    let o = l.off;
                    let i = MInst::new(Op::Stg).m(".E");
                    let i = match l.size {
                        1 => i.m(".U8"),
                        2 => i.m(".U16"),
                        _ => i,
                    };
                    self.emit(
                        i.o(MOpnd::Mem {
                            base: Some(a),
                            offset: (p.off + o) as i64,
                        })
                        .u(x),
                    );
                }
            }
            Mem::Local | Mem::Shared | Mem::SharedBlock => {
                let (a, op) = match p.mem {
                    Mem::Local => (self.local_addr(p.dyn_off), Op::Stl),
                    _ => (p.dyn_off, Op::Sts),
                };
                for (
                    Leaf {
                        off: o,
                        class: k,
                        size,
                    },
                    s,
                ) in leaves.into_iter().zip(v)
                {
                    let x = if k == RegClass::P {
                        let x = self.r();
                        let one = self.reg(Sc::Imm(1))?;
                        let c = self.pred_opnd(*s)?;
                        self.emit(MInst::new(Op::Sel).d(x).u(one).f(RZ).o(c));
                        x
                    } else {
                        self.reg(*s)?
                    };
                    let at = self.frame_mem(p.mem, a, p.off + o);
                    self.emit(sized(MInst::new(op), size).o(at).u(x));
                }
            }
            _ => return Err(self.unsupported("a store to read-only memory")),
        }
        Ok(())
    }

    /// Atomic operations on buffers.
    pub(crate) fn atomic(
        &mut self,
        op: AtomicOp,
        args: &[Operand],
        rty: Option<Type>,
        frame: &Frame,
    ) -> Result<Option<MVal>, CompileError> {
        let p = self.ptr(args[0], frame)?;
        if !matches!(
            p.mem,
            Mem::Buffer(_) | Mem::Global(_) | Mem::Shared | Mem::SharedBlock
        ) {
            return Err(
                self.unsupported(format!("{} outside a buffer or shared memory", op.name()))
            );
        }
        let bits = self.module.types.bit_width(p.ty);
        if bits == 64 && matches!(p.mem, Mem::Buffer(_)) {
            return self.atomic64(op, &p, args, frame);
        }
        if bits != 32 {
            let place = if bits == 64 { " in shared memory" } else { "" };
            return Err(self.unsupported(format!("{} on a {bits}-bit value{place}", op.name())));
        }
        match op {
            AtomicOp::Load => return self.load(&p, p.ty).map(Some),
            AtomicOp::Store => {
                let v = self.scalars(args[1], frame)?;
                self.store(&p, &v)?;
                return Ok(None);
            }
            _ => {}
        }
        let d = self.r();
        let (mem, base, scope) = match p.mem {
            Mem::Buffer(_) | Mem::Global(_) => {
                let a = self.global_addr(p.mem, p.dyn_off);
                let mem = MOpnd::Mem {
                    base: Some(a),
                    offset: p.off as i64,
                };
                (mem, MInst::new(Op::Atomg).m(".E"), Some(".STRONG.GPU"))
            }
            _ => (
                self.frame_mem(p.mem, p.dyn_off, p.off),
                MInst::new(Op::Atoms),
                None,
            ),
        };
        let (name, operand): (&'static str, Sc) = match op {
            AtomicOp::IAdd => (".ADD", self.scalar(args[1], frame)?),
            AtomicOp::ISub => {
                let v = self.scalar(args[1], frame)?;
                let v = self.reg(v)?;
                let n = self.r();
                self.emit(MInst::new(Op::Iadd3).d(n).f(RZ).o(MOpnd::neg(v)).f(RZ));
                (".ADD", Sc::R(n))
            }
            AtomicOp::IIncrement => (".ADD", Sc::Imm(1)),
            AtomicOp::IDecrement => (".ADD", Sc::Imm(u32::MAX)),
            AtomicOp::SMin => (".MIN.S32", self.scalar(args[1], frame)?),
            AtomicOp::UMin => (".MIN", self.scalar(args[1], frame)?),
            AtomicOp::SMax => (".MAX.S32", self.scalar(args[1], frame)?),
            AtomicOp::UMax => (".MAX", self.scalar(args[1], frame)?),
            AtomicOp::And => (".AND", self.scalar(args[1], frame)?),
            AtomicOp::Or => (".OR", self.scalar(args[1], frame)?),
            AtomicOp::Xor => (".XOR", self.scalar(args[1], frame)?),
            AtomicOp::Exchange => (".EXCH", self.scalar(args[1], frame)?),
            AtomicOp::CompareExchange => {
                // Operands: pointer, value, comparator.
                let v = self.scalar(args[1], frame)?;
                let c = self.scalar(args[2], frame)?;
                let v = self.reg(v)?;
                let c = self.reg(c)?;
                // The CAS address prints without `.64`; pass the pair as the base.
                self.emit(base.m(".CAS").m(".STRONG.GPU").f(PT).d(d).o(mem).u(c).u(v));
                let _ = rty;
                return Ok(Some(MVal::Scalars(vec![Sc::R(d)])));
            }
            AtomicOp::Load | AtomicOp::Store => unreachable!("handled above"),
        };
        let v = self.reg(operand)?;
        let i = base.m(name);
        let i = match scope {
            Some(sc) => i.m(sc).f(PT),
            None => i,
        };
        self.emit(i.d(d).o(mem).u(v));
        Ok(Some(MVal::Scalars(vec![Sc::R(d)])))
    }

    /// `OpArrayLength`: (the buffer's size - the array's offset) / its stride, the size
    /// coming from the kernel parameter [`crate::abi::Param::BufferBytes`].
    pub(crate) fn array_length(
        &mut self,
        member: u32,
        ptr: Operand,
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        let p = self.ptr(ptr, frame)?;
        let (Mem::Buffer(cb), None) = (p.mem, p.dyn_off) else {
            return Err(self.unsupported("array_length of something other than a buffer"));
        };
        let TypeData::Struct { members, .. } = self.module.types.get(p.ty).clone() else {
            return Err(self.unsupported("array_length of a non-struct"));
        };
        let m = &members[member as usize];
        let TypeData::RuntimeArray {
            stride: Some(stride),
            ..
        } = self.module.types.get(m.ty).clone()
        else {
            return Err(self.unsupported("array_length of a member without stride"));
        };
        let size_cb = self
            .opts
            .abi
            .size_offset(cb)
            .ok_or_else(|| CompileError::Internal("no size parameter for a buffer".into()))?;
        let size = self.r();
        self.emit(
            MInst::new(Op::Mov)
                .d(size)
                .f(SOperand::cbank(0, size_cb as u16)),
        );
        let start = self.reg(Sc::Imm(p.off + m.offset.unwrap_or(0)))?;
        let bytes = self.r();
        self.emit(
            MInst::new(Op::Iadd3)
                .d(bytes)
                .u(size)
                .o(MOpnd::neg(start))
                .f(RZ),
        );
        let len = self.udiv_by(Sc::R(bytes), stride)?;
        Ok(MVal::Scalars(vec![Sc::R(len)]))
    }
}

impl Isel<'_> {
    /// `[a + off]` in local memory (`a` defaulting to the stack pointer R1) or shared memory
    /// (`a` defaulting to none, an absolute address; SM90 puts the kernel's shared memory
    /// after the 0x400 bytes it reserves).
    fn frame_mem(&self, mem: Mem, a: Option<VReg>, off: u32) -> MOpnd {
        let off = match (mem, self.opts.arch) {
            (Mem::Shared | Mem::SharedBlock, Arch::Sm90) => off + SM90_SHARED_BASE,
            _ => off,
        };
        match (a, mem) {
            (Some(a), _) => MOpnd::Mem {
                base: Some(a),
                offset: off as i64,
            },
            (None, Mem::Local) => MOpnd::Fixed(SOperand::mem(Addr::new(r(1), off as i64))),
            (None, _) => MOpnd::Mem {
                base: None,
                offset: off as i64,
            },
        }
    }
}

/// A shared or local load or store of a `size`-byte scalar: `.U8`/`.U16` below a word.
fn sized(i: MInst, size: u32) -> MInst {
    match size {
        1 => i.m(".U8"),
        2 => i.m(".U16"),
        _ => i,
    }
}

/// Where SM90 kernels' shared memory starts (`docs/sim.md`, `docs/cubin.md`).
pub const SM90_SHARED_BASE: u32 = 0x400;

/// The SM's descriptor of global memory, if its global accesses name one (SM90 prints
/// `desc[UR4]`; SM80-SM89 read UR4 without printing it).
pub fn global_descriptor(arch: Arch) -> Option<u16> {
    match arch {
        Arch::Sm75 => None,
        Arch::Sm90 => Some(0x208),
        _ => Some(0x118),
    }
}
