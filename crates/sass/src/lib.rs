//! The SASS instruction layer of tangle: NVIDIA Turing..Hopper (SM75–SM90) machine code.
//!
//! * [`Arch`] names a supported architecture, [`Word`] is one 128-bit instruction word and
//!   [`Control`] its scheduling control bits (stall, yield, scoreboards, wait mask, reuse).
//! * [`forms`] is the table of instruction forms: every form lists the fields of its word
//!   (registers, predicates, immediates, constant-bank addresses, modifiers) and the constant
//!   value of every other bit. Decoding, printing, parsing and encoding all read that one table.
//! * [`decode`] turns a word into an [`Inst`]; [`Inst`] prints as nvdisasm prints it
//!   ([`Inst::text`]); [`assemble_line`] parses that text (with an optional control annotation)
//!   back into a word. A word whose bits are not all explained by a known form is refused
//!   with [`SassError::UnknownForm`], never guessed.
//! * [`typed`] has instructions as data: [`decode_typed`] gives a [`MachInst`] (operation
//!   [`Op`], guard, modifiers, operands with their [`roles`], control bits) and
//!   [`MachInst::encode`] writes its word field by field; [`MachInst::build`] builds one.
//! * [`cubin`] extracts the code of every function from a cubin (ELF) file, its symbols and
//!   the instruction offsets of its `.nv.info` sections; [`listing`] prints that code with
//!   nvdisasm's labels (`.L_x_N`) and symbol directives.
//!
//! The text syntax, the control annotation and the coverage are described in `docs/sass.md`.

mod arch;
pub mod control;
pub mod cubin;
pub mod cuobjdump;
mod error;
mod floats;
pub mod form;
pub mod forms;
mod inst;
pub mod latency;
pub mod listing;
mod op;
pub mod probe;
pub mod roles;
mod sregs;
mod text;
pub mod typed;
mod word;

pub use arch::Arch;
pub use control::Control;
pub use error::SassError;
pub use form::{Form, Mod, Opnd, OpndKind};
pub use inst::{decode, decode_as, encode, same_but_unprinted, sureg_on, Inst};
pub use sregs::{sreg_name, sreg_number, PER_SM, SREGS};
/// The names S2UR's operands print: the same as S2R's ([`SREGS`]).
pub const SUREGS: &[(u64, &str)] = SREGS;
pub use latency::LatencyClass;
pub use op::Op;
pub use text::{
    assemble, assemble_line, disassemble, label_def, normalize, parse_line, scan, words_from_bytes,
    Line, SourceInst, SourceSection,
};
pub use typed::{decode_typed, MachInst};
pub use word::Word;
