//! The writer against ptxas: the kernels of `tests/data/kernels.cu`, compiled by ptxas for
//! every SM, are read back (code, parameters, shared memory, frame, launch bounds) and
//! written again by tangle-cubin. Then cuobjdump and nvdisasm must accept our cubin,
//! nvdisasm's code of it must equal its code of ptxas's, `cuobjdump -res-usage` must agree
//! line for line, every `.nv.info` attribute must equal ptxas's but for the differences
//! `docs/cubin.md` lists, and tangle's own reader and listing must read it.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{attrs, listing_code, words, Attr};
use tangle_cubin::{Arch, Kernel, Param};
use tangle_oracle::{require, Tool};
use tangle_sass::cubin::{self, eiattr};

/// Attributes ptxas writes that the writer does not (`docs/cubin.md`, "Differences"):
/// which instructions they list depends on the source program, not on the code.
const NOT_WRITTEN: [u8; 3] = [
    eiattr::COOP_GROUP_INSTR_OFFSETS,
    eiattr::COOP_GROUP_MASK_REGIDS,
    eiattr::INT_WARP_WIDE_INSTR_OFFSETS,
];

/// A kernel of ptxas's cubin as a description for the writer: its code and the interface
/// its source declares (parameters, shared memory, frame, launch bounds, register limit).
fn describe(arch: Arch, bytes: &[u8]) -> Vec<Kernel> {
    let c = cubin::read(bytes).unwrap();
    let secs = cubin::sections(bytes).unwrap();
    let module: Vec<Attr> = secs
        .iter()
        .find(|s| s.name == ".nv.info")
        .map(|s| attrs(&s.data))
        .unwrap_or_default();
    let sym_index = |name: &str| {
        1 + c
            .symbols
            .iter()
            .position(|s| s.name == name && s.kind == cubin::STT_FUNC)
            .unwrap() as u32
    };
    let mut out = Vec::new();
    for f in &c.functions {
        let Some(info) = secs
            .iter()
            .find(|s| s.name == format!(".nv.info.{}", f.name))
        else {
            continue;
        };
        let a = attrs(&info.data);
        let mut params: Vec<(u32, u32)> = a
            .iter()
            .filter(|x| x.attr == eiattr::KPARAM_INFO)
            .map(|x| {
                let w = words(&x.payload);
                (w[1] & 0xffff, w[2] >> 18)
            })
            .collect();
        params.sort();
        let dims = |n: u8| {
            a.iter()
                .find(|x| x.attr == n)
                .map(|x| <[u32; 3]>::try_from(words(&x.payload)).unwrap())
        };
        let sym = sym_index(&f.name);
        let frame = module
            .iter()
            .find(|x| x.attr == eiattr::FRAME_SIZE && words(&x.payload)[0] == sym)
            .map_or(0, |x| words(&x.payload)[1]);
        let shared = secs
            .iter()
            .find(|s| s.name == format!(".nv.shared.{}", f.name))
            .map_or(0, |s| s.size as u32);
        let shared = if arch == Arch::Sm90 && shared > 0 {
            shared - tangle_cubin::SM90_RESERVED_SHARED
        } else {
            shared
        };
        let maxreg = a
            .iter()
            .find(|x| x.attr == eiattr::MAXREG_COUNT)
            .map(|x| u16::from_le_bytes([x.payload[0], x.payload[1]]) as u32)
            .filter(|&m| m != 0xff);
        out.push(Kernel {
            name: f.name.clone(),
            code: f.words.clone(),
            params: params.iter().map(|&(_, size)| Param::sized(size)).collect(),
            shared_bytes: shared,
            local_frame: frame,
            max_threads: dims(eiattr::MAX_THREADS),
            reqntid: dims(eiattr::REQNTID),
            max_registers: maxreg,
        });
    }
    out
}

/// The attributes of each kernel's `.nv.info.<kernel>`, ignoring those not written and the
/// symbol number inside EIATTR_PARAM_CBANK (symbol tables are numbered differently).
fn kernel_attrs(bytes: &[u8]) -> BTreeMap<String, Vec<Attr>> {
    let secs = cubin::sections(bytes).unwrap();
    let mut out = BTreeMap::new();
    for s in &secs {
        if let Some(k) = s.name.strip_prefix(".nv.info.") {
            let list: Vec<Attr> = attrs(&s.data)
                .into_iter()
                .filter(|a| !NOT_WRITTEN.contains(&a.attr))
                .map(|mut a| {
                    if a.attr == eiattr::PARAM_CBANK {
                        a.payload[..4].fill(0);
                    }
                    a
                })
                .collect();
            out.insert(k.to_string(), list);
        }
    }
    out
}

/// The module `.nv.info` by function name: (attribute, value) pairs.
fn module_attrs(bytes: &[u8]) -> BTreeMap<String, Vec<(u8, u32)>> {
    let c = cubin::read(bytes).unwrap();
    let secs = cubin::sections(bytes).unwrap();
    let info = secs.iter().find(|s| s.name == ".nv.info").unwrap();
    let mut out: BTreeMap<String, Vec<(u8, u32)>> = BTreeMap::new();
    for a in attrs(&info.data) {
        let w = words(&a.payload);
        let name = c.symbols[w[0] as usize - 1].name.clone();
        out.entry(name).or_default().push((a.attr, w[1]));
    }
    out
}

/// `cuobjdump -res-usage`'s line for each function.
fn res_usage(cuobjdump: &tangle_oracle::Oracle, path: &Path) -> BTreeMap<String, String> {
    let text = cuobjdump.run_ok(["-res-usage".as_ref(), path.as_os_str()]);
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if let Some(f) = l.trim().strip_prefix("Function ") {
            let usage = lines.next().unwrap_or("").trim().to_string();
            out.insert(f.trim_end_matches(':').to_string(), usage);
        }
    }
    out
}

#[test]
fn rewritten_ptxas_kernels_match_ptxas() {
    let name = "rewritten_ptxas_kernels_match_ptxas";
    let (Some(nvcc), Some(nvdisasm), Some(cuobjdump)) = (
        require(Tool::Nvcc, name),
        require(Tool::Nvdisasm, name),
        require(Tool::Cuobjdump, name),
    ) else {
        return;
    };
    let dir = tangle_oracle::scratch_dir();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/kernels.cu");
    // One nvcc per SM, all started before any is waited on.
    let jobs: Vec<(Arch, std::path::PathBuf, std::process::Child)> = Arch::ALL
        .iter()
        .map(|&arch| {
            let out = dir.path().join(format!("ptxas-{arch}.cubin"));
            let child = nvcc
                .command()
                .args(["-cubin", "-arch", &arch.to_string(), "-o"])
                .arg(&out)
                .arg(&src)
                .spawn()
                .unwrap();
            (arch, out, child)
        })
        .collect();
    let mut failures = Vec::new();
    for (arch, theirs_path, mut child) in jobs {
        assert!(child.wait().unwrap().success(), "nvcc failed for {arch}");
        let theirs = std::fs::read(&theirs_path).unwrap();
        let mut kernels = describe(arch, &theirs);
        if let Ok(only) = std::env::var("TANGLE_CUBIN_ONLY") {
            // By hand: write only these kernels (comma-separated) to narrow a failure down.
            kernels.retain(|k| only.split(',').any(|o| o == k.name));
            let ours = tangle_cubin::write(arch, &kernels).unwrap();
            let path = dir.path().join(format!("only-{arch}.cubin"));
            std::fs::write(&path, &ours).unwrap();
            if let Some(keep) = std::env::var_os("TANGLE_KEEP_CUBINS") {
                std::fs::write(Path::new(&keep).join(format!("only-{arch}.cubin")), &ours).unwrap();
            }
            cuobjdump.run_ok(["-elf".as_ref(), path.as_os_str()]);
            continue;
        }
        assert!(kernels.len() >= 9, "{arch}: only {} kernels", kernels.len());
        let ours = tangle_cubin::write(arch, &kernels).unwrap();
        let ours_path = dir.path().join(format!("tangle-{arch}.cubin"));
        std::fs::write(&ours_path, &ours).unwrap();
        if let Some(keep) = std::env::var_os("TANGLE_KEEP_CUBINS") {
            // By hand: keep both cubins for a look with readelf or cuobjdump.
            let keep = Path::new(&keep);
            std::fs::copy(&theirs_path, keep.join(format!("ptxas-{arch}.cubin"))).unwrap();
            std::fs::copy(&ours_path, keep.join(format!("tangle-{arch}.cubin"))).unwrap();
        }

        // cuobjdump and nvdisasm accept it.
        cuobjdump.run_ok(["-elf".as_ref(), ours_path.as_os_str()]);
        let their_listing = nvdisasm.run_ok(["-c".as_ref(), theirs_path.as_os_str()]);
        let our_listing = nvdisasm.run_ok(["-c".as_ref(), ours_path.as_os_str()]);
        let (their_code, our_code) = (listing_code(&their_listing), listing_code(&our_listing));
        assert_eq!(their_code.len(), kernels.len(), "{arch}: listing functions");
        if their_code != our_code {
            failures.push(format!(
                "{arch}: nvdisasm's code of our cubin differs from ptxas's"
            ));
        }

        // Resource usage.
        let (theirs_usage, ours_usage) = (
            res_usage(&cuobjdump, &theirs_path),
            res_usage(&cuobjdump, &ours_path),
        );
        assert_eq!(theirs_usage.len(), kernels.len());
        for (f, u) in &theirs_usage {
            if ours_usage.get(f) != Some(u) {
                failures.push(format!(
                    "{arch} {f}: -res-usage ptxas `{u}`, ours `{}`",
                    ours_usage.get(f).map_or("(none)", |s| s.as_str())
                ));
            }
        }

        // Attributes.
        let (ta, oa) = (kernel_attrs(&theirs), kernel_attrs(&ours));
        for (k, list) in &ta {
            if oa.get(k) != Some(list) {
                failures.push(format!(
                    "{arch} {k}: .nv.info.{k}\n  ptxas: {list:x?}\n  ours:  {:x?}",
                    oa.get(k)
                ));
            }
        }
        let (tm, om) = (module_attrs(&theirs), module_attrs(&ours));
        if tm != om {
            failures.push(format!(
                "{arch}: .nv.info\n  ptxas: {tm:x?}\n  ours:  {om:x?}"
            ));
        }

        // tangle's reader and listing read it back.
        let c = cubin::read(&ours).unwrap();
        assert_eq!(c.arch, Some(arch));
        for k in &kernels {
            let f = c.functions.iter().find(|f| f.name == k.name).unwrap();
            assert_eq!(f.words, k.code, "{arch} {}: words read back", k.name);
        }
        // tangle's listing of our cubin is its listing of ptxas's (the same words refused:
        // SM80-SM89 loads whose descriptor register is not UR4, refused by design).
        let l = tangle_sass::listing::cubin_listing(&c, arch, false);
        let lt = tangle_sass::listing::cubin_listing(&cubin::read(&theirs).unwrap(), arch, false);
        assert_eq!(l.refused, lt.refused, "{arch}: refused words");
        let tangle_code = listing_code(&l.lines.join("\n"));
        if tangle_code != listing_code(&lt.lines.join("\n")) {
            failures.push(format!(
                "{arch}: tangle's listing of our cubin differs from its listing of ptxas's"
            ));
        }
        if l.refused == 0 && tangle_code != our_code {
            let first = tangle_code
                .iter()
                .flat_map(|(f, v)| v.iter().map(move |x| (f, x)))
                .zip(
                    our_code
                        .iter()
                        .flat_map(|(f, v)| v.iter().map(move |x| (f, x))),
                )
                .find(|(a, b)| a != b);
            failures.push(format!(
                "{arch}: tangle's listing of our cubin differs from nvdisasm's: first {first:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
