//! Golden tests over `tests/filetests/*.tir`, Cranelift-style: each file starts with one or
//! more `; test:` header lines that say what to run, and `<name>.out` holds the expected
//! output. Run with `TANGLE_BLESS=1` to rewrite the `.out` files after checking the
//! differences by eye.
//!
//! Every file is parsed, printed, re-parsed and re-printed (the two prints must be
//! identical); the output starts with the canonical print (or the parse error). Then each
//! header adds a section `; test: <command>` with its result:
//!
//! - `verify`: the verifier, each function in the form it declares;
//! - `verify structured` / `verify lowered`: the verifier with every function taken to be of
//!   that form;
//! - `pass a,b,c`: the named passes in order (the verifier runs before the first and after
//!   each); the section holds the module printed after the last pass, or the error that
//!   stopped the pipeline (an unknown pass, an invalid input, a pass that broke the module);
//! - `run <entry> [subgroup=N] [S:B=w,w,...] [S:B=zero*N]...`: one workgroup of the entry
//!   point on the reference interpreter, with the storage buffers at descriptor set `S`,
//!   binding `B` filled with the given `u32` words (or `N` zero words); the section holds
//!   every buffer afterwards as decimal words, or the interpreter's error.
//!
//! A file without a header, or with an unknown command, fails the test: it is a broken test
//! file, not an expected failure.

use std::fs;
use std::path::Path;

use tangle_ir::pipeline::Pipeline;
use tangle_ir::text::{parse, print};
use tangle_ir::verify::{verify, verify_as, VerifyErrors};
use tangle_ir::Form;

/// What one header asks for.
#[derive(Debug)]
enum Command {
    Verify(Option<Form>),
    Pass(String),
    Run(Run),
}

/// A `run` header: the entry point, the subgroup size, and the buffers by (set, binding).
#[derive(Debug, PartialEq)]
struct Run {
    entry: String,
    subgroup: u32,
    buffers: Vec<((u32, u32), Vec<u32>)>,
}

fn parse_run(args: &str) -> Result<Run, String> {
    let mut words = args.split_whitespace();
    let entry = words.next().ok_or("`run` needs an entry point name")?;
    let mut run = Run {
        entry: entry.to_string(),
        subgroup: 32,
        buffers: Vec::new(),
    };
    let number = |s: &str| {
        s.parse::<u32>()
            .map_err(|_| format!("`{s}` is not a number in `run {args}`"))
    };
    for word in words {
        if let Some(n) = word.strip_prefix("subgroup=") {
            run.subgroup = number(n)?;
            continue;
        }
        let (slot, value) = word.split_once('=').ok_or(format!(
            "expected `S:B=...` or `subgroup=N`, found `{word}`"
        ))?;
        let (set, binding) = slot
            .split_once(':')
            .ok_or(format!("expected a `set:binding`, found `{slot}`"))?;
        let data = match value.strip_prefix("zero*") {
            Some(n) => vec![0; number(n)? as usize],
            None => value.split(',').map(number).collect::<Result<_, _>>()?,
        };
        run.buffers.push(((number(set)?, number(binding)?), data));
    }
    Ok(run)
}

/// Runs one workgroup on the reference interpreter; the buffers afterwards, or the error.
fn execute(module: &tangle_ir::Module, run: &Run, out: &mut String) {
    let config = tangle_interp::Config {
        subgroup_size: run.subgroup,
        ..tangle_interp::Config::default()
    };
    let outcome = tangle_interp::Interpreter::new(module, &run.entry, config).and_then(|mut it| {
        for ((set, binding), words) in &run.buffers {
            let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            it.bind_buffer(*set, *binding, bytes);
        }
        it.run()
    });
    match outcome {
        Ok(outcome) => {
            for ((set, binding), bytes) in &outcome.buffers {
                let words: Vec<String> = bytes
                    .chunks(4)
                    .map(|c| {
                        let mut w = [0u8; 4];
                        w[..c.len()].copy_from_slice(c);
                        u32::from_le_bytes(w).to_string()
                    })
                    .collect();
                out.push_str(&format!("; buffer {set}:{binding} = {}\n", words.join(" ")));
            }
        }
        Err(e) => {
            for line in e.to_string().lines() {
                out.push_str(&format!("; run error: {line}\n"));
            }
        }
    }
}

/// The `; test:` headers at the top of `text` (before the first line that is not a comment
/// or blank).
fn headers(text: &str) -> Result<Vec<(String, Command)>, String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix(';') else {
            break;
        };
        let Some(command) = comment.trim().strip_prefix("test:") else {
            continue;
        };
        let command = command.trim();
        let mut words = command.splitn(2, ' ');
        let parsed = match (words.next(), words.next().map(str::trim)) {
            (Some("verify"), None) => Command::Verify(None),
            (Some("verify"), Some(form)) => match Form::from_name(form) {
                Some(f) => Command::Verify(Some(f)),
                None => return Err(format!("unknown form `{form}` in `; test: {command}`")),
            },
            (Some("pass"), Some(list)) => Command::Pass(list.to_string()),
            (Some("run"), Some(args)) => Command::Run(parse_run(args)?),
            _ => return Err(format!("unknown test command `; test: {command}`")),
        };
        out.push((command.to_string(), parsed));
    }
    if out.is_empty() {
        return Err("no `; test:` header".to_string());
    }
    Ok(out)
}

fn verdict(out: &mut String, result: Result<(), VerifyErrors>) {
    match result {
        Ok(()) => out.push_str("; verify: ok\n"),
        Err(errors) => {
            for e in errors.0 {
                out.push_str(&format!("; error: {e}\n"));
            }
        }
    }
}

fn report(path: &Path) -> Result<String, String> {
    let text = fs::read_to_string(path).unwrap();
    let commands = headers(&text)?;
    let module = match parse(&text) {
        Ok(m) => m,
        Err(e) => return Ok(format!("; parse error: {e}\n")),
    };
    let printed = print(&module);
    let reparsed =
        parse(&printed).map_err(|e| format!("the printed text does not parse: {e}\n{printed}"))?;
    if print(&reparsed) != printed {
        return Err("print -> parse -> print differs".to_string());
    }
    let mut out = printed;
    for (text, command) in commands {
        out.push_str(&format!("\n; test: {text}\n"));
        match command {
            Command::Verify(None) => verdict(&mut out, verify(&module)),
            Command::Verify(Some(form)) => verdict(&mut out, verify_as(&module, form)),
            Command::Run(run) => execute(&module, &run, &mut out),
            Command::Pass(list) => {
                let mut m = module.clone();
                let result = Pipeline::parse(&list).and_then(|mut p| {
                    p.verify_each = true;
                    p.run(&mut m, |_, _, _| {})
                });
                match result {
                    Ok(()) => {
                        out.push_str(&print(&m));
                        out.push_str("; verify: ok\n");
                    }
                    Err(e) => {
                        for line in e.to_string().lines() {
                            out.push_str(&format!("; error: {line}\n"));
                        }
                    }
                }
            }
        }
    }
    Ok(out)
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
        let actual = match report(path) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
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

#[test]
fn headers_are_read_and_bad_ones_refused() {
    let ok = headers("; what this tests\n; test: verify lowered\n; test: pass dead-code,reverse-post-order\nspirv 1.3\n; test: verify\n").unwrap();
    assert_eq!(ok.len(), 2, "headers stop at the first non-comment line");
    assert!(matches!(ok[0].1, Command::Verify(Some(Form::Lowered))));
    assert!(matches!(&ok[1].1, Command::Pass(l) if l == "dead-code,reverse-post-order"));
    assert_eq!(headers("spirv 1.3\n").unwrap_err(), "no `; test:` header");
    assert!(headers("; test: run\n")
        .unwrap_err()
        .contains("unknown test command"));
    assert!(headers("; test: verify sideways\n")
        .unwrap_err()
        .contains("unknown form"));
}
