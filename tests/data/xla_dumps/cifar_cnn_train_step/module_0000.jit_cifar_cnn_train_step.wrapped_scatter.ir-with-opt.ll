; ModuleID = '__compute_module_wrapped_scatter'
source_filename = "__compute_module_wrapped_scatter"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @wrapped_scatter(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !4
  %4 = load ptr, ptr %3, align 8, !invariant.load !4, !dereferenceable !5
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !4, !dereferenceable !5
  %7 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %8 = load ptr, ptr %7, align 8, !invariant.load !4, !dereferenceable !6
  tail call void @llvm.experimental.noalias.scope.decl(metadata !7)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !10)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !12)
  br label %9

9:                                                ; preds = %1, %36
  %indvars.iv = phi i64 [ 0, %1 ], [ %indvars.iv.next, %36 ]
  %.idx = shl nuw nsw i64 %indvars.iv, 4
  %10 = getelementptr inbounds nuw i8, ptr %6, i64 %.idx
  %11 = load i32, ptr %10, align 4, !alias.scope !10, !noalias !14
  %12 = getelementptr i8, ptr %10, i64 4
  %13 = load i32, ptr %12, align 4, !alias.scope !10, !noalias !14
  %14 = getelementptr i8, ptr %10, i64 8
  %15 = load i32, ptr %14, align 4, !alias.scope !10, !noalias !14
  %16 = or i32 %15, %13
  %17 = icmp ult i32 %16, 16
  %18 = getelementptr i8, ptr %10, i64 12
  %19 = load i32, ptr %18, align 4, !alias.scope !10, !noalias !14
  %20 = or i32 %19, %11
  %21 = icmp ult i32 %20, 32
  %22 = and i1 %17, %21
  br i1 %22, label %23, label %36

23:                                               ; preds = %9
  %24 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %indvars.iv
  %25 = load float, ptr %24, align 4, !alias.scope !12, !noalias !15
  %26 = shl nuw nsw i32 %11, 13
  %27 = shl nuw nsw i32 %13, 9
  %28 = or disjoint i32 %27, %26
  %29 = shl nuw nsw i32 %15, 5
  %30 = or disjoint i32 %28, %29
  %31 = or disjoint i32 %30, %19
  %32 = zext nneg i32 %31 to i64
  %33 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %32
  %34 = load float, ptr %33, align 4, !alias.scope !7, !noalias !16
  %35 = fadd float %25, %34
  store float %35, ptr %33, align 4, !alias.scope !7, !noalias !16
  br label %36

36:                                               ; preds = %23, %9
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond.not = icmp eq i64 %indvars.iv.next, 65536
  br i1 %exitcond.not, label %wrapped_scatter_wrapped.exit, label %9

wrapped_scatter_wrapped.exit:                     ; preds = %36
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1, !2}
!xla_cpu_memory_region_name = !{!3}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_backend_extra_options", !"xla_cpu_disable_loop_unrolling"}
!2 = !{i32 1, !"xla_dylib_index", i64 0}
!3 = !{!"xla_cpu_emitter__cpu_scatter_fusion__hlo_opcode__fusion"}
!4 = !{}
!5 = !{i64 1048576}
!6 = !{i64 262144}
!7 = !{!8}
!8 = distinct !{!8, !9, !"wrapped_scatter_wrapped: argument 0"}
!9 = distinct !{!9, !"wrapped_scatter_wrapped"}
!10 = !{!11}
!11 = distinct !{!11, !9, !"wrapped_scatter_wrapped: argument 1"}
!12 = !{!13}
!13 = distinct !{!13, !9, !"wrapped_scatter_wrapped: argument 2"}
!14 = !{!8, !13}
!15 = !{!8, !11}
!16 = !{!11, !13}
