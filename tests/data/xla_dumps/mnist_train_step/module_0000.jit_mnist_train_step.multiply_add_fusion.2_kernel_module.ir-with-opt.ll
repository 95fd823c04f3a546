; ModuleID = '__compute_module_multiply_add_fusion.2_kernel_module'
source_filename = "__compute_module_multiply_add_fusion.2_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @multiply_add_fusion.2(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !4
  %7 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %8 = load ptr, ptr %7, align 8, !invariant.load !3, !dereferenceable !4
  tail call void @llvm.experimental.noalias.scope.decl(metadata !5)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !8)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !10)
  br label %9

9:                                                ; preds = %1, %9
  %10 = phi i64 [ 0, %1 ], [ %111, %9 ]
  %11 = mul nuw nsw i64 %10, 10
  %12 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %11
  %13 = load float, ptr %12, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %14 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %11
  %15 = load float, ptr %14, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %16 = fmul float %15, 1.000000e-03
  %17 = fmul float %13, 9.990000e-01
  %18 = fmul float %15, %16
  %19 = fadd float %17, %18
  %20 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %11
  store float %19, ptr %20, align 4, !alias.scope !10, !noalias !14
  %21 = or disjoint i64 %11, 1
  %22 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %21
  %23 = load float, ptr %22, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %24 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %21
  %25 = load float, ptr %24, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %26 = fmul float %25, 1.000000e-03
  %27 = fmul float %23, 9.990000e-01
  %28 = fmul float %25, %26
  %29 = fadd float %27, %28
  %30 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %21
  store float %29, ptr %30, align 4, !alias.scope !10, !noalias !14
  %31 = add nuw nsw i64 %11, 2
  %32 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %31
  %33 = load float, ptr %32, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %34 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %31
  %35 = load float, ptr %34, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %36 = fmul float %35, 1.000000e-03
  %37 = fmul float %33, 9.990000e-01
  %38 = fmul float %35, %36
  %39 = fadd float %37, %38
  %40 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %31
  store float %39, ptr %40, align 4, !alias.scope !10, !noalias !14
  %41 = add nuw nsw i64 %11, 3
  %42 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %41
  %43 = load float, ptr %42, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %44 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %41
  %45 = load float, ptr %44, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %46 = fmul float %45, 1.000000e-03
  %47 = fmul float %43, 9.990000e-01
  %48 = fmul float %45, %46
  %49 = fadd float %47, %48
  %50 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %41
  store float %49, ptr %50, align 4, !alias.scope !10, !noalias !14
  %51 = add nuw nsw i64 %11, 4
  %52 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %51
  %53 = load float, ptr %52, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %54 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %51
  %55 = load float, ptr %54, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %56 = fmul float %55, 1.000000e-03
  %57 = fmul float %53, 9.990000e-01
  %58 = fmul float %55, %56
  %59 = fadd float %57, %58
  %60 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %51
  store float %59, ptr %60, align 4, !alias.scope !10, !noalias !14
  %61 = add nuw nsw i64 %11, 5
  %62 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %61
  %63 = load float, ptr %62, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %64 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %61
  %65 = load float, ptr %64, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %66 = fmul float %65, 1.000000e-03
  %67 = fmul float %63, 9.990000e-01
  %68 = fmul float %65, %66
  %69 = fadd float %67, %68
  %70 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %61
  store float %69, ptr %70, align 4, !alias.scope !10, !noalias !14
  %71 = add nuw nsw i64 %11, 6
  %72 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %71
  %73 = load float, ptr %72, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %74 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %71
  %75 = load float, ptr %74, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %76 = fmul float %75, 1.000000e-03
  %77 = fmul float %73, 9.990000e-01
  %78 = fmul float %75, %76
  %79 = fadd float %77, %78
  %80 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %71
  store float %79, ptr %80, align 4, !alias.scope !10, !noalias !14
  %81 = add nuw nsw i64 %11, 7
  %82 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %81
  %83 = load float, ptr %82, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %84 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %81
  %85 = load float, ptr %84, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %86 = fmul float %85, 1.000000e-03
  %87 = fmul float %83, 9.990000e-01
  %88 = fmul float %85, %86
  %89 = fadd float %87, %88
  %90 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %81
  store float %89, ptr %90, align 4, !alias.scope !10, !noalias !14
  %91 = add nuw nsw i64 %11, 8
  %92 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %91
  %93 = load float, ptr %92, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %94 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %91
  %95 = load float, ptr %94, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %96 = fmul float %95, 1.000000e-03
  %97 = fmul float %93, 9.990000e-01
  %98 = fmul float %95, %96
  %99 = fadd float %97, %98
  %100 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %91
  store float %99, ptr %100, align 4, !alias.scope !10, !noalias !14
  %101 = add nuw nsw i64 %11, 9
  %102 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %101
  %103 = load float, ptr %102, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %104 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %101
  %105 = load float, ptr %104, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %106 = fmul float %105, 1.000000e-03
  %107 = fmul float %103, 9.990000e-01
  %108 = fmul float %105, %106
  %109 = fadd float %107, %108
  %110 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %101
  store float %109, ptr %110, align 4, !alias.scope !10, !noalias !14
  %111 = add nuw nsw i64 %10, 1
  %exitcond.not = icmp eq i64 %111, 784
  br i1 %exitcond.not, label %multiply_add_fusion.2_wrapped.exit, label %9, !llvm.loop !15

multiply_add_fusion.2_wrapped.exit:               ; preds = %9
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 5}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 31360}
!5 = !{!6}
!6 = distinct !{!6, !7, !"multiply_add_fusion.2_wrapped: argument 0"}
!7 = distinct !{!7, !"multiply_add_fusion.2_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"multiply_add_fusion.2_wrapped: argument 1"}
!10 = !{!11}
!11 = distinct !{!11, !7, !"multiply_add_fusion.2_wrapped: argument 2"}
!12 = !{!6, !11}
!13 = !{!9, !11}
!14 = !{!6, !9}
!15 = distinct !{!15, !16}
!16 = !{!"llvm.loop.unroll.disable"}
