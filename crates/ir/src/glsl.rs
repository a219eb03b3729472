//! The instructions of the `GLSL.std.450` extended instruction set that compute shaders use.
//! Numbers and names are those of the Khronos GLSL.std.450 specification.

macro_rules! glsl_table {
    ($($variant:ident = $number:literal, $arity:literal;)*) => {
        /// An instruction of `GLSL.std.450`, printed with its specification name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum GlslOp {
            $(
                #[doc = concat!("`", stringify!($variant), "` (", stringify!($number), ")")]
                $variant,
            )*
        }

        impl GlslOp {
            /// Every supported instruction.
            pub const ALL: &'static [GlslOp] = &[$(GlslOp::$variant),*];

            /// The instruction number within the extended set.
            pub fn number(self) -> u32 {
                match self { $(GlslOp::$variant => $number,)* }
            }

            /// The specification name.
            pub fn name(self) -> &'static str {
                match self { $(GlslOp::$variant => stringify!($variant),)* }
            }

            /// The number of operands.
            pub fn arity(self) -> usize {
                match self { $(GlslOp::$variant => $arity,)* }
            }

            /// The instruction with number `number`, if supported.
            pub fn from_number(number: u32) -> Option<Self> {
                match number { $($number => Some(GlslOp::$variant),)* _ => None }
            }

            /// The instruction named `name`, if supported.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|g| g.name() == name)
            }
        }
    };
}

glsl_table! {
    Round = 1, 1;
    RoundEven = 2, 1;
    Trunc = 3, 1;
    FAbs = 4, 1;
    SAbs = 5, 1;
    FSign = 6, 1;
    SSign = 7, 1;
    Floor = 8, 1;
    Ceil = 9, 1;
    Fract = 10, 1;
    Radians = 11, 1;
    Degrees = 12, 1;
    Sin = 13, 1;
    Cos = 14, 1;
    Tan = 15, 1;
    Asin = 16, 1;
    Acos = 17, 1;
    Atan = 18, 1;
    Sinh = 19, 1;
    Cosh = 20, 1;
    Tanh = 21, 1;
    Asinh = 22, 1;
    Acosh = 23, 1;
    Atanh = 24, 1;
    Atan2 = 25, 2;
    Pow = 26, 2;
    Exp = 27, 1;
    Log = 28, 1;
    Exp2 = 29, 1;
    Log2 = 30, 1;
    Sqrt = 31, 1;
    InverseSqrt = 32, 1;
    Determinant = 33, 1;
    MatrixInverse = 34, 1;
    Modf = 35, 2;
    ModfStruct = 36, 1;
    FMin = 37, 2;
    UMin = 38, 2;
    SMin = 39, 2;
    FMax = 40, 2;
    UMax = 41, 2;
    SMax = 42, 2;
    FClamp = 43, 3;
    UClamp = 44, 3;
    SClamp = 45, 3;
    FMix = 46, 3;
    Step = 48, 2;
    SmoothStep = 49, 3;
    Fma = 50, 3;
    Frexp = 51, 2;
    FrexpStruct = 52, 1;
    Ldexp = 53, 2;
    PackHalf2x16 = 58, 1;
    UnpackHalf2x16 = 62, 1;
    Length = 66, 1;
    Distance = 67, 2;
    Cross = 68, 2;
    Normalize = 69, 1;
    Reflect = 71, 2;
    FindILsb = 73, 1;
    FindSMsb = 74, 1;
    FindUMsb = 75, 1;
    NMin = 79, 2;
    NMax = 80, 2;
    NClamp = 81, 3;
}
