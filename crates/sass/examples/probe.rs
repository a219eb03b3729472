//! Probing nvdisasm as a black box, the way every form in `src/forms/` was found.
//!
//! `cargo run -p tangle-sass --example probe -- SM86 0x<lo> 0x<hi>` flips each of bits
//! 16-104 of the word in turn, disassembles all variants in one nvdisasm call (dropping
//! and retrying around illegal words) and prints the bits that change the text, the bits
//! nvdisasm ignores, and the bits that make the word illegal. Branch targets shift with the
//! variant's address, so compare them relative to it.

use std::path::Path;

use tangle_oracle::{require, Oracle, Tool};
use tangle_sass::{normalize, Arch, Word};

/// nvdisasm's text per word, `None` for an illegal one.
fn disassemble(nv: &Oracle, arch: Arch, words: &[Word], dir: &Path) -> Vec<Option<String>> {
    let mut out = vec![None; words.len()];
    let mut todo: Vec<usize> = (0..words.len()).collect();
    let path = dir.join("probe.bin");
    while !todo.is_empty() {
        let bytes: Vec<u8> = todo.iter().flat_map(|&i| words[i].to_le_bytes()).collect();
        std::fs::write(&path, bytes).expect("write scratch file");
        let res = nv.run([
            "-b".as_ref(),
            arch.nvdisasm_name().as_ref(),
            path.as_os_str(),
        ]);
        if res.status.success() {
            for line in String::from_utf8_lossy(&res.stdout).lines() {
                let l = line.trim_start();
                if let Some((a, t)) = l.strip_prefix("/*").and_then(|r| r.split_once("*/")) {
                    if let Ok(a) = usize::from_str_radix(a, 16) {
                        out[todo[a / 16]] = Some(normalize(t).to_string());
                    }
                }
            }
            return out;
        }
        // "... at address 0x00000020": drop that word and try again.
        let err = String::from_utf8_lossy(&res.stderr);
        let Some(k) = err.split("address 0x").nth(1).and_then(|s| {
            usize::from_str_radix(s.split(|c: char| !c.is_ascii_hexdigit()).next()?, 16).ok()
        }) else {
            panic!("nvdisasm failed without an address: {err}");
        };
        todo.remove(k / 16);
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [sm, lo, hi] = args.as_slice() else {
        eprintln!("usage: probe SMxx 0x<lo> 0x<hi>");
        std::process::exit(2);
    };
    let arch: Arch = sm.parse().unwrap_or_else(|e| panic!("{e}"));
    let word = Word::parse_hex(&format!("{lo} {hi}")).expect("two 64-bit hex numbers");
    let Some(nv) = require(Tool::Nvdisasm, "probe") else {
        return;
    };
    let dir = tangle_oracle::scratch_dir();
    let bits: Vec<u32> = (16..105).collect();
    let mut words = vec![word];
    words.extend(bits.iter().map(|&b| Word(word.0 ^ 1u128 << b)));
    let texts = disassemble(&nv, arch, &words, dir.path());
    println!("base: {}", texts[0].as_deref().unwrap_or("<illegal>"));
    let (mut same, mut illegal) = (Vec::new(), Vec::new());
    for (b, t) in bits.iter().zip(&texts[1..]) {
        match t {
            None => illegal.push(*b),
            Some(t) if Some(t) == texts[0].as_ref() => same.push(*b),
            Some(t) => println!("  bit {b:3}: {t}"),
        }
    }
    println!("ignored: {same:?}");
    println!("illegal: {illegal:?}");
}
