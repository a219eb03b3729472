//! Helpers of the oracle tests: `.nv.info` attribute lists and nvdisasm-style listings
//! reduced to their code.

#![allow(dead_code)]

use std::collections::BTreeMap;

/// One `.nv.info` attribute: format, number and payload (the 16-bit value for formats 1-3,
/// the bytes for format 4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attr {
    pub fmt: u8,
    pub attr: u8,
    pub payload: Vec<u8>,
}

/// Parses an attribute list.
pub fn attrs(d: &[u8]) -> Vec<Attr> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 4 <= d.len() {
        let (fmt, attr) = (d[at], d[at + 1]);
        let v = [d[at + 2], d[at + 3]];
        at += 4;
        if fmt == 4 {
            let len = u16::from_le_bytes(v) as usize;
            out.push(Attr {
                fmt,
                attr,
                payload: d[at..at + len].to_vec(),
            });
            at += len;
        } else {
            out.push(Attr {
                fmt,
                attr,
                payload: v.to_vec(),
            });
        }
    }
    assert_eq!(at, d.len(), "attribute list runs past its section");
    out
}

/// The 32-bit little-endian words of a payload.
pub fn words(p: &[u8]) -> Vec<u32> {
    p.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The code of a listing (nvdisasm's `-c` output or tangle's), per function: the
/// instructions as `(address, text)` with label operands replaced by the address they
/// name, so two listings compare equal when their code is equal whatever their labels
/// are called. Blanks are collapsed and the trailing `;` dropped.
pub fn listing_code(text: &str) -> BTreeMap<String, Vec<(u64, String)>> {
    let mut out: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    let mut labels: BTreeMap<String, u64> = BTreeMap::new();
    let mut pending: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    let mut raw: Vec<(String, u64, String)> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix(".section") {
            let name = rest.split([',', ' ', '\t']).find(|s| !s.is_empty());
            if let Some(f) = name.and_then(|n| n.strip_prefix(".text.")) {
                current = Some(f.to_string());
            }
            continue;
        }
        if let Some(l) = t.strip_suffix(':') {
            if !l.contains(' ') {
                if let Some(f) = l.strip_prefix(".text.") {
                    if current.as_deref() != Some(f) {
                        current = Some(f.to_string());
                    }
                }
                pending.push(l.to_string());
                continue;
            }
        }
        if let Some(rest) = t.strip_prefix("/*") {
            let Some((addr, body)) = rest.split_once("*/") else {
                continue;
            };
            let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
                continue;
            };
            let f = current
                .clone()
                .expect("an instruction outside any function");
            for l in pending.drain(..) {
                labels.insert(format!("{f}/{l}"), addr);
            }
            let body = body.split("/*").next().unwrap_or("");
            let body = body.trim().trim_end_matches(';').trim();
            let body = body.split_whitespace().collect::<Vec<_>>().join(" ");
            raw.push((f, addr, body));
        }
    }
    for (f, addr, body) in raw {
        let mut s = String::new();
        let mut rest = body.as_str();
        while let Some(i) = rest.find("`(") {
            s.push_str(&rest[..i]);
            let after = &rest[i + 2..];
            let end = after.find(')').expect("a label operand ends with )");
            let name = &after[..end];
            match labels.get(&format!("{f}/{name}")) {
                Some(a) => s.push_str(&format!("`({a:#x})")),
                None => s.push_str(&format!("`({name})")),
            }
            rest = &after[end + 1..];
        }
        s.push_str(rest);
        out.entry(f).or_default().push((addr, s.replace(" ;", "")));
    }
    out
}
