; ModuleID = '__compute_module_multiply_negate_fusion_kernel_module'
source_filename = "__compute_module_multiply_negate_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @multiply_negate_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
multiply_negate_fusion_wrapped.exit:
  %1 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %2 = load ptr, ptr %1, align 8, !invariant.load !3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3, !dereferenceable !4
  tail call void @llvm.experimental.noalias.scope.decl(metadata !5)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !8)
  %4 = load float, ptr %3, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %5 = fadd reassoc float %4, 0.000000e+00
  %6 = getelementptr inbounds nuw i8, ptr %3, i64 4
  %7 = load float, ptr %6, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %8 = fadd reassoc float %5, %7
  %9 = getelementptr inbounds nuw i8, ptr %3, i64 8
  %10 = load float, ptr %9, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %11 = fadd reassoc float %8, %10
  %12 = getelementptr inbounds nuw i8, ptr %3, i64 12
  %13 = load float, ptr %12, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %14 = fadd reassoc float %11, %13
  %15 = getelementptr inbounds nuw i8, ptr %2, i64 16
  %16 = load ptr, ptr %15, align 8, !invariant.load !3, !dereferenceable !10
  %17 = fmul float %14, -7.812500e-03
  store float %17, ptr %16, align 4, !alias.scope !8, !noalias !5
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 8}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 16}
!5 = !{!6}
!6 = distinct !{!6, !7, !"multiply_negate_fusion_wrapped: argument 0"}
!7 = distinct !{!7, !"multiply_negate_fusion_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"multiply_negate_fusion_wrapped: argument 1"}
!10 = !{i64 4}
