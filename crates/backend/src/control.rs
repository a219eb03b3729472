//! Conservative control codes, from the measured latency tables (`tangle_sass::latency`,
//! never invented): an instruction whose result has a fixed latency on its SM stalls for that
//! latency, so the next instruction can read it; one whose result has no measured fixed
//! latency (memory, S2R, SHFL, conversions ptxas scoreboards, and classes not measured)
//! sets write scoreboard 0, and the very next instruction waits on it; a memory operation
//! that reads registers sets read scoreboard 1, also waited on at once. Correct first, slow:
//! the list scheduler (issue 17, step 4) is what overlaps latencies.

use tangle_sass::latency;
use tangle_sass::roles::memory_effect;
use tangle_sass::typed::Loc;
use tangle_sass::{Arch, Control, MachInst};

use crate::error::CompileError;

/// The scoreboard every variable-latency result sets.
pub const WRITE_SB: u8 = 0;
/// The scoreboard every memory operation's source read sets.
pub const READ_SB: u8 = 1;
/// The longest stall the yield bit allows (`docs/sass.md`).
const YIELD_MAX_STALL: u32 = 11;

/// Sets the control code of every instruction of `insts` (in layout order).
pub fn assign(arch: Arch, insts: &mut [MachInst]) -> Result<(), CompileError> {
    let table = latency::table(arch);
    let mut wait = 0u8;
    for inst in insts.iter_mut() {
        let mut stall = 1u32;
        let mut needs_sb = false;
        for loc in inst.defs() {
            let file = match loc {
                Loc::R(_) => "R",
                Loc::P(_) => "P",
                Loc::Ur(_) => "UR",
                Loc::Up(_) => "UP",
                // Convergence barriers are written by control operations, which take no
                // scoreboard; the hardware orders them itself (nothing was measured).
                Loc::B(_) => continue,
                // The return program counter (RPCMOV): a control register as well, with
                // nothing measured; the backend emits no RPCMOV.
                Loc::Rpc(_) => continue,
            };
            match table.fixed_latency(inst.form, file) {
                // A reader in the other pipe needs one cycle more (`latency::Pipe`).
                Some(l) => {
                    let cross = (file == "R" && latency::pipe(inst.form).is_some()) as u32;
                    stall = stall.max(l + cross)
                }
                None => needs_sb = true,
            }
        }
        // Control instructions ptxas never follows sooner (BSYNC 5, ...).
        stall = stall.max(latency::control::min_stall(arch, inst.form.name) as u32);
        let mut c = Control {
            stall: 0,
            yield_bit: true,
            write_sb: None,
            read_sb: None,
            wait,
            reuse: 0,
        };
        wait = 0;
        if needs_sb {
            if !inst.form.write_sb {
                return Err(CompileError::Internal(format!(
                    "{}: no fixed latency measured and no write scoreboard allowed",
                    inst.form.name
                )));
            }
            c.write_sb = Some(WRITE_SB);
            wait |= 1 << WRITE_SB;
        }
        if memory_effect(inst.op()).is_some() && inst.form.read_sb && !inst.uses().is_empty() {
            c.read_sb = Some(READ_SB);
            wait |= 1 << READ_SB;
        }
        c.stall = stall as u8;
        c.yield_bit = stall <= YIELD_MAX_STALL;
        inst.control = c;
    }
    Ok(())
}
