//! Where each IR instruction came from in the SPIR-V binary, for messages: the result id,
//! the opcode and the `OpLine` line in force (when the module has line information), so that
//! a run-time error can name `%27 = OpSDiv` (and `line 30`) instead of an IR position.

use rustc_hash::FxHashMap as HashMap;
use std::fmt;

use tangle_ir::{Block, Func, Inst};

/// One SPIR-V instruction an IR instruction or terminator was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    /// Its result id, when it has one.
    pub id: Option<u32>,
    /// Its opcode (`OpSDiv`), or `OpExtInst` with the extended instruction's name.
    pub opcode: OriginOpcode,
    /// The line of the `OpLine` in force, when there is one.
    pub line: Option<u32>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.id {
            Some(id) => write!(f, "%{id} = {}", self.opcode)?,
            None => write!(f, "{}", self.opcode)?,
        }
        if let Some(line) = self.line {
            write!(f, ", source line {line}")?;
        }
        Ok(())
    }
}

/// How an [`Origin`] names its instruction: kept as the grammar's name or the extended
/// instruction's number, and made text only when a message prints it (one is recorded for
/// every instruction read, few are ever printed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OriginOpcode {
    /// A core instruction, by the grammar's name after `Op` (`SDiv` prints `OpSDiv`).
    Core(&'static str),
    /// `OpExtInst` of `GLSL.std.450` instruction number `n`: `OpExtInst FMax`, or
    /// `OpExtInst n` when the set has no such instruction.
    GlslExtInst(u32),
}

impl fmt::Display for OriginOpcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            OriginOpcode::Core(name) => write!(f, "Op{name}"),
            OriginOpcode::GlslExtInst(n) => match spirv::GlslStd450Op::from_u32(n) {
                Some(g) => write!(f, "OpExtInst {g:?}"),
                None => write!(f, "OpExtInst {n}"),
            },
        }
    }
}

/// The origins of a module's instructions and terminators (FxHash maps: one entry is made
/// per instruction read, and SipHash was a visible part of reading).
#[derive(Clone, Debug, Default)]
pub struct Origins {
    /// By function and instruction.
    pub insts: HashMap<(Func, Inst), Origin>,
    /// The terminators, by function and block.
    pub terminators: HashMap<(Func, Block), Origin>,
}

impl Origins {
    /// The SPIR-V instruction at an IR position (`inst` `None`: the block's terminator).
    pub fn at(&self, func: Func, block: Block, inst: Option<Inst>) -> Option<&Origin> {
        match inst {
            Some(i) => self.insts.get(&(func, i)),
            None => self.terminators.get(&(func, block)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Origin, OriginOpcode};

    /// The texts the messages used when origins held them as strings.
    #[test]
    fn origins_print_as_the_messages_name_them() {
        assert_eq!(OriginOpcode::Core("SDiv").to_string(), "OpSDiv");
        assert_eq!(OriginOpcode::GlslExtInst(40).to_string(), "OpExtInst FMax");
        assert_eq!(OriginOpcode::GlslExtInst(999).to_string(), "OpExtInst 999");
        let origin = Origin {
            id: Some(27),
            opcode: OriginOpcode::Core("SDiv"),
            line: Some(30),
        };
        assert_eq!(origin.to_string(), "%27 = OpSDiv, source line 30");
        let bare = Origin {
            id: None,
            opcode: OriginOpcode::GlslExtInst(37),
            line: None,
        };
        assert_eq!(bare.to_string(), "OpExtInst FMin");
    }
}
