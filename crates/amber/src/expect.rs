//! Checking an `EXPECT` against buffer contents, with amber's comparison rules.

use crate::model::*;

/// Relative epsilon amber's verifier uses for float `EQ`/`NE` without `TOLERANCE`
/// (`kEpsilon` = 0.000001 taken as a percentage).
const FLOAT_EQ_RELATIVE: f64 = 0.000001 / 100.0;

/// Why an `EXPECT` failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FailureKind {
    /// The runner has no contents for a buffer.
    #[error("no contents for buffer `{0}`")]
    MissingBuffer(String),
    /// The probe reads past the end of the buffer.
    #[error("reading up to byte {end} of buffer `{buffer}` would read outside its {size} bytes")]
    OutOfBounds {
        /// The buffer.
        buffer: String,
        /// One past the last byte the probe needs.
        end: usize,
        /// The buffer's size.
        size: usize,
    },
    /// A value differs.
    #[error(
        "{actual} {op} {expected} fails at value {value_index} (element {element_index}, component {component}, byte offset {byte_offset})",
        op = comparator.symbol()
    )]
    Mismatch {
        /// The comparator.
        comparator: Comparator,
        /// Index into the EXPECT's value list (amber's "at index").
        value_index: usize,
        /// Element index in the buffer.
        element_index: usize,
        /// Component within the element.
        component: usize,
        /// Byte offset in the buffer.
        byte_offset: usize,
        /// Expected value, formatted.
        expected: String,
        /// Actual value, formatted.
        actual: String,
    },
    /// `EQ_BUFFER` etc. on buffers of different element types.
    #[error("buffers `{a}` and `{b}` have different formats ({fa} and {fb})")]
    FormatMismatch {
        /// First buffer.
        a: String,
        /// Second buffer.
        b: String,
        /// Its type.
        fa: String,
        /// The other's type.
        fb: String,
    },
    /// Buffers of different sizes.
    #[error("buffers `{a}` ({size_a} bytes) and `{b}` ({size_b} bytes) have different sizes")]
    SizeMismatch {
        /// First buffer.
        a: String,
        /// Its size.
        size_a: usize,
        /// Second buffer.
        b: String,
        /// Its size.
        size_b: usize,
    },
    /// `EQ_BUFFER`: contents differ.
    #[error("buffers differ in {differing} values; first at element {element_index}, component {component} (byte offset {byte_offset}): {actual} vs {expected}")]
    BuffersDiffer {
        /// Number of differing component values.
        differing: usize,
        /// Element of the first difference.
        element_index: usize,
        /// Component of the first difference.
        component: usize,
        /// Byte offset of the first difference.
        byte_offset: usize,
        /// Value in the first buffer.
        actual: String,
        /// Value in the second buffer.
        expected: String,
    },
    /// `RMSE_BUFFER` above tolerance.
    #[error("root mean square error {rmse} is greater than tolerance {tolerance}")]
    Rmse {
        /// Measured.
        rmse: f64,
        /// Allowed.
        tolerance: f64,
    },
    /// `EQ_HISTOGRAM_EMD_BUFFER` above tolerance.
    #[error("histogram earth mover's distance {emd} is greater than tolerance {tolerance}")]
    HistogramEmd {
        /// Measured.
        emd: f64,
        /// Allowed.
        tolerance: f64,
    },
    /// `EQ_HISTOGRAM_EMD_BUFFER` on a buffer whose components are not 8-bit.
    #[error("EQ_HISTOGRAM_EMD_BUFFER needs 8-bit components, buffer holds {0}")]
    NotEightBit(String),
}

/// A failed `EXPECT`: the script line and what failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("Line {line}: {kind}")]
pub struct ExpectFailure {
    /// Line of the `EXPECT`.
    pub line: u32,
    /// What failed.
    pub kind: FailureKind,
}

/// Checks one `EXPECT` against the current buffer contents, which `buffers` returns by
/// name. Reports the first mismatching value like amber's verifier does (plus the element
/// index and byte offset).
pub fn check_expect<'a>(
    expect: &Expect,
    buffers: &dyn Fn(&str) -> Option<&'a [u8]>,
) -> Result<(), ExpectFailure> {
    let fail = |kind| {
        Err(ExpectFailure {
            line: expect.pos.line,
            kind,
        })
    };
    let get = |name: &str| buffers(name).ok_or_else(|| FailureKind::MissingBuffer(name.into()));
    match &expect.kind {
        ExpectKind::Values {
            buffer,
            format,
            offset,
            cmp,
            tolerance,
            values,
        } => {
            let data = match get(buffer) {
                Ok(d) => d,
                Err(k) => return fail(k),
            };
            let scalar = format.ty.scalar;
            let s = scalar.size();
            if let Some(last) = values.len().checked_sub(1) {
                let end = offset + format.value_offset(last) + s;
                if end > data.len() {
                    return fail(FailureKind::OutOfBounds {
                        buffer: buffer.to_string(),
                        end,
                        size: data.len(),
                    });
                }
            }
            let n = format.ty.values_per_element();
            if *cmp == Comparator::Eq
                && !scalar.is_float()
                && integers_equal(data, *offset, format, values)
            {
                // Integer equality is equality of the bits within the width: nothing to
                // decode when every value holds (a mismatch is reported below).
                return Ok(());
            }
            for (i, &bits) in values.iter().enumerate() {
                let at = offset + format.value_offset(i);
                let actual = scalar.decode(&data[at..]);
                let want = scalar.from_bits(bits);
                if !compare(*cmp, actual, want, tolerance.first()) {
                    return fail(FailureKind::Mismatch {
                        comparator: *cmp,
                        value_index: i,
                        element_index: (offset / format.stride()) + i / n,
                        component: i % n,
                        byte_offset: at,
                        expected: want.to_string(),
                        actual: actual.to_string(),
                    });
                }
            }
            Ok(())
        }
        ExpectKind::EqBuffer {
            a,
            b,
            format_a,
            format_b,
        }
        | ExpectKind::RmseBuffer {
            a,
            b,
            format_a,
            format_b,
            ..
        }
        | ExpectKind::HistogramEmdBuffer {
            a,
            b,
            format_a,
            format_b,
            ..
        } => {
            if format_a.ty != format_b.ty || format_a.stride() != format_b.stride() {
                return fail(FailureKind::FormatMismatch {
                    a: a.clone(),
                    b: b.clone(),
                    fa: format_a.ty.to_string(),
                    fb: format_b.ty.to_string(),
                });
            }
            let (da, db) = match (get(a), get(b)) {
                (Ok(x), Ok(y)) => (x, y),
                (Err(k), _) | (_, Err(k)) => return fail(k),
            };
            if da.len() != db.len() {
                return fail(FailureKind::SizeMismatch {
                    a: a.clone(),
                    size_a: da.len(),
                    b: b.clone(),
                    size_b: db.len(),
                });
            }
            let f = *format_a;
            let scalar = f.ty.scalar;
            let n = f.ty.values_per_element();
            let count = (da.len() / f.stride()) * n;
            let at = |i: usize| f.value_offset(i);
            match &expect.kind {
                ExpectKind::EqBuffer { .. } => {
                    let s = scalar.size();
                    let mut first = None;
                    let mut differing = 0;
                    for i in 0..count {
                        let o = at(i);
                        if da[o..o + s] != db[o..o + s] {
                            differing += 1;
                            first.get_or_insert(i);
                        }
                    }
                    match first {
                        None => Ok(()),
                        Some(i) => fail(FailureKind::BuffersDiffer {
                            differing,
                            element_index: i / n,
                            component: i % n,
                            byte_offset: at(i),
                            actual: scalar.decode(&da[at(i)..]).to_string(),
                            expected: scalar.decode(&db[at(i)..]).to_string(),
                        }),
                    }
                }
                ExpectKind::RmseBuffer { tolerance, .. } => {
                    let mut sum = 0.0;
                    for i in 0..count {
                        let d = scalar.decode(&da[at(i)..]).as_f64()
                            - scalar.decode(&db[at(i)..]).as_f64();
                        sum += d * d;
                    }
                    let rmse = if count == 0 {
                        0.0
                    } else {
                        (sum / count as f64).sqrt()
                    };
                    if rmse > *tolerance {
                        return fail(FailureKind::Rmse {
                            rmse,
                            tolerance: *tolerance,
                        });
                    }
                    Ok(())
                }
                ExpectKind::HistogramEmdBuffer { tolerance, .. } => {
                    if scalar.size() != 1 {
                        return fail(FailureKind::NotEightBit(f.ty.to_string()));
                    }
                    let emd = histogram_emd(da, db, f);
                    if emd > *tolerance {
                        return fail(FailureKind::HistogramEmd {
                            emd,
                            tolerance: *tolerance,
                        });
                    }
                    Ok(())
                }
                ExpectKind::Values { .. } => unreachable!("handled above"),
            }
        }
    }
}

/// Per-component 256-bin histograms, normalised; the largest earth mover's distance over
/// the components (the 1-D EMD is the summed absolute difference of the cumulative
/// histograms), scaled by 1/256.
fn histogram_emd(a: &[u8], b: &[u8], f: ElementFormat) -> f64 {
    let n = f.ty.components as usize;
    let elements = a.len() / f.stride();
    if elements == 0 {
        return 0.0;
    }
    let mut worst: f64 = 0.0;
    for c in 0..n {
        let mut ha = [0f64; 256];
        let mut hb = [0f64; 256];
        for e in 0..elements {
            let o = f.value_offset(e * n + c);
            ha[a[o] as usize] += 1.0;
            hb[b[o] as usize] += 1.0;
        }
        let (mut ca, mut cb, mut emd) = (0.0, 0.0, 0.0);
        for k in 0..256 {
            ca += ha[k] / elements as f64;
            cb += hb[k] / elements as f64;
            emd += f64::abs(ca - cb);
        }
        worst = worst.max(emd / 256.0);
    }
    worst
}

/// Whether every integer value of `values` (bit patterns of `format`'s scalar type,
/// component by component from byte `offset`) equals the bits in `data` within the
/// scalar's width. The caller has checked that the last value lies inside `data`.
fn integers_equal(data: &[u8], offset: usize, format: &ElementFormat, values: &[u64]) -> bool {
    let scalar = format.ty.scalar;
    let (s, m) = (scalar.size(), scalar.mask());
    // Fixed-size reads (no copy through a byte buffer of variable length).
    let read = |at: usize| -> u64 {
        let b = &data[at..at + s];
        match b.len() {
            1 => u64::from(b[0]),
            2 => u64::from(u16::from_le_bytes([b[0], b[1]])),
            4 => u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            _ => u64::from_le_bytes(b.try_into().expect("an 8-byte scalar")),
        }
    };
    if format.ty.values_per_element() == 1 {
        let stride = format.stride();
        if (s, stride) == (4, 4) {
            // Tightly packed 32-bit values (the common `uint32` list) word by word.
            let Some(words) = data.get(offset..offset + 4 * values.len()) else {
                return false;
            };
            // The differences of the whole run or-ed together, without stopping at the
            // first (mismatches are rare and found again by the caller's loop), so that the
            // compiler compares several values per instruction.
            let differences = words
                .chunks_exact(4)
                .zip(values)
                .fold(0, |any, (w, &bits)| {
                    any | (u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]])) ^ bits)
                });
            return differences & m == 0;
        }
        values
            .iter()
            .enumerate()
            .all(|(i, &bits)| (read(offset + i * stride) ^ bits) & m == 0)
    } else {
        values
            .iter()
            .enumerate()
            .all(|(i, &bits)| (read(offset + format.value_offset(i)) ^ bits) & m == 0)
    }
}

fn compare(cmp: Comparator, actual: Num, want: Num, tol: Option<&Tolerance>) -> bool {
    use std::cmp::Ordering::*;
    let within = |t: f64, percent: bool| {
        let (a, e) = (actual.as_f64(), want.as_f64());
        let diff = (a - e).abs();
        if percent {
            diff <= t / 100.0 * e.abs()
        } else {
            diff <= t
        }
    };
    let order = match (actual, want) {
        (Num::Int(a), Num::Int(e)) => Some(a.cmp(&e)),
        _ => actual.as_f64().partial_cmp(&want.as_f64()),
    };
    let is_int = matches!(actual, Num::Int(_));
    match cmp {
        Comparator::Eq if is_int => order == Some(Equal),
        Comparator::Ne if is_int => order != Some(Equal),
        Comparator::Eq => within(FLOAT_EQ_RELATIVE * 100.0, true),
        Comparator::Ne => !within(FLOAT_EQ_RELATIVE * 100.0, true),
        Comparator::FuzzyEq => match tol {
            Some(t) => within(t.value, t.percent),
            None => within(FLOAT_EQ_RELATIVE * 100.0, true),
        },
        Comparator::Lt => order == Some(Less),
        Comparator::Le => matches!(order, Some(Less | Equal)),
        Comparator::Gt => order == Some(Greater),
        Comparator::Ge => matches!(order, Some(Greater | Equal)),
    }
}
