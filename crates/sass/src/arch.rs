//! Supported architectures.

use std::fmt;
use std::str::FromStr;

use crate::SassError;

/// A GPU architecture whose SASS this crate models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// Turing.
    Sm75,
    /// Ampere (A100).
    Sm80,
    /// Ampere (GA10x).
    Sm86,
    /// Ada.
    Sm89,
    /// Hopper.
    Sm90,
}

impl Arch {
    /// Every supported architecture, oldest first.
    pub const ALL: [Arch; 5] = [Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90];

    /// The SM number (75, 80, ...).
    pub fn number(self) -> u32 {
        match self {
            Arch::Sm75 => 75,
            Arch::Sm80 => 80,
            Arch::Sm86 => 86,
            Arch::Sm89 => 89,
            Arch::Sm90 => 90,
        }
    }

    /// The architecture with SM number `n`.
    pub fn from_number(n: u32) -> Option<Arch> {
        Arch::ALL.into_iter().find(|a| a.number() == n)
    }

    /// A one-bit mask of this architecture, for sets of architectures.
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// The name nvdisasm's `-b` option takes (`SM90`).
    pub fn nvdisasm_name(self) -> String {
        format!("SM{}", self.number())
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.number())
    }
}

impl FromStr for Arch {
    type Err = SassError;

    /// Accepts `sm_75`, `sm75`, `SM75`, `SM_75` and `75`.
    fn from_str(s: &str) -> Result<Arch, SassError> {
        let t = s.trim();
        let lower = t.to_ascii_lowercase();
        let digits = lower
            .strip_prefix("sm_")
            .or_else(|| lower.strip_prefix("sm"))
            .unwrap_or(&lower);
        digits
            .parse::<u32>()
            .ok()
            .and_then(Arch::from_number)
            .ok_or_else(|| SassError::UnknownArch(t.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_usual_spellings() {
        assert_eq!("sm_75".parse::<Arch>().unwrap(), Arch::Sm75);
        assert_eq!("SM90".parse::<Arch>().unwrap(), Arch::Sm90);
        assert_eq!("sm86".parse::<Arch>().unwrap(), Arch::Sm86);
        assert_eq!("89".parse::<Arch>().unwrap(), Arch::Sm89);
        assert!("sm_70".parse::<Arch>().is_err());
        assert!("sm_100".parse::<Arch>().is_err());
        assert_eq!(Arch::Sm80.to_string(), "sm_80");
        assert_eq!(Arch::Sm80.nvdisasm_name(), "SM80");
    }
}
