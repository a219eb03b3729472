//! Where each IR instruction came from in the SPIR-V binary, for messages: the result id,
//! the opcode and the `OpLine` line in force (when the module has line information), so that
//! a run-time error can name `%27 = OpSDiv` (and `line 30`) instead of an IR position.

use rustc_hash::FxHashMap as HashMap;
use std::fmt;

use tangle_ir::{Block, Func, Inst};

/// One SPIR-V instruction an IR instruction or terminator was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// Its result id, when it has one.
    pub id: Option<u32>,
    /// Its opcode (`OpSDiv`), or `OpExtInst` with the extended instruction's name.
    pub opcode: String,
    /// The line of the `OpLine` in force, when there is one.
    pub line: Option<u32>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.id {
            Some(id) => write!(f, "%{id} = {}", self.opcode)?,
            None => f.write_str(&self.opcode)?,
        }
        if let Some(line) = self.line {
            write!(f, ", source line {line}")?;
        }
        Ok(())
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
