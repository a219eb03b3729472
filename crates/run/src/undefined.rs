//! Undefined buffer bytes against `EXPECT`s: the interpreter reports which bytes a run left
//! undefined (results SPIR-V leaves undefined that reached memory); a check reading one
//! fails, whatever value happens to be there.

use rustc_hash::FxHashMap;
use tangle_amber::{ElementFormat, Expect, ExpectKind};

/// The byte ranges (start, length) an `EXPECT` reads, by buffer name; `len` gives a
/// buffer's size (whole-buffer comparisons read every value of it, padding skipped).
pub fn expect_reads<'e>(
    expect: &'e Expect,
    len: &dyn Fn(&str) -> usize,
) -> Vec<(&'e str, Vec<(usize, usize)>)> {
    let values = |format: &ElementFormat, start: usize, n: usize| -> Vec<(usize, usize)> {
        let s = format.ty.scalar.size();
        (0..n)
            .map(|i| (start + format.value_offset(i), s))
            .collect()
    };
    let whole = |buffer: &'e str, format: &ElementFormat| {
        let n = (len(buffer) / format.stride()) * format.ty.values_per_element();
        (buffer, values(format, 0, n))
    };
    match &expect.kind {
        ExpectKind::Values {
            buffer,
            format,
            offset,
            values: v,
            ..
        } => vec![(&**buffer, values(format, *offset, v.len()))],
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
        } => vec![whole(a, format_a), whole(b, format_b)],
    }
}

/// The first undefined byte an `EXPECT` reads: (buffer, byte offset, how many of the bytes
/// it reads are undefined). `undefined` holds per-byte masks of the buffers that have
/// undefined bytes.
pub fn undefined_read(
    expect: &Expect,
    undefined: &FxHashMap<String, Vec<bool>>,
) -> Option<(String, usize, usize)> {
    if undefined.is_empty() {
        // The common case: the runs left every byte defined (nothing to list per value).
        return None;
    }
    let mut first: Option<(String, usize)> = None;
    let mut count = 0;
    let len = |b: &str| undefined.get(b).map_or(0, Vec::len);
    for (buffer, ranges) in expect_reads(expect, &len) {
        let Some(mask) = undefined.get(buffer) else {
            continue;
        };
        for (start, n) in ranges {
            let end = start.saturating_add(n).min(mask.len());
            for (i, u) in mask.iter().enumerate().take(end).skip(start) {
                if *u {
                    count += 1;
                    first.get_or_insert_with(|| (buffer.to_string(), i));
                }
            }
        }
    }
    first.map(|(b, at)| (b, at, count))
}
