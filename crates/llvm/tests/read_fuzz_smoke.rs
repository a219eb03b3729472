//! Mutated LLVM IR text never panics or hangs the reader: every input gives a module or an
//! error whose position lies inside the text; a module that reads is verified and written
//! without panicking either. 10,000 mutants of a few valid files.

const SEEDS: &[&str] = &[
    "define void @f(i1 %c) convergent {
a:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  %p = phi i32 [ 0, %a ], [ %q, %h ]
  %l = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %e) ]
  %x = call i1 @tangle.subgroup.elect.i1() [ \"convergencectrl\"(token %l) ]
  %q = add nsw i32 %p, 1
  %d = icmp slt i32 %q, 10
  br i1 %d, label %h, label %out
out:
  switch i32 %q, label %z [ i32 0, label %z
                            i32 -3, label %z ]
z:
  ret void
}
declare i1 @tangle.subgroup.elect.i1() convergent
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
",
    "@g = global float 1.5
define float @k(float %a, <4 x i32> %v) #0 {
  %m = alloca i32, align 4
  store i32 7, ptr %m, align 4
  %r = load i32, ptr %m
  %s = sitofp i32 %r to float
  %t = fmul fast float %s, 0x3FF8000000000000
  %u = load float, ptr @g, !tbaa !3
  %w = select i1 true, float %t, float %u
  %b = call <4 x i32> @tangle.subgroup.ballot.v4i32.i1(i1 true)
  ret float %w
}
declare <4 x i32> @tangle.subgroup.ballot.v4i32.i1(i1) convergent
attributes #0 = { convergent nounwind }
!3 = !{}
",
];

fn mutate(rng: &mut fastrand::Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let pieces = [
        "%",
        "@",
        "!",
        "#",
        "\"",
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        "{",
        "}",
        ",",
        "=",
        ":",
        "x",
        "-",
        "0x",
        "i1 ",
        "label ",
        "token ",
        "ptr ",
        "call ",
        "phi ",
        "br ",
        "\n",
        "9999999999999999999999",
        "i128 ",
        "<0 x i8> ",
        "define ",
        "declare ",
        "poison",
        "attributes #9 = {",
    ];
    for _ in 0..rng.usize(1..4) {
        if chars.is_empty() {
            break;
        }
        let at = rng.usize(0..chars.len());
        match rng.u32(0..4) {
            0 => {
                let end = (at + rng.usize(1..12)).min(chars.len());
                chars.drain(at..end);
            }
            1 => {
                let piece = pieces[rng.usize(0..pieces.len())];
                for (k, c) in piece.chars().enumerate() {
                    chars.insert(at + k, c);
                }
            }
            2 => {
                let end = (at + rng.usize(1..20)).min(chars.len());
                let copy: Vec<char> = chars[at..end].to_vec();
                let to = rng.usize(0..chars.len());
                for (k, c) in copy.into_iter().enumerate() {
                    chars.insert(to + k, c);
                }
            }
            _ => chars[at] = char::from(rng.u8(32..127)),
        }
    }
    chars.into_iter().collect()
}

#[test]
fn mutated_text_reads_or_fails_with_a_position() {
    for seed in SEEDS {
        let m = tangle_llvm::read(seed).unwrap_or_else(|e| panic!("{e}"));
        tangle_ir::verify::verify(&m).unwrap_or_else(|e| panic!("{e}"));
    }
    let mut rng = fastrand::Rng::with_seed(0x11);
    let (mut read, mut failed) = (0, 0);
    for _ in 0..10_000 {
        let seed = SEEDS[rng.usize(0..SEEDS.len())];
        let text = mutate(&mut rng, seed);
        match tangle_llvm::read(&text) {
            Ok(m) => {
                read += 1;
                let _ = tangle_ir::verify::verify(&m);
                let _ = tangle_llvm::write(&m);
            }
            Err(e) => {
                failed += 1;
                let lines = text.lines().count() as u32 + 1;
                assert!(e.pos.line >= 1 && e.pos.line <= lines, "{e}\n{text}");
            }
        }
    }
    assert!(read > 100 && failed > 1000, "read {read}, failed {failed}");
}
