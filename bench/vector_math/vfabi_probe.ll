; Does LLVM 19's loop vectoriser widen a scalar call to a vector function
; named by the call-site attribute "vector-function-abi-variant"?  Yes:
;   opt-19 -S -passes='default<O2>' -mcpu=znver4 bench/vector_math/vfabi_probe.ll | grep _ZGV
; prints  call <16 x float> @_ZGVeN16v_expf(<16 x float> %wide.load...)  (x4,
; interleaved).  What each piece is for (each was checked by removing it; see
; README.md):
;  - attribute value "_ZGV_LLVM_N16v_expf(_ZGVeN16v_expf)": scalar name (must
;    be the callee's own name), VF 16, one vector arg, then the symbol to call.
;  - the vector declaration: without it the mapping is dropped.
;  - @llvm.compiler.used: the declaration is otherwise unused, and
;    GlobalOpt/GlobalDCE in default<O2> delete it before the vectoriser runs.
;  - a 512-bit preferred width (znver4's default; skylake-avx512 and
;    x86-64-v4 prefer 256 and need "prefer-vector-width"="512").
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define void @k(ptr noalias %a, ptr noalias %out, i64 %n) #2 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %x = load float, ptr %pa, align 4
  %y = call float @expf(float %x) #0
  %po = getelementptr inbounds float, ptr %out, i64 %i
  store float %y, ptr %po, align 4
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i.next, %n
  br i1 %c, label %exit, label %loop
exit:
  ret void
}

declare float @expf(float) #1
declare <16 x float> @_ZGVeN16v_expf(<16 x float>)
@llvm.compiler.used = appending global [1 x ptr] [ptr @_ZGVeN16v_expf], section "llvm.metadata"

attributes #0 = { "vector-function-abi-variant"="_ZGV_LLVM_N16v_expf(_ZGVeN16v_expf)" }
attributes #1 = { nounwind memory(none) }
attributes #2 = { "prefer-vector-width"="512" }
