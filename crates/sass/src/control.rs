//! Scheduling control bits (bits 105-125 of every word) and their text annotation.

use std::fmt;
use std::str::FromStr;

use crate::{SassError, Word};

/// Bit positions of the control fields (DESIGN.md §6, checked against ptxas output).
pub mod bits {
    /// Stall count, 4 bits.
    pub const STALL: u32 = 105;
    /// Yield bit.
    pub const YIELD: u32 = 109;
    /// Write scoreboard, 3 bits (7 = none).
    pub const WRITE_SB: u32 = 110;
    /// Read scoreboard, 3 bits (7 = none).
    pub const READ_SB: u32 = 113;
    /// Wait mask, 6 bits: bit i waits on scoreboard i.
    pub const WAIT: u32 = 116;
    /// Operand reuse flags, 4 bits: bit i = reuse slot i (operand A, B, C, ...).
    pub const REUSE: u32 = 122;
    /// Bits 126-127: no field; always zero in ptxas output, and refused otherwise.
    pub const SPARE: u32 = 126;
}

/// The control code of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Control {
    /// Stall cycles before the next instruction issues (0-15).
    pub stall: u8,
    /// The raw yield bit (bit 109). ptxas sets it on most instructions; see `docs/sass.md`.
    pub yield_bit: bool,
    /// Scoreboard set when the result is written (0-6), `None` for none (field value 7).
    pub write_sb: Option<u8>,
    /// Scoreboard set when the sources have been read (0-6), `None` for none (field value 7).
    pub read_sb: Option<u8>,
    /// Scoreboards waited on before issue, one bit each.
    pub wait: u8,
    /// Operand reuse flags (4 bits); printed as `.reuse` on operands, not in the annotation.
    pub reuse: u8,
}

impl Default for Control {
    /// `[B------:R-:W-:-:S00]`: no stall, yield bit clear, no scoreboards, no waits, no reuse
    /// (what ptxas puts on its padding NOPs).
    fn default() -> Control {
        Control {
            stall: 0,
            yield_bit: false,
            write_sb: None,
            read_sb: None,
            wait: 0,
            reuse: 0,
        }
    }
}

impl Control {
    /// Whether nvdisasm accepts this stall/yield pair. Probed on SM75 and SM90: with the yield
    /// bit clear every stall 0-15 is legal; with it set only stalls 1-11 are (nvdisasm:
    /// "undefined value ... for table 'TABLES_opex_N'").
    pub fn is_legal(self) -> bool {
        (!self.yield_bit || (1..=11).contains(&self.stall))
            && self.stall < 16
            && self.write_sb.is_none_or(|s| s < 7)
            && self.read_sb.is_none_or(|s| s < 7)
            && self.wait < 64
            && self.reuse < 16
    }

    /// The control bits of `w`. Bits 126-127 are not part of the control code.
    pub fn decode(w: Word) -> Control {
        Control {
            stall: w.get(bits::STALL, 4) as u8,
            yield_bit: w.bit(bits::YIELD),
            write_sb: sb_field(w.get(bits::WRITE_SB, 3)),
            read_sb: sb_field(w.get(bits::READ_SB, 3)),
            wait: w.get(bits::WAIT, 6) as u8,
            reuse: w.get(bits::REUSE, 4) as u8,
        }
    }

    /// Writes these control bits into `w` (bits 105-125).
    pub fn encode(self, w: &mut Word) {
        w.set(bits::STALL, 4, self.stall as u64 & 0xf);
        w.set_bit(bits::YIELD, self.yield_bit);
        w.set(bits::WRITE_SB, 3, self.write_sb.map_or(7, |s| s as u64 & 7));
        w.set(bits::READ_SB, 3, self.read_sb.map_or(7, |s| s as u64 & 7));
        w.set(bits::WAIT, 6, self.wait as u64 & 0x3f);
        w.set(bits::REUSE, 4, self.reuse as u64 & 0xf);
    }

    /// The annotation without reuse flags, e.g. `[B0-----:R-:W1:Y:S04]`.
    pub fn annotation(self) -> String {
        self.to_string()
    }
}

/// A 3-bit scoreboard field: 7 means none.
fn sb_field(v: u64) -> Option<u8> {
    (v != 7).then_some(v as u8)
}

fn sb_char(v: Option<u8>) -> char {
    match v {
        None => '-',
        Some(v) => (b'0' + v) as char,
    }
}

impl fmt::Display for Control {
    /// `[B<wait>:R<read>:W<write>:<Y|->:S<stall>]`: `B` is followed by six characters, the
    /// digit `i` where the wait mask has bit i and `-` elsewhere; `R` and `W` by the scoreboard
    /// number or `-` for none (7); then `Y` when the yield bit (109) is 1 and `-` when it is 0;
    /// then the stall count in two decimal digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[B")?;
        for i in 0..6 {
            let c = if self.wait >> i & 1 == 1 {
                (b'0' + i) as char
            } else {
                '-'
            };
            write!(f, "{c}")?;
        }
        write!(
            f,
            ":R{}:W{}:{}:S{:02}]",
            sb_char(self.read_sb),
            sb_char(self.write_sb),
            if self.yield_bit { 'Y' } else { '-' },
            self.stall
        )
    }
}

impl FromStr for Control {
    type Err = SassError;

    /// Parses the annotation [`Control`]'s `Display` writes (reuse flags are left 0).
    fn from_str(s: &str) -> Result<Control, SassError> {
        let bad = |why: &str| SassError::BadControl(s.to_string(), why.to_string());
        let body = s
            .trim()
            .strip_prefix('[')
            .and_then(|b| b.strip_suffix(']'))
            .ok_or_else(|| bad("expected [...]"))?;
        let parts: Vec<&str> = body.split(':').collect();
        let [b, r, w, y, st] = parts.as_slice() else {
            return Err(bad("expected five fields B:R:W:Y:S"));
        };
        let b = b
            .strip_prefix('B')
            .ok_or_else(|| bad("wait field must start with B"))?;
        if b.len() != 6 {
            return Err(bad("wait field needs six characters"));
        }
        let mut wait = 0u8;
        for (i, c) in b.chars().enumerate() {
            match c {
                '-' => {}
                c if c as u32 == '0' as u32 + i as u32 => wait |= 1 << i,
                _ => return Err(bad("wait character i must be `-` or the digit i")),
            }
        }
        let sb = |field: &str, prefix: char| -> Result<Option<u8>, SassError> {
            let v = field
                .strip_prefix(prefix)
                .ok_or_else(|| bad("scoreboard field prefix"))?;
            match v {
                "-" => Ok(None),
                d if d.len() == 1 && matches!(d.as_bytes()[0], b'0'..=b'6') => {
                    Ok(Some(d.as_bytes()[0] - b'0'))
                }
                _ => Err(bad("scoreboard must be 0-6 or -")),
            }
        };
        let read_sb = sb(r, 'R')?;
        let write_sb = sb(w, 'W')?;
        let yield_bit = match *y {
            "Y" => true,
            "-" => false,
            _ => return Err(bad("yield must be Y or -")),
        };
        let stall = st
            .strip_prefix('S')
            .and_then(|v| v.parse::<u8>().ok())
            .filter(|v| *v < 16)
            .ok_or_else(|| bad("stall must be S00-S15"))?;
        Ok(Control {
            stall,
            yield_bit,
            write_sb,
            read_sb,
            wait,
            reuse: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptxas_words_decode() {
        // LDC R1, c[0x0][0x28] from ptxas: no scoreboards, yield set, stall 1.
        let w = Word::from_halves(0x00000a00ff017b82, 0x000fe20000000800);
        let c = Control::decode(w);
        assert_eq!(
            c,
            Control {
                stall: 1,
                yield_bit: true,
                write_sb: None,
                read_sb: None,
                wait: 0,
                reuse: 0
            }
        );
        assert_eq!(c.to_string(), "[B------:R-:W-:Y:S01]");
        // S2R R0, SR_TID.X: sets scoreboard 0, stall 7.
        let w = Word::from_halves(0x0000000000007919, 0x000e2e0000002100);
        assert_eq!(Control::decode(w).to_string(), "[B------:R-:W0:Y:S07]");
        // IMAD waiting on scoreboard 0.
        let w = Word::from_halves(0x0000000407077c24, 0x001fe2000f8e0200);
        assert_eq!(Control::decode(w).to_string(), "[B0-----:R-:W-:Y:S01]");
    }

    #[test]
    fn annotation_round_trips_every_value() {
        for bits in 0u32..(1 << 21) {
            if bits % 97 != 0 {
                continue;
            }
            let mut w = Word::default();
            w.set(105, 21, bits as u64);
            let c = Control::decode(w);
            let mut back: Control = c.to_string().parse().unwrap();
            back.reuse = c.reuse;
            assert_eq!(back, c);
            let mut w2 = Word::default();
            back.encode(&mut w2);
            assert_eq!(w2, w);
        }
    }

    #[test]
    fn bad_annotations_are_refused() {
        for s in [
            "B------:R-:W-:Y:S01",
            "[B1-----:R-:W-:Y:S01]",
            "[B------:R7:W-:Y:S01]",
            "[B------:R-:W-:Y:S16]",
        ] {
            assert!(s.parse::<Control>().is_err(), "{s}");
        }
    }
}
