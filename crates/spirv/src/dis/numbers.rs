//! Numbers as spirv-dis prints them: integers by their type's width and signedness, 32- and
//! 64-bit floats in decimal with as many significant digits as the type needs to round-trip
//! (C's `%.9g` / `%.17g`), and the rest (16-bit floats, subnormals, infinities, NaNs) as
//! normalised hexadecimal floats (`0x1.998p-4`, `0x1p+128`, `-0x0p+0`).

/// An integer literal of `width` bits held in the low bits of `bits`.
pub fn integer(bits: u64, width: u32, signed: bool) -> String {
    let width = width.clamp(1, 64);
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let value = bits & mask;
    if signed && width < 64 && value >> (width - 1) & 1 == 1 {
        ((value | !mask) as i64).to_string()
    } else if signed && width == 64 {
        (value as i64).to_string()
    } else {
        value.to_string()
    }
}

/// The layout of a binary floating-point format.
#[derive(Clone, Copy)]
struct Format {
    mantissa_bits: u32,
    exponent_bits: u32,
}

impl Format {
    fn bias(self) -> i64 {
        (1i64 << (self.exponent_bits - 1)) - 1
    }
}

/// A float literal of `width` bits (16, 32 or 64) held in the low bits of `bits`.
pub fn float(bits: u64, width: u32) -> String {
    match width {
        16 => hex_float(
            bits & 0xffff,
            Format {
                mantissa_bits: 10,
                exponent_bits: 5,
            },
        ),
        32 => {
            let value = f32::from_bits(bits as u32);
            if value.is_normal() || value == 0.0 {
                general(f64::from(value), 9)
            } else {
                hex_float(
                    bits & 0xffff_ffff,
                    Format {
                        mantissa_bits: 23,
                        exponent_bits: 8,
                    },
                )
            }
        }
        _ => {
            let value = f64::from_bits(bits);
            if value.is_normal() || value == 0.0 {
                general(value, 17)
            } else {
                hex_float(
                    bits,
                    Format {
                        mantissa_bits: 52,
                        exponent_bits: 11,
                    },
                )
            }
        }
    }
}

/// C's `%.{precision}g`: the shorter of fixed and scientific notation with `precision`
/// significant digits, trailing zeros removed.
fn general(value: f64, precision: usize) -> String {
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let scientific = format!("{:.*e}", precision - 1, value);
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("Rust's {:e} has an exponent");
    let exponent: i64 = exponent.parse().expect("a decimal exponent");
    if exponent < -4 || exponent >= precision as i64 {
        let mantissa = trim_fraction(mantissa);
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.abs())
    } else {
        let decimals = (precision as i64 - 1 - exponent).max(0) as usize;
        trim_fraction(&format!("{value:.decimals$}")).to_string()
    }
}

/// `1.2500` → `1.25`, `3.000` → `3`; text without a point is returned as it is.
fn trim_fraction(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

/// A normalised hexadecimal float: `[-]0x1[.hhh]p±e`, subnormals shifted up to a leading 1,
/// infinities and NaNs with the exponent one past the largest, zero as `0x0p+0`.
fn hex_float(bits: u64, f: Format) -> String {
    let sign = if bits >> (f.mantissa_bits + f.exponent_bits) & 1 == 1 {
        "-"
    } else {
        ""
    };
    let biased = (bits >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
    let mut mantissa = bits & ((1u64 << f.mantissa_bits) - 1);
    if biased == 0 && mantissa == 0 {
        return format!("{sign}0x0p+0");
    }
    let mut exponent = if biased == 0 {
        1 - f.bias()
    } else {
        biased as i64 - f.bias()
    };
    if biased == 0 {
        while mantissa >> f.mantissa_bits & 1 == 0 {
            mantissa <<= 1;
            exponent -= 1;
        }
        mantissa &= (1u64 << f.mantissa_bits) - 1;
    }
    let digits = f.mantissa_bits.div_ceil(4);
    let shifted = mantissa << (digits * 4 - f.mantissa_bits);
    let hex = format!("{shifted:0width$x}", width = digits as usize);
    let hex = hex.trim_end_matches('0');
    let exp_sign = if exponent < 0 { '-' } else { '+' };
    if hex.is_empty() {
        format!("{sign}0x1p{exp_sign}{}", exponent.abs())
    } else {
        format!("{sign}0x1.{hex}p{exp_sign}{}", exponent.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_spirv_dis_prints_them() {
        let f = |v: f32| float(u64::from(v.to_bits()), 32);
        assert_eq!(f(0.1), "0.100000001");
        assert_eq!(f(3.0e38), "3.00000001e+38");
        assert_eq!(f(1.0e-7), "1.00000001e-07");
        assert_eq!(f(123_456_789.0), "123456792");
        assert_eq!(f(100_000.0), "100000");
        assert_eq!(f(-0.0), "-0");
        assert_eq!(f(f32::INFINITY), "0x1p+128");
        assert_eq!(f(f32::from_bits(1)), "0x1p-149");
        assert_eq!(float(0.1f64.to_bits(), 64), "0.10000000000000001");
        assert_eq!(float(1e300f64.to_bits(), 64), "1.0000000000000001e+300");
        assert_eq!(float(0x2e66, 16), "0x1.998p-4");
        assert_eq!(float(0x7c00, 16), "0x1p+16");
        assert_eq!(float(0xfe00, 16), "-0x1.8p+16");
        assert_eq!(float(0x7bff, 16), "0x1.ffcp+15");
        assert_eq!(float(0x8000, 16), "-0x0p+0");
    }

    #[test]
    fn integers_follow_width_and_signedness() {
        assert_eq!(integer(0xfffd, 16, true), "-3");
        assert_eq!(integer(0xffff, 16, false), "65535");
        assert_eq!(integer((-9_000_000_000i64) as u64, 64, true), "-9000000000");
        assert_eq!(integer(u64::MAX, 64, false), "18446744073709551615");
        assert_eq!(integer(0x80, 8, true), "-128");
    }
}
