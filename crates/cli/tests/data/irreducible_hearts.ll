; Seed 004's shape with hearts on the entry token in two natural loops that form an
; irreducible cycle: `opt -passes=verify` and `tangle validate` both refuse it.
define void @f(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br i1 %c, label %a, label %b
a:
  %ha = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  br i1 %c, label %a, label %b
b:
  %hb = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  br i1 %c, label %b, label %x
x:
  br i1 %c, label %a, label %done
done:
  ret void
}

declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
