//! Typed modifiers: enums for the modifier families a back end chooses between.
//!
//! A modifier prints as a suffix of dot-separated components (`.LT`, `.64`, `.RCP64H`). The
//! builder ([`super::Builder::m`]) takes any [`Modifier`]; a form's modifier value is chosen
//! by its components, so the order in which modifiers are given does not matter. Plain
//! strings (`".X"`, `".WIDE"`) are modifiers too, for the one-off flags.

/// A modifier: something that prints as a mnemonic suffix.
pub trait Modifier: Copy + 'static {
    /// Every value (for reading a modifier back with [`super::MachInst::modifier`]).
    const ALL: &'static [Self];
    /// The suffix, with its leading dot (`".LT"`).
    fn suffix(self) -> &'static str;
}

impl Modifier for &'static str {
    const ALL: &'static [&'static str] = &[];
    fn suffix(self) -> &'static str {
        self
    }
}

macro_rules! modifier {
    ($(#[$doc:meta])* $name:ident { $($v:ident = $s:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $(
                #[doc = concat!("`", $s, "`")]
                $v,
            )*
        }
        impl Modifier for $name {
            const ALL: &'static [$name] = &[$($name::$v,)*];
            fn suffix(self) -> &'static str {
                match self {
                    $($name::$v => $s,)*
                }
            }
        }
    };
}

modifier! {
    /// Integer comparisons (ISETP, UISETP).
    IntCmp { F = ".F", Lt = ".LT", Eq = ".EQ", Le = ".LE", Gt = ".GT", Ne = ".NE", Ge = ".GE", T = ".T" }
}

modifier! {
    /// Float comparisons (FSETP, DSETP): ordered, then unordered (`U`), `NUM` / `NAN`.
    FloatCmp {
        F = ".F", Lt = ".LT", Eq = ".EQ", Le = ".LE", Gt = ".GT", Ne = ".NE", Ge = ".GE",
        Num = ".NUM", Nan = ".NAN", Ltu = ".LTU", Equ = ".EQU", Leu = ".LEU", Gtu = ".GTU",
        Neu = ".NEU", Geu = ".GEU", T = ".T",
    }
}

modifier! {
    /// How a compare combines its result with the predicate operand.
    BoolOp { And = ".AND", Or = ".OR", Xor = ".XOR" }
}

modifier! {
    /// Atomic and reduction operations (ATOMG, ATOMS, RED).
    AtomOp {
        Add = ".ADD", Min = ".MIN", Max = ".MAX", Inc = ".INC", Dec = ".DEC", And = ".AND",
        Or = ".OR", Xor = ".XOR", Exch = ".EXCH",
    }
}

modifier! {
    /// Memory access sizes other than the default 32 bits (LDG, STG, LDS, LDL, STL, LDC).
    MemSize { U8 = ".U8", S8 = ".S8", U16 = ".U16", S16 = ".S16", B64 = ".64", B128 = ".128" }
}

modifier! {
    /// Float rounding other than the default round-to-nearest-even.
    Rounding { Rm = ".RM", Rp = ".RP", Rz = ".RZ" }
}

modifier! {
    /// SHFL's lane selection.
    ShflMode { Idx = ".IDX", Up = ".UP", Down = ".DOWN", Bfly = ".BFLY" }
}

modifier! {
    /// VOTE's and VOTEU's reduction.
    VoteMode { All = ".ALL", Any = ".ANY", Eq = ".EQ" }
}

modifier! {
    /// The functions of the multi-function unit.
    MufuOp {
        Cos = ".COS", Sin = ".SIN", Ex2 = ".EX2", Lg2 = ".LG2", Rcp = ".RCP", Rsq = ".RSQ",
        Rcp64h = ".RCP64H", Rsq64h = ".RSQ64H", Sqrt = ".SQRT",
    }
}
