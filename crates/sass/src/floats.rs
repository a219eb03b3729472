//! Float immediates as nvdisasm prints them (32-, 64- and 16-bit), and parsing them back.
//!
//! Infinities and NaNs print as a sign, a name and a blank (`+INF `, `-QNAN `, `+SNAN `):
//! a NaN is quiet when the top bit of its fraction is set, signalling otherwise, and its
//! payload is not printed (probed with nvdisasm 13.5 on every width: 0x7fc00000 and
//! 0x7fffffff both print `+QNAN`, 0x7f800001 and 0x7fa00000 `+SNAN`). So the text of a NaN
//! names a class of words; the assembler writes one canonical word per class
//! ([`special_bits`]). The decoder accepts every NaN word (its text assembles to the
//! canonical word, which differs only in payload bits) and the typed instruction keeps the
//! payload, so word -> typed -> word is exact; only text -> word picks the canonical NaN.

/// The name of a special value (infinity or NaN) of a float with sign `neg`, fraction
/// `frac` and quiet bit `quiet`, or `None` when the exponent is not all ones (`exp_max`).
fn special_name(neg: bool, exp_max: bool, frac: u64, quiet: u64) -> Option<String> {
    if !exp_max {
        return None;
    }
    let sign = if neg { '-' } else { '+' };
    let name = match (frac, frac & quiet != 0) {
        (0, _) => "INF",
        (_, true) => "QNAN",
        (_, false) => "SNAN",
    };
    Some(format!("{sign}{name} "))
}

/// The canonical word of a special value's text (`+INF`, `-QNAN`, `+SNAN`, ...; trailing
/// blank optional) in a float of `bits` bits whose fraction is `frac_bits` wide: the
/// infinity, or the NaN of that sign and class with every payload bit set. For quiet NaNs
/// that is what ptxas writes when it makes a NaN itself (it folds `sqrt.rn.f32` of -1 to
/// 0x7fffffff, CUDA's canonical NaN); signalling NaNs take the same rule below the quiet bit.
pub(crate) fn special_bits(text: &str, bits: u32, frac_bits: u32) -> Option<u64> {
    let t = text.trim();
    let (neg, name) = match t.split_at_checked(1)? {
        ("+", n) => (false, n),
        ("-", n) => (true, n),
        _ => return None,
    };
    let sign = u64::from(neg) << (bits - 1);
    let exp = ((1u64 << (bits - 1 - frac_bits)) - 1) << frac_bits;
    let quiet = 1u64 << (frac_bits - 1);
    let frac = match name {
        "INF" => 0,
        "QNAN" => (1u64 << frac_bits) - 1,
        "SNAN" => quiet - 1,
        _ => return None,
    };
    Some(sign | exp | frac)
}

/// Formats a 32-bit float immediate the way nvdisasm does.
pub fn format_f32(bits: u32) -> Option<String> {
    let b = bits as u64;
    if let Some(s) = special_name(
        b >> 31 == 1,
        (b >> 23) & 0xff == 0xff,
        b & 0x7f_ffff,
        1 << 22,
    ) {
        return Some(s);
    }
    format_float(f32::from_bits(bits) as f64)
}

/// The value of a finite IEEE half-precision number.
fn f16_value(bits: u16) -> Option<f64> {
    let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = (bits >> 10) & 0x1f;
    let frac = (bits & 0x3ff) as f64;
    match exp {
        0x1f => None,
        0 => Some(sign * frac * 2f64.powi(-24)),
        e => Some(sign * (1.0 + frac / 1024.0) * 2f64.powi(e as i32 - 15)),
    }
}

/// Formats a 16-bit float immediate like [`format_f32`], but negative zero as `-0.0 `, as
/// nvdisasm prints it (all 65,536 patterns: `tests/bf16.rs`).
pub fn format_f16(bits: u16) -> Option<String> {
    if bits == 0x8000 {
        return Some("-0.0 ".to_string());
    }
    let b = bits as u64;
    if let Some(s) = special_name(b >> 15 == 1, (b >> 10) & 0x1f == 0x1f, b & 0x3ff, 1 << 9) {
        return Some(s);
    }
    format_float(f16_value(bits)?)
}

/// The half-precision number that prints as `text` (a special value: its canonical word).
pub(crate) fn parse_f16(text: &str) -> Option<u16> {
    if text.trim() == "-0.0" {
        return Some(0x8000);
    }
    if let Some(b) = special_bits(text, 16, 10) {
        return Some(b as u16);
    }
    static TABLE: std::sync::OnceLock<std::collections::HashMap<String, u16>> =
        std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut m = std::collections::HashMap::new();
        for b in (0..=u16::MAX).filter(|&b| b != 0x8000) {
            if let Some(t) = f16_value(b).and_then(format_float) {
                m.entry(t).or_insert(b);
            }
        }
        m
    });
    table.get(text).copied()
}

/// Formats a bfloat16 immediate (`.BF16_V2` HFMA2) as nvdisasm does: as the 32-bit float
/// whose high half it is, except negative zero, which prints `-0.0 ` (with a blank, as
/// special values do; `0` prints `0`). Checked on all 65,536 patterns (`tests/bf16.rs`).
pub fn format_bf16(bits: u16) -> Option<String> {
    if bits == 0x8000 {
        return Some("-0.0 ".to_string());
    }
    format_f32(u32::from(bits) << 16)
}

/// The bfloat16 immediate that prints as `text` (a special value: its canonical word).
pub(crate) fn parse_bf16(text: &str) -> Option<u16> {
    let t = text.trim();
    if t == "-0.0" {
        return Some(0x8000);
    }
    if let Some(b) = special_bits(t, 16, 7) {
        return Some(b as u16);
    }
    // A finite value: the f32 it names must have a zero low half and print back as given.
    let bits = t.parse::<f32>().ok()?.to_bits();
    let half = u16::try_from(bits >> 16).ok()?;
    (bits & 0xffff == 0 && half != 0x8000 && format_bf16(half)?.trim() == t).then_some(half)
}

/// Formats a 64-bit float immediate (DFMA's high word) like [`format_f32`].
pub fn format_f64(bits: u64) -> Option<String> {
    let exp_max = (bits >> 52) & 0x7ff == 0x7ff;
    if let Some(s) = special_name(bits >> 63 == 1, exp_max, bits & ((1 << 52) - 1), 1 << 51) {
        return Some(s);
    }
    format_float(f64::from_bits(bits))
}

fn format_float(v: f64) -> Option<String> {
    if v == 0.0 {
        return Some(if v.is_sign_negative() { "-0" } else { "0" }.to_string());
    }
    if v.abs() >= 1e9 {
        // From 1e9 up (probed on powers of two and decimals, 32- and 64-bit immediates):
        // 21 significant digits in exponent form, `1.00000000000000000000e+10`; below,
        // integers print plainly (`999999936`). Found by the random-field test.
        let r = format!("{:.20e}", v);
        let (m, e) = r.split_once('e')?;
        let e: i32 = e.parse().ok()?;
        return Some(format!(
            "{m}e{}{:02}",
            if e < 0 { '-' } else { '+' },
            e.abs()
        ));
    }
    if v.fract() == 0.0 {
        return Some(format!("{}", v as i64));
    }
    // Exact decimal expansion, then at most 20 significant digits.
    let exact = format!("{:.70e}", v);
    let (mant, _) = exact.split_once('e')?;
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let sig = digits.trim_end_matches('0').len();
    let (mant, exp) = if sig > 20 {
        let r = format!("{:.19e}", v);
        let (m, e) = r.split_once('e')?;
        (m.to_string(), e.parse::<i32>().ok()?)
    } else {
        let r = format!("{:.*e}", sig.saturating_sub(1), v);
        let (m, e) = r.split_once('e')?;
        (m.to_string(), e.parse::<i32>().ok()?)
    };
    let neg = mant.starts_with('-');
    // Rounded to 20 significant digits, trailing zeros dropped (`1.175494350822287508e-38`
    // for 1.1754943508222875080e-38; found by the random-field test).
    let ds: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let ds = match ds.trim_end_matches('0') {
        "" => "0".to_string(),
        t => t.to_string(),
    };
    let sign = if neg { "-" } else { "" };
    if exp < -4 {
        let rest = &ds[1..];
        let m = if rest.is_empty() {
            ds[..1].to_string()
        } else {
            format!("{}.{}", &ds[..1], rest)
        };
        return Some(format!("{sign}{m}e-{:02}", -exp));
    }
    if exp < 0 {
        let zeros = "0".repeat((-exp - 1) as usize);
        return Some(format!("{sign}0.{zeros}{ds}"));
    }
    let e = exp as usize;
    if ds.len() <= e + 1 {
        return Some(format!("{sign}{ds}{}", "0".repeat(e + 1 - ds.len())));
    }
    Some(format!("{sign}{}.{}", &ds[..e + 1], &ds[e + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_prints_as_the_high_half_of_an_f32_but_negative_zero() {
        // Facts from nvdisasm 13.5 (`HFMA2.MMA.BF16_V2` on SM90; all patterns: tests/bf16.rs).
        let cases: &[(u16, &str)] = &[
            (0x3f80, "1"),
            (0x3c00, "0.0078125"),
            (0x0000, "0"),
            (0x8000, "-0.0 "),
            (0x0001, "9.183549615799121156e-41"),
            (0xff00, "-1.70141183460469231732e+38"),
            (0x7fc0, "+QNAN "),
        ];
        for &(b, t) in cases {
            assert_eq!(format_bf16(b).unwrap(), t);
            let back = parse_bf16(t).unwrap();
            assert_eq!(format_bf16(back).unwrap(), t);
        }
        assert_eq!(parse_bf16("-0.0"), Some(0x8000));
        // f16 alike (nvdisasm 13.5 on HFMA2.MMA, SM80).
        assert_eq!(format_f16(0x8000).unwrap(), "-0.0 ");
        assert_eq!(parse_f16("-0.0"), Some(0x8000));
        assert_eq!(parse_f16("-0"), None);
        // An f32 with a non-zero low half is no bf16.
        assert_eq!(parse_bf16("1.00000011920928955078"), None);
    }

    #[test]
    fn floats_print_like_nvdisasm() {
        let cases: &[(f32, &str)] = &[
            (0.5, "0.5"),
            (2.5, "2.5"),
            (100.0, "100"),
            (-126.0, "-126"),
            (-1.0, "-1"),
            (f32::INFINITY, "+INF "),
            (f32::from_bits(0x2f80_0000), "2.3283064365386962891e-10"),
            (f32::from_bits(0x3e22_f983), "0.15915493667125701904"),
            (18446744073709551616.0, "1.84467440737095516160e+19"),
            (999999936.0, "999999936"),
            (1e9, "1.00000000000000000000e+09"),
            (-1e10, "-1.00000000000000000000e+10"),
            (f32::MIN_POSITIVE, "1.175494350822287508e-38"),
        ];
        for (v, t) in cases {
            assert_eq!(format_f32(v.to_bits()).unwrap(), *t);
        }
    }

    /// Special values and extremes of every width, as nvdisasm 13.5 printed them (SM80
    /// words: FADD and DFMA immediates, HFMA2.MMA's halves).
    #[test]
    fn special_values_print_like_nvdisasm() {
        let f32s: &[(u32, &str)] = &[
            (0x7fc0_0000, "+QNAN "),
            (0x7fff_ffff, "+QNAN "),
            (0xffff_ffff, "-QNAN "),
            (0x7f80_0001, "+SNAN "),
            (0x7fbf_ffff, "+SNAN "),
            (0xffa0_0000, "-SNAN "),
            (0xff80_0000, "-INF "),
            (0x0000_0001, "1.4012984643248170709e-45"),
            (0x807f_ffff, "-1.1754942106924410755e-38"),
            (0x7f7f_ffff, "3.40282346638528859812e+38"),
        ];
        for (b, t) in f32s {
            assert_eq!(format_f32(*b).unwrap(), *t, "{b:#x}");
        }
        let f64s: &[(u32, &str)] = &[
            (0x7fff_ffff, "+QNAN "),
            (0x7ff7_ffff, "+SNAN "),
            (0xfff0_0001, "-SNAN "),
            (0x0000_0001, "2.1219957909652723151e-314"),
            (0x7fef_ffff, "1.79769227765543015872e+308"),
            (0x0010_0000, "2.2250738585072013831e-308"),
            (0x000f_ffff, "2.2250717365114104178e-308"),
        ];
        for (hi, t) in f64s {
            assert_eq!(format_f64((*hi as u64) << 32).unwrap(), *t, "{hi:#x}");
        }
        let f16s: &[(u16, &str)] = &[
            (0x7c01, "+SNAN "),
            (0xfe00, "-QNAN "),
            (0x7fff, "+QNAN "),
            (0xfc00, "-INF "),
            (0x7c00, "+INF "),
            (0x0001, "5.9604644775390625e-08"),
            (0x03ff, "6.0975551605224609375e-05"),
            (0xfdff, "-SNAN "),
            (0x8001, "-5.9604644775390625e-08"),
        ];
        for (b, t) in f16s {
            assert_eq!(format_f16(*b).unwrap(), *t, "{b:#x}");
        }
    }

    /// Each special text assembles to its canonical word, which prints as the same text.
    #[test]
    fn special_texts_have_canonical_words() {
        let cases: &[(&str, u64, u64, u16)] = &[
            ("+INF", 0x7f80_0000, 0x7ff0_0000_0000_0000, 0x7c00),
            ("-INF ", 0xff80_0000, 0xfff0_0000_0000_0000, 0xfc00),
            ("+QNAN ", 0x7fff_ffff, 0x7fff_ffff_ffff_ffff, 0x7fff),
            ("-QNAN", 0xffff_ffff, 0xffff_ffff_ffff_ffff, 0xffff),
            ("+SNAN", 0x7fbf_ffff, 0x7ff7_ffff_ffff_ffff, 0x7dff),
            ("-SNAN", 0xffbf_ffff, 0xfff7_ffff_ffff_ffff, 0xfdff),
        ];
        for &(t, b32, b64, b16) in cases {
            assert_eq!(special_bits(t, 32, 23), Some(b32), "{t}");
            assert_eq!(special_bits(t, 64, 52), Some(b64), "{t}");
            assert_eq!(parse_f16(t), Some(b16), "{t}");
            assert_eq!(format_f32(b32 as u32).unwrap().trim(), t.trim());
            assert_eq!(format_f64(b64).unwrap().trim(), t.trim());
            assert_eq!(format_f16(b16).unwrap().trim(), t.trim());
        }
        assert_eq!(special_bits("NAN", 32, 23), None);
        assert_eq!(special_bits("+NAN", 32, 23), None);
    }
}
