; ModuleID = '__compute_module_multiply_add_fusion.4_kernel_module'
source_filename = "__compute_module_multiply_add_fusion.4_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @multiply_add_fusion.4(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !5
  %7 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %8 = load ptr, ptr %7, align 8, !invariant.load !3, !dereferenceable !5
  tail call void @llvm.experimental.noalias.scope.decl(metadata !6)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !9)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !11)
  br label %9

9:                                                ; preds = %1, %9
  %10 = phi i64 [ 0, %1 ], [ %75, %9 ]
  %11 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %10
  %12 = load i32, ptr %11, align 4, !invariant.load !3, !alias.scope !11, !noalias !13
  %13 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %10
  %14 = load float, ptr %13, align 4, !invariant.load !3, !alias.scope !9, !noalias !14
  %.idx = mul nuw nsw i64 %10, 40
  %15 = getelementptr i8, ptr %4, i64 %.idx
  %16 = icmp eq i32 %12, 0
  %17 = load float, ptr %15, align 4, !alias.scope !6, !noalias !15
  %18 = select i1 %16, float -7.812500e-03, float 0.000000e+00
  %19 = fmul float %14, %17
  %20 = fadd float %18, %19
  store float %20, ptr %15, align 4, !alias.scope !6, !noalias !15
  %21 = icmp eq i32 %12, 1
  %22 = getelementptr i8, ptr %15, i64 4
  %23 = load float, ptr %22, align 4, !alias.scope !6, !noalias !15
  %24 = select i1 %21, float -7.812500e-03, float 0.000000e+00
  %25 = fmul float %14, %23
  %26 = fadd float %24, %25
  store float %26, ptr %22, align 4, !alias.scope !6, !noalias !15
  %27 = icmp eq i32 %12, 2
  %28 = getelementptr i8, ptr %15, i64 8
  %29 = load float, ptr %28, align 4, !alias.scope !6, !noalias !15
  %30 = select i1 %27, float -7.812500e-03, float 0.000000e+00
  %31 = fmul float %14, %29
  %32 = fadd float %30, %31
  store float %32, ptr %28, align 4, !alias.scope !6, !noalias !15
  %33 = icmp eq i32 %12, 3
  %34 = getelementptr i8, ptr %15, i64 12
  %35 = load float, ptr %34, align 4, !alias.scope !6, !noalias !15
  %36 = select i1 %33, float -7.812500e-03, float 0.000000e+00
  %37 = fmul float %14, %35
  %38 = fadd float %36, %37
  store float %38, ptr %34, align 4, !alias.scope !6, !noalias !15
  %39 = icmp eq i32 %12, 4
  %40 = getelementptr i8, ptr %15, i64 16
  %41 = load float, ptr %40, align 4, !alias.scope !6, !noalias !15
  %42 = select i1 %39, float -7.812500e-03, float 0.000000e+00
  %43 = fmul float %14, %41
  %44 = fadd float %42, %43
  store float %44, ptr %40, align 4, !alias.scope !6, !noalias !15
  %45 = icmp eq i32 %12, 5
  %46 = getelementptr i8, ptr %15, i64 20
  %47 = load float, ptr %46, align 4, !alias.scope !6, !noalias !15
  %48 = select i1 %45, float -7.812500e-03, float 0.000000e+00
  %49 = fmul float %14, %47
  %50 = fadd float %48, %49
  store float %50, ptr %46, align 4, !alias.scope !6, !noalias !15
  %51 = icmp eq i32 %12, 6
  %52 = getelementptr i8, ptr %15, i64 24
  %53 = load float, ptr %52, align 4, !alias.scope !6, !noalias !15
  %54 = select i1 %51, float -7.812500e-03, float 0.000000e+00
  %55 = fmul float %14, %53
  %56 = fadd float %54, %55
  store float %56, ptr %52, align 4, !alias.scope !6, !noalias !15
  %57 = icmp eq i32 %12, 7
  %58 = getelementptr i8, ptr %15, i64 28
  %59 = load float, ptr %58, align 4, !alias.scope !6, !noalias !15
  %60 = select i1 %57, float -7.812500e-03, float 0.000000e+00
  %61 = fmul float %14, %59
  %62 = fadd float %60, %61
  store float %62, ptr %58, align 4, !alias.scope !6, !noalias !15
  %63 = icmp eq i32 %12, 8
  %64 = getelementptr i8, ptr %15, i64 32
  %65 = load float, ptr %64, align 4, !alias.scope !6, !noalias !15
  %66 = select i1 %63, float -7.812500e-03, float 0.000000e+00
  %67 = fmul float %14, %65
  %68 = fadd float %66, %67
  store float %68, ptr %64, align 4, !alias.scope !6, !noalias !15
  %69 = icmp eq i32 %12, 9
  %70 = getelementptr i8, ptr %15, i64 36
  %71 = load float, ptr %70, align 4, !alias.scope !6, !noalias !15
  %72 = select i1 %69, float -7.812500e-03, float 0.000000e+00
  %73 = fmul float %14, %71
  %74 = fadd float %72, %73
  store float %74, ptr %70, align 4, !alias.scope !6, !noalias !15
  %75 = add nuw nsw i64 %10, 1
  %exitcond.not = icmp eq i64 %75, 128
  br i1 %exitcond.not, label %multiply_add_fusion.4_wrapped.exit, label %9, !llvm.loop !16

multiply_add_fusion.4_wrapped.exit:               ; preds = %9
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 7}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 5120}
!5 = !{i64 512}
!6 = !{!7}
!7 = distinct !{!7, !8, !"multiply_add_fusion.4_wrapped: argument 0"}
!8 = distinct !{!8, !"multiply_add_fusion.4_wrapped"}
!9 = !{!10}
!10 = distinct !{!10, !8, !"multiply_add_fusion.4_wrapped: argument 1"}
!11 = !{!12}
!12 = distinct !{!12, !8, !"multiply_add_fusion.4_wrapped: argument 2"}
!13 = !{!7, !10}
!14 = !{!7, !12}
!15 = !{!10, !12}
!16 = distinct !{!16, !17}
!17 = !{!"llvm.loop.unroll.disable"}
