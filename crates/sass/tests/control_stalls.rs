//! The minimum stalls of `latency::control` (BSYNC, EXIT, ... per SM) are what ptxas's own
//! code shows: compiled with the installed ptxas, every instruction of the probe kernels
//! and the simulator's CUDA corpus has at least the table's stall, and for every opcode of
//! the table some instance has exactly it (so the figure is ptxas's minimum, not a guess
//! below it).

use std::collections::BTreeMap;
use std::path::PathBuf;

use tangle_oracle::{require, Tool};
use tangle_sass::latency::control::{min_stall, MIN_STALLS};
use tangle_sass::Arch;

fn sources(dir: &std::path::Path) -> Option<Vec<PathBuf>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let probes = root.join("../shared/probes");
    if !probes.join("k1.cu").exists() {
        return None;
    }
    let unit = dir.join("probes.cu");
    let mut text = String::new();
    for k in 1..=7 {
        text.push_str(&format!(
            "#include \"{}\"\n",
            probes.join(format!("k{k}.cu")).display()
        ));
    }
    text.push_str("__device__ int ext(int *a, int x) { return a[x & 63] + x; }\n");
    std::fs::write(&unit, text).unwrap();
    Some(vec![unit, root.join("crates/sim/tests/cuda/corpus.cu")])
}

#[test]
fn control_minimum_stalls_are_ptxas_minimum_stalls() {
    let Some(nvcc) = require(Tool::Nvcc, "control_minimum_stalls") else {
        return;
    };
    let dir = tangle_oracle::scratch_dir();
    let Some(srcs) = sources(dir.path()) else {
        assert!(
            !tangle_oracle::oracles_mandatory(),
            "../shared/probes is missing"
        );
        eprintln!("SKIPPED control_minimum_stalls: ../shared/probes is missing");
        return;
    };
    let mut failures = Vec::new();
    for arch in Arch::ALL {
        // The fewest cycles seen after each opcode of the table.
        let mut seen: BTreeMap<&str, u8> = BTreeMap::new();
        for (k, src) in srcs.iter().enumerate() {
            let cubin = dir.path().join(format!("{k}_{}.cubin", arch.number()));
            let args: Vec<std::ffi::OsString> = vec![
                "-cubin".into(),
                "-O3".into(),
                format!("-arch=sm_{}", arch.number()).into(),
                "-o".into(),
                cubin.clone().into(),
                src.into(),
            ];
            nvcc.run_ok(&args);
            let bytes = std::fs::read(&cubin).unwrap();
            for f in tangle_sass::cubin::read(&bytes).unwrap().functions {
                for (k, word) in f.words.iter().enumerate() {
                    let Ok(inst) = tangle_sass::decode_typed(arch, *word, 16 * k as u64) else {
                        continue;
                    };
                    let name = inst.form.name;
                    if let Some((n, _)) = MIN_STALLS.iter().find(|(n, _)| *n == name) {
                        let s = seen.entry(n).or_insert(u8::MAX);
                        *s = (*s).min(inst.control.stall);
                    }
                }
            }
        }
        for (name, _) in MIN_STALLS {
            let want = min_stall(arch, name);
            match seen.get(name) {
                Some(&got) if got == want => {}
                Some(&got) => failures.push(format!(
                    "{arch} {name}: ptxas's minimum stall is {got}, the table says {want}"
                )),
                None => failures.push(format!("{arch} {name}: no instance in ptxas's code")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
