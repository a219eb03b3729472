//! One 128-bit instruction word.

use std::fmt;

/// One SASS instruction: 128 bits, stored little-endian in memory (bit 0 is bit 0 of the
/// first byte). Bits 0-104 hold the operation, bits 105-127 the control code.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Word(pub u128);

/// A mask of `len` bits starting at bit `lo`.
pub const fn mask(lo: u32, len: u32) -> u128 {
    if len == 0 {
        0
    } else if len >= 128 {
        u128::MAX
    } else {
        ((1u128 << len) - 1) << lo
    }
}

impl Word {
    /// The word in 16 little-endian bytes.
    pub fn from_le_bytes(b: [u8; 16]) -> Word {
        Word(u128::from_le_bytes(b))
    }

    /// The 16 little-endian bytes of the word.
    pub fn to_le_bytes(self) -> [u8; 16] {
        self.0.to_le_bytes()
    }

    /// The low 64 bits (nvdisasm's first hex number).
    pub fn lo(self) -> u64 {
        self.0 as u64
    }

    /// The high 64 bits (nvdisasm's second hex number).
    pub fn hi(self) -> u64 {
        (self.0 >> 64) as u64
    }

    /// Builds a word from its low and high halves.
    pub fn from_halves(lo: u64, hi: u64) -> Word {
        Word(lo as u128 | (hi as u128) << 64)
    }

    /// The `len`-bit field at `lo`.
    pub fn get(self, lo: u32, len: u32) -> u64 {
        debug_assert!(len <= 64 && lo + len <= 128);
        ((self.0 & mask(lo, len)) >> lo) as u64
    }

    /// Bit `at`.
    pub fn bit(self, at: u32) -> bool {
        self.get(at, 1) == 1
    }

    /// Sets the `len`-bit field at `lo` to `value` (which must fit).
    pub fn set(&mut self, lo: u32, len: u32, value: u64) {
        debug_assert!(len <= 64 && lo + len <= 128);
        debug_assert!(
            len == 64 || value >> len == 0,
            "value {value:#x} wider than {len} bits"
        );
        self.0 = (self.0 & !mask(lo, len)) | ((value as u128) << lo) & mask(lo, len);
    }

    /// Sets bit `at`.
    pub fn set_bit(&mut self, at: u32, on: bool) {
        self.set(at, 1, on as u64);
    }

    /// Parses `0xLO 0xHI`-style text as nvdisasm prints it, or one 32-digit hex number.
    pub fn parse_hex(s: &str) -> Option<Word> {
        let parts: Vec<&str> = s.split([' ', ',', ':']).filter(|p| !p.is_empty()).collect();
        let h = |p: &str| u64::from_str_radix(p.trim_start_matches("0x"), 16).ok();
        match parts.as_slice() {
            [lo, hi] => Some(Word::from_halves(h(lo)?, h(hi)?)),
            [one] => u128::from_str_radix(one.trim_start_matches("0x"), 16)
                .ok()
                .map(Word),
            _ => None,
        }
    }
}

impl fmt::Debug for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Word(0x{:016x} 0x{:016x})", self.lo(), self.hi())
    }
}

impl fmt::Display for Word {
    /// `0x<lo> 0x<hi>`, the two halves nvdisasm prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:016x} 0x{:016x}", self.lo(), self.hi())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let mut w = Word::default();
        w.set(60, 8, 0xab);
        assert_eq!(w.get(60, 8), 0xab);
        assert_eq!(w.get(64, 4), 0xa);
        w.set(60, 8, 0x01);
        assert_eq!(w.0, 1u128 << 60);
        w.set_bit(127, true);
        assert!(w.bit(127));
        assert_eq!(w.hi() >> 63, 1);
    }

    #[test]
    fn hex_halves() {
        let w = Word::parse_hex("0x00000a00ff017b82 0x000fe20000000800").unwrap();
        assert_eq!(w.lo(), 0x00000a00ff017b82);
        assert_eq!(w.hi(), 0x000fe20000000800);
        assert_eq!(Word::parse_hex(&w.to_string()), Some(w));
        assert_eq!(Word::from_le_bytes(w.to_le_bytes()), w);
    }
}
