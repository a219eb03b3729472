//! Pointers: where a pointer value comes from, whose memory is private to a lane, and which
//! globals the module may write (a load at a uniform address of memory nobody writes during
//! the dispatch reads one value for every lane).

use tangle_ir::hash::FxHashSet;

use spirv::StorageClass;
use tangle_ir::{
    AtomicOp, Function, Global, MemberFlag, Module, Op, Operand, PlainOp, TypeData, ValueDef,
};

/// The variable a pointer operand points into, as far as access chains and copies show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Root {
    /// A module-level variable.
    Global(Global),
    /// Something else: a function-local variable, a parameter, a phi or select of pointers.
    Unknown,
}

/// Follows access chains and copies from `op` back to the global it indexes, if any.
pub(crate) fn root(func: &Function, op: Operand) -> Root {
    let mut op = op;
    loop {
        match op {
            Operand::Global(g) => return Root::Global(g),
            Operand::Const(_) => return Root::Unknown,
            Operand::Value(v) => {
                let Some(data) = func.values.get(v) else {
                    return Root::Unknown;
                };
                let ValueDef::Inst(i) = data.def else {
                    return Root::Unknown;
                };
                let inst = &func.insts[i];
                match inst.op {
                    Op::Plain(PlainOp::AccessChain) | Op::Plain(PlainOp::CopyObject) => {
                        match inst.args.first() {
                            Some(base) => op = *base,
                            None => return Root::Unknown,
                        }
                    }
                    _ => return Root::Unknown,
                }
            }
        }
    }
}

/// The storage class of pointer operand `op`, if its type is a pointer.
pub(crate) fn storage_class(module: &Module, func: &Function, op: Operand) -> Option<StorageClass> {
    match module.types.get(module.operand_type(func, op)) {
        TypeData::Pointer { storage, .. } => Some(*storage),
        _ => None,
    }
}

/// Whether each lane has its own copy of memory of storage class `sc`, so that one pointer
/// value names different memory, and one address holds different data, in different lanes.
pub(crate) fn is_per_lane(sc: StorageClass) -> bool {
    matches!(
        sc,
        StorageClass::Function | StorageClass::Private | StorageClass::Input | StorageClass::Output
    )
}

/// What the module writes: the globals that some store or atomic may modify, and the storage
/// classes written through a pointer whose global is not known.
#[derive(Clone, Debug, Default)]
pub(crate) struct Writes {
    globals: FxHashSet<Global>,
    unknown_classes: FxHashSet<StorageClass>,
}

impl Writes {
    /// Collects every store and atomic read-modify-write (and atomic store) of `module`.
    pub(crate) fn of(module: &Module) -> Self {
        let mut w = Writes::default();
        for (_, func) in module.funcs.iter() {
            for (_, inst) in func.insts.iter() {
                let writes = match &inst.op {
                    Op::Store(_) => true,
                    Op::Atomic { op, .. } => *op != AtomicOp::Load,
                    _ => false,
                };
                let Some(&ptr) = inst.args.first().filter(|_| writes) else {
                    continue;
                };
                match root(func, ptr) {
                    Root::Global(g) => {
                        w.globals.insert(g);
                    }
                    Root::Unknown => {
                        if let Some(sc) = storage_class(module, func, ptr) {
                            w.unknown_classes.insert(sc);
                        }
                    }
                }
            }
        }
        w
    }

    /// Whether global `g` keeps its contents for the whole dispatch: it is declared
    /// non-writable, or nothing in the module writes it (neither by name nor through a
    /// pointer of unknown origin of its storage class).
    pub(crate) fn is_read_only(&self, module: &Module, g: Global) -> bool {
        let Some(data) = module.globals.get(g) else {
            return false;
        };
        if data.decorations.flags.contains(&MemberFlag::NonWritable) {
            return true;
        }
        !self.globals.contains(&g) && !self.unknown_classes.contains(&data.storage)
    }
}
