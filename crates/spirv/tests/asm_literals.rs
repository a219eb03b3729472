//! Property tests of typed literals: any value printed the way spirv-dis prints it (or in
//! hex) must assemble to exactly its bits. No oracle: the expected words come from Rust.

use proptest::prelude::*;
use tangle_spirv::asm::{assemble, AsmOptions};

/// The operand words of `%c = OpConstant %t <literal>` for a type declared by `decl`.
fn constant(decl: &str, literal: &str) -> Result<Vec<u32>, String> {
    let text = format!("%t = {decl}\n%c = OpConstant %t {literal}\n");
    let words = assemble(&text, AsmOptions::default()).map_err(|e| e.to_string())?;
    // Header (5) + type instruction + OpConstant's opcode, type and result words.
    let type_len = (words[5] >> 16) as usize;
    Ok(words[5 + type_len + 3..].to_vec())
}

fn split64(v: u64) -> Vec<u32> {
    vec![v as u32, (v >> 32) as u32]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn f32_shortest_decimal_round_trips(bits in any::<u32>()) {
        let v = f32::from_bits(bits);
        prop_assume!(v.is_finite());
        prop_assert_eq!(constant("OpTypeFloat 32", &format!("{v:?}")), Ok(vec![bits]));
        prop_assert_eq!(constant("OpTypeFloat 32", &format!("{v:e}")), Ok(vec![bits]));
    }

    #[test]
    fn f64_shortest_decimal_round_trips(bits in any::<u64>()) {
        let v = f64::from_bits(bits);
        prop_assume!(v.is_finite());
        prop_assert_eq!(constant("OpTypeFloat 64", &format!("{v:e}")), Ok(split64(bits)));
    }

    #[test]
    fn signed_ints_in_decimal_and_hex(v in any::<i64>(), width in prop::sample::select(vec![8u32, 16, 32, 64])) {
        let v = if width == 64 { v } else { v >> (64 - width) };
        let bits = v as u64 & if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
        let expected = if width == 64 { split64(v as u64) } else { vec![v as i32 as u32] };
        let decl = format!("OpTypeInt {width} 1");
        prop_assert_eq!(constant(&decl, &v.to_string()), Ok(expected.clone()));
        prop_assert_eq!(constant(&decl, &format!("{bits:#x}")), Ok(expected));
    }

    #[test]
    fn unsigned_ints_in_decimal_hex_and_octal(v in any::<u64>(), width in prop::sample::select(vec![8u32, 16, 32, 64])) {
        let v = if width == 64 { v } else { v >> (64 - width) };
        let expected = if width == 64 { split64(v) } else { vec![v as u32] };
        let decl = format!("OpTypeInt {width} 0");
        prop_assert_eq!(constant(&decl, &v.to_string()), Ok(expected.clone()));
        prop_assert_eq!(constant(&decl, &format!("{v:#X}")), Ok(expected.clone()));
        prop_assert_eq!(constant(&decl, &format!("0{v:o}")), Ok(expected));
    }

    #[test]
    fn one_past_the_range_is_refused(width in prop::sample::select(vec![8u32, 16, 32])) {
        let signed = format!("OpTypeInt {width} 1");
        let unsigned = format!("OpTypeInt {width} 0");
        prop_assert!(constant(&signed, &(1i64 << (width - 1)).to_string()).is_err());
        prop_assert!(constant(&signed, &(-(1i64 << (width - 1)) - 1).to_string()).is_err());
        prop_assert!(constant(&unsigned, &(1i64 << width).to_string()).is_err());
    }

    #[test]
    fn hex_floats_of_f64_values_round_trip(bits in any::<u64>()) {
        // spirv-dis-style hex float: 0x1.<13 hex digits>p<exp> for normal numbers.
        let v = f64::from_bits(bits);
        prop_assume!(v.is_normal());
        let mantissa = bits & ((1u64 << 52) - 1);
        let exp = ((bits >> 52) & 0x7ff) as i64 - 1023;
        let sign = if v < 0.0 { "-" } else { "" };
        let text = format!("{sign}0x1.{mantissa:013x}p{exp:+}");
        prop_assert_eq!(constant("OpTypeFloat 64", &text), Ok(split64(bits)));
    }
}

#[test]
fn every_f16_hex_float_round_trips() {
    // All finite halves, printed as spirv-dis does: 0x1.<3 hex digits>p<exp> (the 10 mantissa
    // bits shifted up to 12), 0x1p-24-style subnormals and zeros.
    for bits in 0u32..0x10000 {
        let sign = if bits & 0x8000 != 0 { "-" } else { "" };
        let exp = (bits >> 10) & 0x1f;
        let mant = bits & 0x3ff;
        let text = match exp {
            0x1f => continue,
            0 if mant == 0 => format!("{sign}0x0p+0"),
            0 => {
                // value = mant * 2^-24
                let top = 31 - mant.leading_zeros();
                let frac = (mant ^ (1 << top)) << (12 - top);
                format!("{sign}0x1.{frac:03x}p{}", top as i32 - 24)
            }
            _ => format!("{sign}0x1.{:03x}p{:+}", mant << 2, exp as i32 - 15),
        };
        assert_eq!(constant("OpTypeFloat 16", &text), Ok(vec![bits]), "{text}");
    }
}
