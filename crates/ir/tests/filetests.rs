//! Golden tests over `tests/filetests/*.tir`: each file is parsed, printed, re-parsed and
//! re-printed (the two prints must be identical), and verified. The canonical print and the
//! verifier's report are compared with `<name>.out`; run with `TANGLE_BLESS=1` to rewrite
//! the `.out` files after checking the differences by eye.

use std::fs;
use std::path::Path;

use tangle_ir::text::{parse, print};
use tangle_ir::verify::verify;

fn report(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let module = match parse(&text) {
        Ok(m) => m,
        Err(e) => return format!("; parse error: {e}\n"),
    };
    let printed = print(&module);
    let reparsed = parse(&printed).unwrap_or_else(|e| {
        panic!(
            "{}: the printed text does not parse: {e}\n{printed}",
            path.display()
        )
    });
    let reprinted = print(&reparsed);
    assert_eq!(
        printed,
        reprinted,
        "{}: print -> parse -> print differs",
        path.display()
    );
    let mut out = printed;
    match verify(&module) {
        Ok(()) => out.push_str("; verify: ok\n"),
        Err(errors) => {
            for e in errors.0 {
                out.push_str(&format!("; error: {e}\n"));
            }
        }
    }
    out
}

#[test]
fn filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let bless = std::env::var_os("TANGLE_BLESS").is_some();
    let mut paths: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tir"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no filetests found");
    let mut failures = Vec::new();
    for path in &paths {
        let actual = report(path);
        let expected_path = path.with_extension("out");
        if bless {
            fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{}: output differs (TANGLE_BLESS=1 to accept)\n--- expected\n{expected}\n--- actual\n{actual}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
