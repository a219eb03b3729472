//! An assembler for SPIR-V assembly in the syntax spirv-dis prints.
//!
//! [`assemble`] turns text into a complete module (header included) whose words equal those
//! spirv-as writes for the same text, except the generator word. See `docs/spirv-asm.md`.

mod assembler;
mod error;
pub mod fuzz;
mod lexer;
mod literal;

pub use error::{AsmError, AsmErrorKind};

/// The generator word tangle writes: tool id 0 (unregistered with Khronos) in the high 16
/// bits and `0x7467` ("tg") as the tool's version in the low 16 bits. spirv-as writes
/// `0x0007_0000` (Khronos SPIR-V Tools Assembler, version 0).
pub const TANGLE_GENERATOR: u32 = 0x0000_7467;

/// The environment a module is assembled for; it chooses the SPIR-V version in the header,
/// as spirv-as's `--target-env` does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TargetEnv {
    /// `spv1.0` .. `spv1.6`: the given minor version of SPIR-V 1.
    Universal(u8),
    /// `vulkan1.0`: SPIR-V 1.0.
    Vulkan1_0,
    /// `vulkan1.1`: SPIR-V 1.3.
    Vulkan1_1,
    /// `vulkan1.1spv1.4`: SPIR-V 1.4.
    Vulkan1_1Spv1_4,
    /// `vulkan1.2`: SPIR-V 1.5.
    Vulkan1_2,
    /// `vulkan1.3`: SPIR-V 1.6.
    Vulkan1_3,
    /// `vulkan1.4`: SPIR-V 1.6.
    Vulkan1_4,
    /// No `--target-env`: spirv-as 2025.5 writes SPIR-V 1.6.
    #[default]
    Default,
}

impl TargetEnv {
    /// The header's version word (`0x00MMmm00`).
    pub fn version_word(self) -> u32 {
        let minor: u32 = match self {
            TargetEnv::Universal(m) => u32::from(m.min(6)),
            TargetEnv::Vulkan1_0 => 0,
            TargetEnv::Vulkan1_1 => 3,
            TargetEnv::Vulkan1_1Spv1_4 => 4,
            TargetEnv::Vulkan1_2 => 5,
            TargetEnv::Vulkan1_3 | TargetEnv::Vulkan1_4 | TargetEnv::Default => 6,
        };
        0x0001_0000 | (minor << 8)
    }

    /// Parses spirv-as's spelling (`vulkan1.2`, `spv1.5`, ...).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "vulkan1.0" => TargetEnv::Vulkan1_0,
            "vulkan1.1" => TargetEnv::Vulkan1_1,
            "vulkan1.1spv1.4" => TargetEnv::Vulkan1_1Spv1_4,
            "vulkan1.2" => TargetEnv::Vulkan1_2,
            "vulkan1.3" => TargetEnv::Vulkan1_3,
            "vulkan1.4" => TargetEnv::Vulkan1_4,
            _ => {
                let minor = name
                    .strip_prefix("spv1.")?
                    .parse::<u8>()
                    .ok()
                    .filter(|m| *m <= 6)?;
                TargetEnv::Universal(minor)
            }
        })
    }
}

/// Options of [`assemble`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsmOptions {
    /// Chooses the header's version word.
    pub target_env: TargetEnv,
    /// Like spirv-as's `--preserve-numeric-ids`: `%17` becomes id 17 and named ids fill the
    /// gaps from 1 upwards. Off: every id, numeric or not, is numbered by first appearance.
    pub preserve_numeric_ids: bool,
    /// The header's generator word.
    pub generator: u32,
}

impl Default for AsmOptions {
    fn default() -> Self {
        Self {
            target_env: TargetEnv::Default,
            preserve_numeric_ids: false,
            generator: TANGLE_GENERATOR,
        }
    }
}

impl AsmOptions {
    /// Default options for `target_env`.
    pub fn for_env(target_env: TargetEnv) -> Self {
        Self {
            target_env,
            ..Self::default()
        }
    }
}

/// Assembles SPIR-V assembly text into a module: the five header words (magic, version,
/// generator, bound, schema 0) followed by the instructions.
pub fn assemble(text: &str, opts: AsmOptions) -> Result<Vec<u32>, AsmError> {
    assembler::Assembler::new(text, opts).run(text.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_envs_choose_the_version_word() {
        for (name, minor) in [
            ("vulkan1.0", 0),
            ("vulkan1.1", 3),
            ("vulkan1.1spv1.4", 4),
            ("vulkan1.2", 5),
            ("vulkan1.3", 6),
            ("vulkan1.4", 6),
            ("spv1.0", 0),
            ("spv1.5", 5),
            ("spv1.6", 6),
        ] {
            let env = TargetEnv::from_name(name).unwrap();
            assert_eq!(env.version_word(), 0x0001_0000 | (minor << 8), "{name}");
        }
        assert_eq!(TargetEnv::default().version_word(), 0x0001_0600);
        assert!(TargetEnv::from_name("spv1.7").is_none());
        assert!(TargetEnv::from_name("vulkan2.0").is_none());
    }

    #[test]
    fn header_words() {
        let words = assemble(
            "OpCapability Shader",
            AsmOptions::for_env(TargetEnv::Vulkan1_1),
        )
        .unwrap();
        assert_eq!(
            words,
            [
                0x0723_0203,
                0x0001_0300,
                TANGLE_GENERATOR,
                1,
                0,
                0x0002_0011,
                1
            ]
        );
        let opts = AsmOptions {
            generator: 0x1234_5678,
            ..AsmOptions::default()
        };
        assert_eq!(
            assemble("%a = OpTypeVoid", opts).unwrap()[2..4],
            [0x1234_5678, 2]
        );
    }
}
