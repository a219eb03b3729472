//! Golden tests of the lowering over `tests/lower/*.tir`: each file starts with one or more
//! `; test: lower <scheme>` headers (`scopes`, `every-divergent`, `nak`, `baseline`). For
//! each, the module is lowered; the section holds the lowered module's text and its static
//! barrier counts, or the lowering's error. Every lowered module must verify in lowered
//! form and its text must read back to the same text, and `lower_module_owned`, which
//! lowers the module it is handed in place, must give the same text or the same error.
//! `TANGLE_BLESS=1` rewrites the `.out` files (check the differences by eye).

use std::fs;
use std::path::Path;

use tangle_ir::text::{parse, print};
use tangle_ir::verify::verify_as;
use tangle_ir::Form;
use tangle_reconverge::lower::stats::format_counts;
use tangle_reconverge::{lower_module, lower_module_owned, LowerError, LowerOptions, Scheme};

fn run_file(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let headers: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("; test: "))
        .collect();
    assert!(
        !headers.is_empty(),
        "{}: no `; test:` header",
        path.display()
    );
    let module = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = String::new();
    for h in headers {
        let scheme = h
            .strip_prefix("lower ")
            .and_then(|s| Scheme::from_name(s.trim()))
            .unwrap_or_else(|| panic!("{}: unknown header `{h}`", path.display()));
        out.push_str(&format!("; test: {h}\n"));
        let opts = LowerOptions {
            scheme,
            ..Default::default()
        };
        let result = lower_module(&module, &opts);
        assert_same_result(&result, &lower_module_owned(module.clone(), &opts), path, h);
        match result {
            Ok(lowered) => {
                verify_as(&lowered, Form::Lowered)
                    .unwrap_or_else(|e| panic!("{}: {h}: {e}", path.display()));
                let printed = print(&lowered);
                let again = print(&parse(&printed).unwrap_or_else(|e| {
                    panic!(
                        "{}: {h}: the lowered text does not parse: {e}",
                        path.display()
                    )
                }));
                assert_eq!(printed, again, "{}: {h}: no round trip", path.display());
                out.push_str(&printed);
                out.push_str(&format_counts(&lowered));
            }
            Err(e) => out.push_str(&format!("error: {e}\n")),
        }
    }
    out
}

/// Both entries of the lowering agree: the same module text, or the same error.
fn assert_same_result(
    borrowed: &Result<tangle_ir::Module, LowerError>,
    owned: &Result<tangle_ir::Module, LowerError>,
    path: &Path,
    header: &str,
) {
    let text = |r: &Result<tangle_ir::Module, LowerError>| match r {
        Ok(m) => print(m),
        Err(e) => format!("error: {e}"),
    };
    assert_eq!(
        text(borrowed),
        text(owned),
        "{}: {header}: lower_module_owned differs from lower_module",
        path.display()
    );
}

/// An input that does not verify is refused by the owning entry too, with the verifier's
/// positioned errors, before anything is rewritten.
#[test]
fn owned_lowering_refuses_invalid_input() {
    // `v1` is used before the block that defines it and is not dominated by it.
    let text =
        "spirv 1.3\nmemory_model GLSL450\ncapability Shader\ntype t0 = void\ntype t1 = u32\n\
                fn f0 \"main\"() -> void {\nb0:\n  v0 = iadd u32 v1, v1\n  br b1\nb1:\n  \
                v1 = copy u32 v0\n  return\n}\n";
    let module = parse(text).expect("the text parses");
    let opts = LowerOptions::default();
    let Err(LowerError::Invalid(errors)) = lower_module_owned(module.clone(), &opts) else {
        panic!("lower_module_owned accepted a module that does not verify");
    };
    assert!(
        errors.to_string().contains("f0 b0"),
        "the error names its position: {errors}"
    );
    assert_same_result(
        &lower_module(&module, &opts),
        &lower_module_owned(module, &opts),
        Path::new("inline"),
        "invalid",
    );
}

#[test]
fn lowering_filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lower");
    let bless = std::env::var_os("TANGLE_BLESS").is_some();
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tir"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for path in files {
        let got = run_file(&path);
        let expected_path = path.with_extension("out");
        if bless {
            fs::write(&expected_path, &got).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        if got != expected {
            failures.push(format!(
                "{}: output differs\n--- got ---\n{got}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
