; ModuleID = '__compute_module_wrapped_broadcast.1_kernel_module'
source_filename = "__compute_module_wrapped_broadcast.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @wrapped_broadcast.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %3 = load ptr, ptr %2, align 8
  %4 = load i64, ptr %3, align 4, !invariant.load !3
  tail call void @llvm.experimental.noalias.scope.decl(metadata !4)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !7)
  %5 = icmp ult i64 %4, 2
  br i1 %5, label %6, label %wrapped_broadcast.1_wrapped.exit

6:                                                ; preds = %1
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %8 = load ptr, ptr %7, align 8, !invariant.load !3
  %9 = getelementptr inbounds nuw i8, ptr %8, i64 16
  %10 = load ptr, ptr %9, align 8, !invariant.load !3, !dereferenceable !9
  %11 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !10
  %12 = load float, ptr %11, align 4, !invariant.load !3, !alias.scope !4, !noalias !7
  %.idx = shl nuw nsw i64 %4, 19
  %13 = getelementptr i8, ptr %10, i64 %.idx
  br label %.preheader6

.preheader6:                                      ; preds = %6, %54
  %14 = phi i64 [ 0, %6 ], [ %55, %54 ]
  %.idx1 = shl i64 %14, 15
  %15 = getelementptr i8, ptr %13, i64 %.idx1
  br label %.preheader5

.preheader5:                                      ; preds = %.preheader6, %52
  %16 = phi i64 [ 0, %.preheader6 ], [ %53, %52 ]
  %.idx2 = shl i64 %16, 11
  %17 = getelementptr i8, ptr %15, i64 %.idx2
  br label %.preheader

.preheader:                                       ; preds = %.preheader5, %.preheader
  %18 = phi i64 [ 0, %.preheader5 ], [ %51, %.preheader ]
  %.idx3 = shl i64 %18, 7
  %19 = getelementptr i8, ptr %17, i64 %.idx3
  store float %12, ptr %19, align 4, !alias.scope !7, !noalias !4
  %20 = getelementptr i8, ptr %19, i64 4
  store float %12, ptr %20, align 4, !alias.scope !7, !noalias !4
  %21 = getelementptr i8, ptr %19, i64 8
  store float %12, ptr %21, align 4, !alias.scope !7, !noalias !4
  %22 = getelementptr i8, ptr %19, i64 12
  store float %12, ptr %22, align 4, !alias.scope !7, !noalias !4
  %23 = getelementptr i8, ptr %19, i64 16
  store float %12, ptr %23, align 4, !alias.scope !7, !noalias !4
  %24 = getelementptr i8, ptr %19, i64 20
  store float %12, ptr %24, align 4, !alias.scope !7, !noalias !4
  %25 = getelementptr i8, ptr %19, i64 24
  store float %12, ptr %25, align 4, !alias.scope !7, !noalias !4
  %26 = getelementptr i8, ptr %19, i64 28
  store float %12, ptr %26, align 4, !alias.scope !7, !noalias !4
  %27 = getelementptr i8, ptr %19, i64 32
  store float %12, ptr %27, align 4, !alias.scope !7, !noalias !4
  %28 = getelementptr i8, ptr %19, i64 36
  store float %12, ptr %28, align 4, !alias.scope !7, !noalias !4
  %29 = getelementptr i8, ptr %19, i64 40
  store float %12, ptr %29, align 4, !alias.scope !7, !noalias !4
  %30 = getelementptr i8, ptr %19, i64 44
  store float %12, ptr %30, align 4, !alias.scope !7, !noalias !4
  %31 = getelementptr i8, ptr %19, i64 48
  store float %12, ptr %31, align 4, !alias.scope !7, !noalias !4
  %32 = getelementptr i8, ptr %19, i64 52
  store float %12, ptr %32, align 4, !alias.scope !7, !noalias !4
  %33 = getelementptr i8, ptr %19, i64 56
  store float %12, ptr %33, align 4, !alias.scope !7, !noalias !4
  %34 = getelementptr i8, ptr %19, i64 60
  store float %12, ptr %34, align 4, !alias.scope !7, !noalias !4
  %35 = getelementptr i8, ptr %19, i64 64
  store float %12, ptr %35, align 4, !alias.scope !7, !noalias !4
  %36 = getelementptr i8, ptr %19, i64 68
  store float %12, ptr %36, align 4, !alias.scope !7, !noalias !4
  %37 = getelementptr i8, ptr %19, i64 72
  store float %12, ptr %37, align 4, !alias.scope !7, !noalias !4
  %38 = getelementptr i8, ptr %19, i64 76
  store float %12, ptr %38, align 4, !alias.scope !7, !noalias !4
  %39 = getelementptr i8, ptr %19, i64 80
  store float %12, ptr %39, align 4, !alias.scope !7, !noalias !4
  %40 = getelementptr i8, ptr %19, i64 84
  store float %12, ptr %40, align 4, !alias.scope !7, !noalias !4
  %41 = getelementptr i8, ptr %19, i64 88
  store float %12, ptr %41, align 4, !alias.scope !7, !noalias !4
  %42 = getelementptr i8, ptr %19, i64 92
  store float %12, ptr %42, align 4, !alias.scope !7, !noalias !4
  %43 = getelementptr i8, ptr %19, i64 96
  store float %12, ptr %43, align 4, !alias.scope !7, !noalias !4
  %44 = getelementptr i8, ptr %19, i64 100
  store float %12, ptr %44, align 4, !alias.scope !7, !noalias !4
  %45 = getelementptr i8, ptr %19, i64 104
  store float %12, ptr %45, align 4, !alias.scope !7, !noalias !4
  %46 = getelementptr i8, ptr %19, i64 108
  store float %12, ptr %46, align 4, !alias.scope !7, !noalias !4
  %47 = getelementptr i8, ptr %19, i64 112
  store float %12, ptr %47, align 4, !alias.scope !7, !noalias !4
  %48 = getelementptr i8, ptr %19, i64 116
  store float %12, ptr %48, align 4, !alias.scope !7, !noalias !4
  %49 = getelementptr i8, ptr %19, i64 120
  store float %12, ptr %49, align 4, !alias.scope !7, !noalias !4
  %50 = getelementptr i8, ptr %19, i64 124
  store float %12, ptr %50, align 4, !alias.scope !7, !noalias !4
  %51 = add nuw nsw i64 %18, 1
  %exitcond.not = icmp eq i64 %51, 16
  br i1 %exitcond.not, label %52, label %.preheader, !llvm.loop !11

52:                                               ; preds = %.preheader
  %53 = add nuw nsw i64 %16, 1
  %exitcond7.not = icmp eq i64 %53, 16
  br i1 %exitcond7.not, label %54, label %.preheader5, !llvm.loop !11

54:                                               ; preds = %52
  %55 = add nuw nsw i64 %14, 1
  %exitcond8.not = icmp eq i64 %55, 16
  br i1 %exitcond8.not, label %wrapped_broadcast.1_wrapped.exit, label %.preheader6, !llvm.loop !11

wrapped_broadcast.1_wrapped.exit:                 ; preds = %54, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 27}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{!5}
!5 = distinct !{!5, !6, !"wrapped_broadcast.1_wrapped: argument 0"}
!6 = distinct !{!6, !"wrapped_broadcast.1_wrapped"}
!7 = !{!8}
!8 = distinct !{!8, !6, !"wrapped_broadcast.1_wrapped: argument 1"}
!9 = !{i64 1048576}
!10 = !{i64 4}
!11 = distinct !{!11, !12}
!12 = !{!"llvm.loop.unroll.disable"}
