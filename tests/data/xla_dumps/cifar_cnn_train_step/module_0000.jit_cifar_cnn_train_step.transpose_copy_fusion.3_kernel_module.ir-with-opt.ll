; ModuleID = '__compute_module_transpose_copy_fusion.3_kernel_module'
source_filename = "__compute_module_transpose_copy_fusion.3_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @transpose_copy_fusion.3(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !4
  tail call void @llvm.experimental.noalias.scope.decl(metadata !5)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !8)
  br label %7

7:                                                ; preds = %1, %70
  %8 = phi i64 [ 0, %1 ], [ %71, %70 ]
  %9 = mul nsw i64 %8, -1536
  %.idx1 = mul nuw nsw i64 %8, 6144
  %10 = getelementptr i8, ptr %6, i64 %.idx1
  br label %11

11:                                               ; preds = %7, %68
  %12 = phi i64 [ 0, %7 ], [ %69, %68 ]
  %13 = shl nuw nsw i64 %12, 9
  %14 = sub nsw i64 %9, %13
  %15 = getelementptr [4 x i8], ptr %4, i64 %14
  %.idx2 = shl nuw nsw i64 %12, 11
  %16 = getelementptr i8, ptr %10, i64 %.idx2
  br label %.preheader

.preheader:                                       ; preds = %11, %.preheader
  %17 = phi i64 [ 0, %11 ], [ %67, %.preheader ]
  %18 = getelementptr [4 x i8], ptr %15, i64 %17
  %.idx3 = shl i64 %17, 6
  %19 = getelementptr i8, ptr %16, i64 %.idx3
  %20 = getelementptr i8, ptr %18, i64 16384
  %21 = load float, ptr %20, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  store float %21, ptr %19, align 4, !alias.scope !8, !noalias !5
  %22 = getelementptr i8, ptr %18, i64 16512
  %23 = load float, ptr %22, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %24 = getelementptr i8, ptr %19, i64 4
  store float %23, ptr %24, align 4, !alias.scope !8, !noalias !5
  %25 = getelementptr i8, ptr %18, i64 16640
  %26 = load float, ptr %25, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %27 = getelementptr i8, ptr %19, i64 8
  store float %26, ptr %27, align 4, !alias.scope !8, !noalias !5
  %28 = getelementptr i8, ptr %18, i64 16768
  %29 = load float, ptr %28, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %30 = getelementptr i8, ptr %19, i64 12
  store float %29, ptr %30, align 4, !alias.scope !8, !noalias !5
  %31 = getelementptr i8, ptr %18, i64 16896
  %32 = load float, ptr %31, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %33 = getelementptr i8, ptr %19, i64 16
  store float %32, ptr %33, align 4, !alias.scope !8, !noalias !5
  %34 = getelementptr i8, ptr %18, i64 17024
  %35 = load float, ptr %34, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %36 = getelementptr i8, ptr %19, i64 20
  store float %35, ptr %36, align 4, !alias.scope !8, !noalias !5
  %37 = getelementptr i8, ptr %18, i64 17152
  %38 = load float, ptr %37, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %39 = getelementptr i8, ptr %19, i64 24
  store float %38, ptr %39, align 4, !alias.scope !8, !noalias !5
  %40 = getelementptr i8, ptr %18, i64 17280
  %41 = load float, ptr %40, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %42 = getelementptr i8, ptr %19, i64 28
  store float %41, ptr %42, align 4, !alias.scope !8, !noalias !5
  %43 = getelementptr i8, ptr %18, i64 17408
  %44 = load float, ptr %43, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %45 = getelementptr i8, ptr %19, i64 32
  store float %44, ptr %45, align 4, !alias.scope !8, !noalias !5
  %46 = getelementptr i8, ptr %18, i64 17536
  %47 = load float, ptr %46, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %48 = getelementptr i8, ptr %19, i64 36
  store float %47, ptr %48, align 4, !alias.scope !8, !noalias !5
  %49 = getelementptr i8, ptr %18, i64 17664
  %50 = load float, ptr %49, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %51 = getelementptr i8, ptr %19, i64 40
  store float %50, ptr %51, align 4, !alias.scope !8, !noalias !5
  %52 = getelementptr i8, ptr %18, i64 17792
  %53 = load float, ptr %52, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %54 = getelementptr i8, ptr %19, i64 44
  store float %53, ptr %54, align 4, !alias.scope !8, !noalias !5
  %55 = getelementptr i8, ptr %18, i64 17920
  %56 = load float, ptr %55, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %57 = getelementptr i8, ptr %19, i64 48
  store float %56, ptr %57, align 4, !alias.scope !8, !noalias !5
  %58 = getelementptr i8, ptr %18, i64 18048
  %59 = load float, ptr %58, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %60 = getelementptr i8, ptr %19, i64 52
  store float %59, ptr %60, align 4, !alias.scope !8, !noalias !5
  %61 = getelementptr i8, ptr %18, i64 18176
  %62 = load float, ptr %61, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %63 = getelementptr i8, ptr %19, i64 56
  store float %62, ptr %63, align 4, !alias.scope !8, !noalias !5
  %64 = getelementptr i8, ptr %18, i64 18304
  %65 = load float, ptr %64, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %66 = getelementptr i8, ptr %19, i64 60
  store float %65, ptr %66, align 4, !alias.scope !8, !noalias !5
  %67 = add nuw nsw i64 %17, 1
  %exitcond.not = icmp eq i64 %67, 32
  br i1 %exitcond.not, label %68, label %.preheader, !llvm.loop !10

68:                                               ; preds = %.preheader
  %69 = add nuw nsw i64 %12, 1
  %exitcond6.not = icmp eq i64 %69, 3
  br i1 %exitcond6.not, label %70, label %11, !llvm.loop !10

70:                                               ; preds = %68
  %71 = add nuw nsw i64 %8, 1
  %exitcond7.not = icmp eq i64 %71, 3
  br i1 %exitcond7.not, label %transpose_copy_fusion.3_wrapped.exit, label %7, !llvm.loop !10

transpose_copy_fusion.3_wrapped.exit:             ; preds = %70
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 24}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 18432}
!5 = !{!6}
!6 = distinct !{!6, !7, !"transpose_copy_fusion.3_wrapped: argument 0"}
!7 = distinct !{!7, !"transpose_copy_fusion.3_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"transpose_copy_fusion.3_wrapped: argument 1"}
!10 = distinct !{!10, !11}
!11 = !{!"llvm.loop.unroll.disable"}
