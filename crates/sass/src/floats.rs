//! Float immediates as nvdisasm prints them (32-, 64- and 16-bit), and parsing them back.

/// Formats a 32-bit float immediate the way nvdisasm does, or `None` where its rule is not
/// known (NaNs).
pub fn format_f32(bits: u32) -> Option<String> {
    let v = f32::from_bits(bits);
    if v.is_nan() {
        return None;
    }
    if v.is_infinite() {
        return Some(if v > 0.0 { "+INF " } else { "-INF " }.to_string());
    }
    format_float(v as f64)
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

/// Formats a 16-bit float immediate like [`format_f32`] (infinities and NaNs refused).
pub fn format_f16(bits: u16) -> Option<String> {
    format_float(f16_value(bits)?)
}

/// The half-precision number that prints as `text`.
pub(crate) fn parse_f16(text: &str) -> Option<u16> {
    static TABLE: std::sync::OnceLock<std::collections::HashMap<String, u16>> =
        std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut m = std::collections::HashMap::new();
        for b in 0..=u16::MAX {
            if let Some(t) = format_f16(b) {
                m.entry(t).or_insert(b);
            }
        }
        m
    });
    table.get(text).copied()
}

/// Formats a 64-bit float immediate (DFMA's high word) like [`format_f32`].
pub fn format_f64(bits: u64) -> Option<String> {
    let v = f64::from_bits(bits);
    if v.is_nan() {
        return None;
    }
    if v.is_infinite() {
        return Some(if v > 0.0 { "+INF " } else { "-INF " }.to_string());
    }
    format_float(v)
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
}
