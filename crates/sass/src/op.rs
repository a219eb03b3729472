//! The opcode enum: one variant per base mnemonic of the form table.

use std::fmt;

macro_rules! ops {
    ($($v:ident = $s:literal,)*) => {
        /// A SASS operation, by its base mnemonic (`IADD3`, `BSSY`, ...). One operation has
        /// several forms (operand layouts, per-SM encodings); [`crate::Form::op`] names the
        /// operation of a form.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Op {
            $(
                #[doc = concat!("`", $s, "`")]
                $v,
            )*
        }

        impl Op {
            /// Every operation, in alphabetical order of mnemonic.
            pub const ALL: &'static [Op] = &[$(Op::$v,)*];

            /// The base mnemonic as nvdisasm prints it.
            pub fn mnemonic(self) -> &'static str {
                match self {
                    $(Op::$v => $s,)*
                }
            }

            /// The operation whose base mnemonic is `s`.
            pub fn from_mnemonic(s: &str) -> Option<Op> {
                match s {
                    $($s => Some(Op::$v),)*
                    _ => None,
                }
            }
        }
    };
}

ops! {
    Acqbulk = "ACQBULK",
    Arrives = "ARRIVES",
    Atom = "ATOM",
    Atomg = "ATOMG",
    Atoms = "ATOMS",
    B2r = "B2R",
    Bar = "BAR",
    Bmov = "BMOV",
    Bmsk = "BMSK",
    Bpt = "BPT",
    Bra = "BRA",
    Break = "BREAK",
    Brev = "BREV",
    Brx = "BRX",
    Bssy = "BSSY",
    Bsync = "BSYNC",
    Call = "CALL",
    Cctl = "CCTL",
    Cctll = "CCTLL",
    Cgaerrbar = "CGAERRBAR",
    Cs2r = "CS2R",
    Dadd = "DADD",
    Depbar = "DEPBAR",
    Dfma = "DFMA",
    Dmma = "DMMA",
    Dmul = "DMUL",
    Dsetp = "DSETP",
    Elect = "ELECT",
    Endcollective = "ENDCOLLECTIVE",
    Errbar = "ERRBAR",
    Exit = "EXIT",
    F2f = "F2F",
    F2fp = "F2FP",
    F2i = "F2I",
    F2ip = "F2IP",
    Fadd = "FADD",
    Fchk = "FCHK",
    Fence = "FENCE",
    Ffma = "FFMA",
    Flo = "FLO",
    Fmnmx = "FMNMX",
    Fmul = "FMUL",
    Frnd = "FRND",
    Fsel = "FSEL",
    Fset = "FSET",
    Fsetp = "FSETP",
    Hadd2 = "HADD2",
    Hfma2 = "HFMA2",
    Hmma = "HMMA",
    Hmnmx2 = "HMNMX2",
    Hmul2 = "HMUL2",
    Hset2 = "HSET2",
    Hsetp2 = "HSETP2",
    I2f = "I2F",
    I2fp = "I2FP",
    I2i = "I2I",
    I2ip = "I2IP",
    Iabs = "IABS",
    Iadd3 = "IADD3",
    Idp = "IDP",
    Imad = "IMAD",
    Imma = "IMMA",
    Imnmx = "IMNMX",
    Isetp = "ISETP",
    Ld = "LD",
    Ldc = "LDC",
    Ldg = "LDG",
    Ldgdepbar = "LDGDEPBAR",
    Ldgmc = "LDGMC",
    Ldgsts = "LDGSTS",
    Ldl = "LDL",
    Lds = "LDS",
    Ldsm = "LDSM",
    Lea = "LEA",
    Lop3 = "LOP3",
    Match = "MATCH",
    Membar = "MEMBAR",
    Mov = "MOV",
    Movm = "MOVM",
    Mufu = "MUFU",
    Nanosleep = "NANOSLEEP",
    Nop = "NOP",
    P2r = "P2R",
    Plop3 = "PLOP3",
    Pmtrig = "PMTRIG",
    Popc = "POPC",
    Preexit = "PREEXIT",
    Prmt = "PRMT",
    Qmma = "QMMA",
    Qspc = "QSPC",
    R2p = "R2P",
    R2ur = "R2UR",
    Red = "RED",
    Redas = "REDAS",
    Redg = "REDG",
    Redux = "REDUX",
    Ret = "RET",
    Rpcmov = "RPCMOV",
    S2r = "S2R",
    S2ur = "S2UR",
    Sel = "SEL",
    Sgxt = "SGXT",
    Shf = "SHF",
    Shfl = "SHFL",
    St = "ST",
    Stas = "STAS",
    Stg = "STG",
    Stl = "STL",
    Sts = "STS",
    Stsm = "STSM",
    Suld = "SULD",
    Sured = "SURED",
    Sust = "SUST",
    Syncs = "SYNCS",
    Tex = "TEX",
    Tld = "TLD",
    Tld4 = "TLD4",
    Txd = "TXD",
    Txq = "TXQ",
    Ublkcp = "UBLKCP",
    Ublkpf = "UBLKPF",
    Ublkred = "UBLKRED",
    Ubmsk = "UBMSK",
    Ubrev = "UBREV",
    UcgabarArv = "UCGABAR_ARV",
    UcgabarWait = "UCGABAR_WAIT",
    Uflo = "UFLO",
    Uiadd3 = "UIADD3",
    Uimad = "UIMAD",
    Uisetp = "UISETP",
    Uldc = "ULDC",
    Ulea = "ULEA",
    Ulop3 = "ULOP3",
    Umov = "UMOV",
    Uplop3 = "UPLOP3",
    Upopc = "UPOPC",
    Up2ur = "UP2UR",
    Uprmt = "UPRMT",
    Ur2up = "UR2UP",
    Usel = "USEL",
    Ushf = "USHF",
    Utmacctl = "UTMACCTL",
    Utmacmdflush = "UTMACMDFLUSH",
    Utmaldg = "UTMALDG",
    Utmapf = "UTMAPF",
    Utmaredg = "UTMAREDG",
    Utmastg = "UTMASTG",
    Vabsdiff = "VABSDIFF",
    Vabsdiff4 = "VABSDIFF4",
    Viadd = "VIADD",
    Viaddmnmx = "VIADDMNMX",
    Vimnmx = "VIMNMX",
    Vote = "VOTE",
    Voteu = "VOTEU",
    Warpgroup = "WARPGROUP",
    Warpsync = "WARPSYNC",
    Yield = "YIELD",
}

impl Op {
    /// Whether the operation runs on the uniform datapath (its sources and results are
    /// uniform registers and predicates; its guard is a uniform predicate).
    pub fn is_uniform(self) -> bool {
        self.mnemonic().starts_with('U') || self == Op::S2ur
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mnemonic())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_has_an_op_and_names_round_trip() {
        for f in crate::forms::all() {
            assert_eq!(Op::from_mnemonic(f.name), Some(f.op), "{}", f.name);
        }
        for &op in Op::ALL {
            assert_eq!(Op::from_mnemonic(op.mnemonic()), Some(op));
            assert!(
                crate::forms::all().iter().any(|f| f.op == op),
                "{op} has no form"
            );
        }
    }
}
