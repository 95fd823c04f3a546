; ModuleID = '__compute_module_multiply_add_fusion.3_kernel_module'
source_filename = "__compute_module_multiply_add_fusion.3_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @multiply_add_fusion.3(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
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
  %10 = phi i64 [ 0, %1 ], [ %101, %9 ]
  %11 = mul nuw nsw i64 %10, 10
  %12 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %11
  %13 = load float, ptr %12, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %14 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %11
  %15 = load float, ptr %14, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %16 = fmul float %13, f0x3F666666
  %17 = fmul float %15, 1.000000e-01
  %18 = fadd float %16, %17
  %19 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %11
  store float %18, ptr %19, align 4, !alias.scope !10, !noalias !14
  %20 = or disjoint i64 %11, 1
  %21 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %20
  %22 = load float, ptr %21, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %23 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %20
  %24 = load float, ptr %23, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %25 = fmul float %22, f0x3F666666
  %26 = fmul float %24, 1.000000e-01
  %27 = fadd float %25, %26
  %28 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %20
  store float %27, ptr %28, align 4, !alias.scope !10, !noalias !14
  %29 = add nuw nsw i64 %11, 2
  %30 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %29
  %31 = load float, ptr %30, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %32 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %29
  %33 = load float, ptr %32, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %34 = fmul float %31, f0x3F666666
  %35 = fmul float %33, 1.000000e-01
  %36 = fadd float %34, %35
  %37 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %29
  store float %36, ptr %37, align 4, !alias.scope !10, !noalias !14
  %38 = add nuw nsw i64 %11, 3
  %39 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %38
  %40 = load float, ptr %39, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %41 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %38
  %42 = load float, ptr %41, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %43 = fmul float %40, f0x3F666666
  %44 = fmul float %42, 1.000000e-01
  %45 = fadd float %43, %44
  %46 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %38
  store float %45, ptr %46, align 4, !alias.scope !10, !noalias !14
  %47 = add nuw nsw i64 %11, 4
  %48 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %47
  %49 = load float, ptr %48, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %50 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %47
  %51 = load float, ptr %50, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %52 = fmul float %49, f0x3F666666
  %53 = fmul float %51, 1.000000e-01
  %54 = fadd float %52, %53
  %55 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %47
  store float %54, ptr %55, align 4, !alias.scope !10, !noalias !14
  %56 = add nuw nsw i64 %11, 5
  %57 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %56
  %58 = load float, ptr %57, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %59 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %56
  %60 = load float, ptr %59, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %61 = fmul float %58, f0x3F666666
  %62 = fmul float %60, 1.000000e-01
  %63 = fadd float %61, %62
  %64 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %56
  store float %63, ptr %64, align 4, !alias.scope !10, !noalias !14
  %65 = add nuw nsw i64 %11, 6
  %66 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %65
  %67 = load float, ptr %66, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %68 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %65
  %69 = load float, ptr %68, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %70 = fmul float %67, f0x3F666666
  %71 = fmul float %69, 1.000000e-01
  %72 = fadd float %70, %71
  %73 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %65
  store float %72, ptr %73, align 4, !alias.scope !10, !noalias !14
  %74 = add nuw nsw i64 %11, 7
  %75 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %74
  %76 = load float, ptr %75, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %77 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %74
  %78 = load float, ptr %77, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %79 = fmul float %76, f0x3F666666
  %80 = fmul float %78, 1.000000e-01
  %81 = fadd float %79, %80
  %82 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %74
  store float %81, ptr %82, align 4, !alias.scope !10, !noalias !14
  %83 = add nuw nsw i64 %11, 8
  %84 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %83
  %85 = load float, ptr %84, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %86 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %83
  %87 = load float, ptr %86, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %88 = fmul float %85, f0x3F666666
  %89 = fmul float %87, 1.000000e-01
  %90 = fadd float %88, %89
  %91 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %83
  store float %90, ptr %91, align 4, !alias.scope !10, !noalias !14
  %92 = add nuw nsw i64 %11, 9
  %93 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %92
  %94 = load float, ptr %93, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %95 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %92
  %96 = load float, ptr %95, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %97 = fmul float %94, f0x3F666666
  %98 = fmul float %96, 1.000000e-01
  %99 = fadd float %97, %98
  %100 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %92
  store float %99, ptr %100, align 4, !alias.scope !10, !noalias !14
  %101 = add nuw nsw i64 %10, 1
  %exitcond.not = icmp eq i64 %101, 784
  br i1 %exitcond.not, label %multiply_add_fusion.3_wrapped.exit, label %9, !llvm.loop !15

multiply_add_fusion.3_wrapped.exit:               ; preds = %9
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 6}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 31360}
!5 = !{!6}
!6 = distinct !{!6, !7, !"multiply_add_fusion.3_wrapped: argument 0"}
!7 = distinct !{!7, !"multiply_add_fusion.3_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"multiply_add_fusion.3_wrapped: argument 1"}
!10 = !{!11}
!11 = distinct !{!11, !7, !"multiply_add_fusion.3_wrapped: argument 2"}
!12 = !{!6, !11}
!13 = !{!9, !11}
!14 = !{!6, !9}
!15 = distinct !{!15, !16}
!16 = !{!"llvm.loop.unroll.disable"}
