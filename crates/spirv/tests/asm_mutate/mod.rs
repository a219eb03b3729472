//! Mutations of the hand-written corpus, shared by the fuzz smoke test and the differential
//! test against spirv-as.

use std::path::Path;

use proptest::prelude::*;

/// Words that make mutations reach deeper than random bytes do.
pub const DICTIONARY: &[&str] = &[
    "%",
    "%x",
    "%1",
    "%4294967295",
    "=",
    "Op",
    "OpConstant",
    "OpSwitch",
    "OpExtInst",
    "OpTypeInt",
    "OpTypeFloat",
    "OpSpecConstantOp",
    "OpLoopMerge",
    "OpDecorate",
    "OpExecutionMode",
    "OpLoad",
    "!",
    "!0",
    "!0xffffffff",
    "!-1",
    "\"",
    "\"\\",
    "\\",
    ";",
    "|",
    "None|",
    "Unroll|DependencyLength",
    "Aligned",
    "LocalSize",
    "SpecId",
    "-",
    "0x",
    "0x1p+128",
    "-0x1.8p-149",
    "1e400",
    "-2147483649",
    "18446744073709551616",
    "0777",
    "1.5",
    "IAdd",
    "FAbs",
    "\n",
    " ",
    "\t",
    "\u{e9}",
    "\u{1f600}",
    "\0",
    "64",
    "16",
    "8",
    "0",
    "1",
];

pub fn corpus() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders");
    let mut texts: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "spvasm"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    texts.sort();
    assert!(!texts.is_empty());
    texts
}

#[derive(Clone, Debug)]
pub enum Mutation {
    DeleteBytes { at: usize, len: usize },
    InsertWord { at: usize, word: usize },
    ReplaceWord { nth: usize, word: usize },
    SwapLines { a: usize, b: usize },
    DuplicateLine { nth: usize },
    FlipByte { at: usize, bits: u8 },
    Truncate { at: usize },
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
    let n = 1usize << 16;
    prop_oneof![
        (0..n, 1..40usize).prop_map(|(at, len)| Mutation::DeleteBytes { at, len }),
        (0..n, 0..DICTIONARY.len()).prop_map(|(at, word)| Mutation::InsertWord { at, word }),
        (0..n, 0..DICTIONARY.len()).prop_map(|(nth, word)| Mutation::ReplaceWord { nth, word }),
        (0..n, 0..n).prop_map(|(a, b)| Mutation::SwapLines { a, b }),
        (0..n).prop_map(|nth| Mutation::DuplicateLine { nth }),
        (0..n, any::<u8>()).prop_map(|(at, bits)| Mutation::FlipByte { at, bits }),
        (0..n).prop_map(|at| Mutation::Truncate { at }),
    ]
}

pub fn apply(text: &[u8], m: &Mutation) -> Vec<u8> {
    let mut t = text.to_vec();
    let len = t.len().max(1);
    match *m {
        Mutation::DeleteBytes { at, len: n } => {
            let at = at % len;
            let end = (at + n).min(t.len());
            if at < end {
                t.drain(at..end);
            }
        }
        Mutation::InsertWord { at, word } => {
            let at = (at % len).min(t.len());
            t.splice(at..at, DICTIONARY[word].bytes());
        }
        Mutation::ReplaceWord { nth, word } => {
            let s = String::from_utf8_lossy(&t).into_owned();
            let words: Vec<(usize, &str)> = s
                .split(|c: char| c.is_ascii_whitespace())
                .scan(0usize, |pos, w| {
                    let start = *pos;
                    *pos += w.len() + 1;
                    Some((start, w))
                })
                .filter(|(_, w)| !w.is_empty())
                .collect();
            if !words.is_empty() {
                let (start, w) = words[nth % words.len()];
                let mut out = s.as_bytes().to_vec();
                out.splice(start..start + w.len(), DICTIONARY[word].bytes());
                t = out;
            }
        }
        Mutation::SwapLines { a, b } => {
            let mut lines: Vec<Vec<u8>> = t.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
            let n = lines.len();
            lines.swap(a % n, b % n);
            t = lines.join(&b'\n');
        }
        Mutation::DuplicateLine { nth } => {
            let mut lines: Vec<Vec<u8>> = t.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
            let i = nth % lines.len();
            let copy = lines[i].clone();
            lines.insert(i, copy);
            t = lines.join(&b'\n');
        }
        Mutation::FlipByte { at, bits } => {
            if !t.is_empty() {
                let i = at % t.len();
                t[i] ^= bits;
            }
        }
        Mutation::Truncate { at } => t.truncate(at % len),
    }
    t
}
