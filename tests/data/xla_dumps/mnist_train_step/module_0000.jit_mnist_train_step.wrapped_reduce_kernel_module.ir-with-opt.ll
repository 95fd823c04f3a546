; ModuleID = '__compute_module_wrapped_reduce_kernel_module'
source_filename = "__compute_module_wrapped_reduce_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @wrapped_reduce(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !5
  %7 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %8 = load ptr, ptr %7, align 8, !invariant.load !3, !dereferenceable !6
  tail call void @llvm.experimental.noalias.scope.decl(metadata !7)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !10)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !12)
  %9 = load float, ptr %6, align 4, !invariant.load !3, !alias.scope !10, !noalias !14
  br label %.preheader

.preheader:                                       ; preds = %1, %.preheader
  %10 = phi i64 [ 0, %1 ], [ %42, %.preheader ]
  %.idx = mul nuw nsw i64 %10, 40
  %11 = getelementptr i8, ptr %4, i64 %.idx
  %12 = load float, ptr %11, align 4, !invariant.load !3, !alias.scope !7, !noalias !15
  %13 = fadd reassoc float %9, %12
  %14 = getelementptr i8, ptr %11, i64 4
  %15 = load float, ptr %14, align 4, !invariant.load !3, !alias.scope !7, !noalias !15
  %16 = fadd reassoc float %13, %15
  %17 = getelementptr i8, ptr %11, i64 8
  %18 = load float, ptr %17, align 4, !invariant.load !3, !alias.scope !7, !noalias !15
  %19 = fadd reassoc float %16, %18
  %20 = getelementptr i8, ptr %11, i64 12
  %21 = load float, ptr %20, align 4, !invariant.load !3, !alias.scope !7, !noalias !15
  %22 = fadd reassoc float %19, %21
  %23 = getelementptr i8, ptr %11, i64 16
  %24 = load float, ptr %23, align 4, !invariant.load !3, !alias.scope !7, !noalias !15
  %25 = fadd reassoc float %22, %24
  %26 = getelementptr i8, ptr %11, i64 20
  %27 = load float, ptr %26, align 4, !invariant.load !3, !alias.scope !7, !noalias !15
  %28 = fadd reassoc float %25, %27
  %29 = getelementptr i8, ptr %11, i64 24
  %30 = load float, ptr %29, align 4, !invariant.load !3, !alias.scope !7, !noalias !15
  %31 = fadd reassoc float %28, %30
  %32 = getelementptr i8, ptr %11, i64 28
  %33 = load float, ptr %32, align 4, !invariant.load !3, !alias.scope !7, !noalias !15
  %34 = fadd reassoc float %31, %33
  %35 = getelementptr i8, ptr %11, i64 32
  %36 = load float, ptr %35, align 4, !invariant.load !3, !alias.scope !7, !noalias !15
  %37 = fadd reassoc float %34, %36
  %38 = getelementptr i8, ptr %11, i64 36
  %39 = load float, ptr %38, align 4, !invariant.load !3, !alias.scope !7, !noalias !15
  %40 = fadd reassoc float %37, %39
  %41 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %10
  store float %40, ptr %41, align 4, !alias.scope !12, !noalias !16
  %42 = add nuw nsw i64 %10, 1
  %exitcond.not = icmp eq i64 %42, 128
  br i1 %exitcond.not, label %wrapped_reduce_wrapped.exit, label %.preheader, !llvm.loop !17

wrapped_reduce_wrapped.exit:                      ; preds = %.preheader
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 16}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 5120}
!5 = !{i64 4}
!6 = !{i64 512}
!7 = !{!8}
!8 = distinct !{!8, !9, !"wrapped_reduce_wrapped: argument 0"}
!9 = distinct !{!9, !"wrapped_reduce_wrapped"}
!10 = !{!11}
!11 = distinct !{!11, !9, !"wrapped_reduce_wrapped: argument 1"}
!12 = !{!13}
!13 = distinct !{!13, !9, !"wrapped_reduce_wrapped: argument 2"}
!14 = !{!8, !13}
!15 = !{!11, !13}
!16 = !{!8, !11}
!17 = distinct !{!17, !18}
!18 = !{!"llvm.loop.unroll.disable"}
