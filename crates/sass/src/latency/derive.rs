//! Deriving latencies from compiled code: for every instruction that writes a register
//! (producer) and the first later instruction that reads it (consumer), the cycles ptxas
//! leaves between their issue (the stall counts of the producer and every instruction
//! before the consumer) and whether the producer sets a write scoreboard instead.

use std::collections::BTreeMap;

use crate::typed::{Loc, MachInst};

use super::{Kind, LatencyClass, Measure};

/// The register file of a location, as the tables name it: `R`, `P`, `UR`, `UP`, `B`
/// (`RPC` for the return program counter's halves).
pub fn file_of(l: Loc) -> &'static str {
    match l {
        Loc::R(_) => "R",
        Loc::P(_) => "P",
        Loc::Ur(_) => "UR",
        Loc::Up(_) => "UP",
        Loc::B(_) => "B",
        Loc::Rpc(_) => "RPC",
    }
}

/// Accumulated observations per (class, register file written).
#[derive(Default, Debug, Clone)]
pub struct Observations {
    /// Per (class, file): producers seen, with write scoreboard, with read scoreboard,
    /// the distances to the first consumer of fixed-latency producers, and the opcodes.
    pub cells: BTreeMap<(LatencyClass, &'static str), Cell>,
}

/// Observations of one (class, file).
#[derive(Default, Debug, Clone)]
pub struct Cell {
    /// Producers seen.
    pub producers: usize,
    /// Of which set a write scoreboard.
    pub write_sb: usize,
    /// Of which set a read scoreboard.
    pub read_sb: usize,
    /// Cycles from a fixed-latency producer's issue to its first consumer's issue.
    pub distances: Vec<u32>,
    /// Mnemonics seen, with whether any instance set a write scoreboard.
    pub ops: BTreeMap<&'static str, bool>,
}

impl Observations {
    /// Adds the observations of one straight-line block of instructions.
    pub fn add_block(&mut self, insts: &[MachInst]) {
        for (i, p) in insts.iter().enumerate() {
            let class = p.form.latency;
            let defs = p.defs();
            // Stores and other operations that write no register: one cell with file `-`.
            let files: Vec<&'static str> = if defs.is_empty() {
                vec!["-"]
            } else {
                let mut f: Vec<&'static str> = defs.iter().map(|&l| file_of(l)).collect();
                f.dedup();
                f
            };
            for file in files {
                let cell = self.cells.entry((class, file)).or_default();
                cell.producers += 1;
                cell.write_sb += p.control.write_sb.is_some() as usize;
                cell.read_sb += p.control.read_sb.is_some() as usize;
                *cell.ops.entry(p.form.name).or_default() |= p.control.write_sb.is_some();
                if p.control.write_sb.is_some() || file == "-" {
                    continue;
                }
                let mine: Vec<Loc> = defs
                    .iter()
                    .copied()
                    .filter(|&l| file_of(l) == file)
                    .collect();
                let mut cycles = 0u32;
                for c in &insts[i..] {
                    if !std::ptr::eq(c, p) && c.uses().iter().any(|u| mine.contains(u)) {
                        cell.distances.push(cycles);
                        break;
                    }
                    if !std::ptr::eq(c, p) && c.defs().iter().any(|d| mine.contains(d)) {
                        break; // overwritten before any read
                    }
                    cycles += c.control.stall as u32;
                }
            }
        }
    }

    /// The measurements, one per (class, file).
    pub fn measures(&self) -> Vec<Measure> {
        self.cells
            .iter()
            .filter(|((class, _), _)| *class != LatencyClass::Nop)
            .map(|(&(class, file), c)| Measure {
                class,
                file: file.to_string(),
                kind: if c.write_sb == 0 {
                    Kind::Fixed
                } else if c.write_sb == c.producers {
                    Kind::Scoreboard
                } else {
                    Kind::Mixed
                },
                min: c.distances.iter().copied().min(),
                max: c.distances.iter().copied().max(),
                pairs: c.distances.len(),
                producers: c.producers,
                write_sb: c.write_sb,
                read_sb: c.read_sb,
                ops: c
                    .ops
                    .iter()
                    .map(|(op, sb)| format!("{op}{}", if *sb { "*" } else { "" }))
                    .collect::<Vec<_>>()
                    .join(","),
            })
            .collect()
    }
}

/// The observations of every function of a cubin compiled for `arch`: each function is
/// decoded into typed instructions and cut into straight-line blocks at control-flow
/// operations. Also returns how many words could not be decoded (they end a block too).
pub fn observe_cubin(
    arch: crate::Arch,
    bytes: &[u8],
) -> Result<(Observations, usize), crate::SassError> {
    let c = crate::cubin::read(bytes)?;
    let mut obs = Observations::default();
    let mut refused = 0;
    for f in &c.functions {
        let mut block = Vec::new();
        for (i, &w) in f.words.iter().enumerate() {
            match crate::decode_typed(arch, w, 16 * i as u64) {
                Ok(t) if !crate::roles::is_control(t.op()) => block.push(t),
                other => {
                    refused += other.is_err() as usize;
                    obs.add_block(&block);
                    block.clear();
                }
            }
        }
        obs.add_block(&block);
    }
    Ok((obs, refused))
}
