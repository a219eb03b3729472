//! Golden tests of the lowering over `tests/lower/*.tir`: each file starts with one or more
//! `; test: lower <scheme>` headers (`scopes`, `every-divergent`, `nak`, `baseline`). For
//! each, the module is lowered; the section holds the lowered module's text and its static
//! barrier counts, or the lowering's error. Every lowered module must verify in lowered
//! form and its text must read back to the same text. `TANGLE_BLESS=1` rewrites the
//! `.out` files (check the differences by eye).

use std::fs;
use std::path::Path;

use tangle_ir::text::{parse, print};
use tangle_ir::verify::verify_as;
use tangle_ir::Form;
use tangle_reconverge::lower::stats::format_counts;
use tangle_reconverge::{lower_module, LowerOptions, Scheme};

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
        match lower_module(&module, &opts) {
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
