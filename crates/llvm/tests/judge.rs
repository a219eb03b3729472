//! Token-annotated LLVM IR, written for these tests, read by tangle and judged by its
//! verifier as LLVM 19's `opt -passes=verify` judges it: each case states the verdict
//! (valid, or the rule it breaks), and where `opt-19` is installed it must give the same
//! valid/invalid verdict. Cases tangle cannot even read (two bundles, a token not from a
//! token intrinsic) are read errors with a position, and `opt` must reject them too.

use tangle_ir::verify::{verify, Rule};

const DECLS: &str = "
declare void @op() convergent
declare void @plain()
declare i1 @tangle.subgroup.elect.i1() convergent
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
";

/// What a case must give.
enum Want {
    Valid,
    /// Invalid, with a piece of tangle's message.
    Invalid(&'static str),
    /// Not readable, with a piece of the reader's message.
    Unreadable(&'static str),
}

fn cases() -> Vec<(&'static str, &'static str, Want)> {
    vec![
        (
            "entry_and_heart",
            "define void @f(i1 %c) convergent {
a:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  %l = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %e) ]
  %x = call i1 @tangle.subgroup.elect.i1() [ \"convergencectrl\"(token %l) ]
  br i1 %c, label %h, label %out
out:
  call void @op() [ \"convergencectrl\"(token %l) ]
  ret void
}",
            Want::Valid,
        ),
        (
            "anchor_in_plain_function",
            "define void @f() {
  %a = call token @llvm.experimental.convergence.anchor()
  call void @op() [ \"convergencectrl\"(token %a) ]
  call void @plain()
  ret void
}",
            Want::Valid,
        ),
        (
            "entry_not_convergent",
            "define void @f() {
  %e = call token @llvm.experimental.convergence.entry()
  ret void
}",
            Want::Invalid("only in a convergent function"),
        ),
        (
            "entry_after_convergent",
            "define void @f() convergent {
  call void @op()
  %e = call token @llvm.experimental.convergence.entry()
  ret void
}",
            Want::Invalid("must precede every other convergent operation"),
        ),
        (
            "entry_outside_entry_block",
            "define void @f() convergent {
a:
  br label %b
b:
  %e = call token @llvm.experimental.convergence.entry()
  ret void
}",
            Want::Invalid("only in the entry block"),
        ),
        (
            "loop_without_token",
            "define void @f() {
  %l = call token @llvm.experimental.convergence.loop()
  ret void
}",
            Want::Invalid("needs a convergence-control operand"),
        ),
        (
            "anchor_with_token",
            "define void @f() {
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor() [ \"convergencectrl\"(token %a) ]
  ret void
}",
            Want::Invalid("takes no convergence-control operand"),
        ),
        (
            "token_on_plain_call",
            "define void @f() {
  %a = call token @llvm.experimental.convergence.anchor()
  call void @plain() [ \"convergencectrl\"(token %a) ]
  ret void
}",
            Want::Invalid("call of a convergent function"),
        ),
        (
            "mixed",
            "define void @f() {
  %a = call token @llvm.experimental.convergence.anchor()
  call void @op() [ \"convergencectrl\"(token %a) ]
  call void @op()
  ret void
}",
            Want::Invalid("uncontrolled convergent"),
        ),
        (
            "regions_cross",
            "define void @f(i1 %c) {
a:
  %t1 = call token @llvm.experimental.convergence.anchor()
  %t2 = call token @llvm.experimental.convergence.anchor()
  br i1 %c, label %b, label %d
b:
  call void @op() [ \"convergencectrl\"(token %t1) ]
  br label %d
d:
  call void @op() [ \"convergencectrl\"(token %t2) ]
  ret void
}",
            Want::Invalid("regions do not nest"),
        ),
        (
            "use_in_cycle",
            "define void @f(i1 %c) {
a:
  %t = call token @llvm.experimental.convergence.anchor()
  br label %b
b:
  call void @op() [ \"convergencectrl\"(token %t) ]
  br i1 %c, label %b, label %d
d:
  ret void
}",
            Want::Invalid("other than `conv_loop`"),
        ),
        (
            "two_hearts",
            "define void @f(i1 %c) {
a:
  %t = call token @llvm.experimental.convergence.anchor()
  br label %b
b:
  %h1 = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %t) ]
  br label %m
m:
  %h2 = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %t) ]
  br i1 %c, label %b, label %d
d:
  ret void
}",
            Want::Invalid("at most one heart"),
        ),
        (
            "irreducible_heart",
            "define void @f(i1 %c) convergent {
a:
  %e = call token @llvm.experimental.convergence.entry()
  br i1 %c, label %x, label %y
x:
  %h = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %e) ]
  br label %y
y:
  br i1 %c, label %x, label %z
z:
  ret void
}",
            Want::Invalid("must dominate every block"),
        ),
        (
            "preheader_anchors",
            "define void @f(i1 %c) convergent {
a:
  %e = call token @llvm.experimental.convergence.entry()
  br i1 %c, label %xp, label %yp
xp:
  %ax = call token @llvm.experimental.convergence.anchor()
  br label %x
x:
  %hx = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %ax) ]
  br i1 %c, label %x, label %yp
yp:
  %ay = call token @llvm.experimental.convergence.anchor()
  br label %y
y:
  %hy = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %ay) ]
  br i1 %c, label %y, label %z
z:
  br i1 %c, label %xp, label %done
done:
  ret void
}",
            Want::Valid,
        ),
        (
            "two_bundles",
            "define void @f() {
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor()
  call void @op() [ \"convergencectrl\"(token %a), \"convergencectrl\"(token %b) ]
  ret void
}",
            Want::Unreadable("at most once"),
        ),
        (
            "token_poison",
            "define void @f() {
  call void @op() [ \"convergencectrl\"(token poison) ]
  ret void
}",
            Want::Unreadable("token poison"),
        ),
    ]
}

#[test]
fn token_cases_are_judged_as_opt_judges_them() {
    let opt = tangle_oracle::require(
        tangle_oracle::Tool::Opt,
        "token_cases_are_judged_as_opt_judges_them",
    );
    let dir = std::env::temp_dir().join(format!("tangle-llvm-judge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, body, want) in cases() {
        let text = format!("{body}\n{DECLS}");
        let ours_valid = match (tangle_llvm::read(&text), &want) {
            (Ok(m), Want::Valid) => {
                verify(&m).unwrap_or_else(|e| panic!("{name}: want valid, got\n{e}"));
                true
            }
            (Ok(m), Want::Invalid(piece)) => {
                let e = verify(&m).expect_err(name);
                assert!(
                    e.0.iter().any(|x| x.message.contains(piece))
                        && e.0
                            .iter()
                            .all(|x| matches!(x.rule, Rule::Tokens | Rule::Type)),
                    "{name}: want an error with {piece:?}, got\n{e}"
                );
                false
            }
            (Err(e), Want::Unreadable(piece)) => {
                assert!(e.message.contains(piece), "{name}: {e}");
                false
            }
            (got, _) => panic!("{name}: unexpected {:?}", got.map(|m| verify(&m))),
        };
        let Some(opt) = &opt else { continue };
        let path = dir.join(format!("{name}.ll"));
        std::fs::write(&path, &text).expect("write");
        let out = opt.run([
            "-passes=verify".as_ref(),
            "-disable-output".as_ref(),
            path.as_os_str(),
        ]);
        assert_eq!(
            out.status.success(),
            ours_valid,
            "{name}: opt says {}\n{text}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reader_errors_carry_line_and_column() {
    let cases = [
        ("define void @f() {\n  %x = frobnicate i32 1\n  ret void\n}", 2, 8, "outside"),
        ("define void @f() {\n  ret void\n", 3, 1, "end of text"),
        ("define void @f() {\n  br label %nowhere\n}", 2, 3, "no block"),
        ("define void @f() {\n  %y = add i32 %x, 1\n  ret void\n}", 2, 16, "not defined"),
        ("define void @f(ptr %p) {\n  ret void\n}", 1, 16, "ptr"),
        ("@g = global i32 0\ndefine void @f() {\n  %v = load i32, ptr @g\n  %w = add i32 %v\n  ret void\n}", 5, 3, "expected `,`"),
    ];
    for (text, line, col, piece) in cases {
        let e = tangle_llvm::read(text).expect_err(text);
        assert_eq!((e.pos.line, e.pos.col), (line, col), "{text}: {e}");
        assert!(e.to_string().contains(piece), "{text}: {e}");
    }
}
