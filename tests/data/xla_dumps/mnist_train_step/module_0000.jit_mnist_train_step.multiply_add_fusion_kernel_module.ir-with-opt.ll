; ModuleID = '__compute_module_multiply_add_fusion_kernel_module'
source_filename = "__compute_module_multiply_add_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @multiply_add_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
multiply_add_fusion_wrapped.exit:
  %1 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %2 = load ptr, ptr %1, align 8, !invariant.load !3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3, !dereferenceable !4
  %4 = getelementptr inbounds nuw i8, ptr %2, i64 16
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds nuw i8, ptr %2, i64 32
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !4
  tail call void @llvm.experimental.noalias.scope.decl(metadata !5)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !8)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !10)
  %8 = load float, ptr %5, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %9 = load float, ptr %3, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %10 = fmul float %9, 1.000000e-03
  %11 = fmul float %8, 9.990000e-01
  %12 = fmul float %9, %10
  %13 = fadd float %11, %12
  store float %13, ptr %7, align 4, !alias.scope !10, !noalias !14
  %14 = getelementptr inbounds nuw i8, ptr %5, i64 4
  %15 = load float, ptr %14, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %16 = getelementptr inbounds nuw i8, ptr %3, i64 4
  %17 = load float, ptr %16, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %18 = fmul float %17, 1.000000e-03
  %19 = fmul float %15, 9.990000e-01
  %20 = fmul float %17, %18
  %21 = fadd float %19, %20
  %22 = getelementptr inbounds nuw i8, ptr %7, i64 4
  store float %21, ptr %22, align 4, !alias.scope !10, !noalias !14
  %23 = getelementptr inbounds nuw i8, ptr %5, i64 8
  %24 = load float, ptr %23, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %25 = getelementptr inbounds nuw i8, ptr %3, i64 8
  %26 = load float, ptr %25, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %27 = fmul float %26, 1.000000e-03
  %28 = fmul float %24, 9.990000e-01
  %29 = fmul float %26, %27
  %30 = fadd float %28, %29
  %31 = getelementptr inbounds nuw i8, ptr %7, i64 8
  store float %30, ptr %31, align 4, !alias.scope !10, !noalias !14
  %32 = getelementptr inbounds nuw i8, ptr %5, i64 12
  %33 = load float, ptr %32, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %34 = getelementptr inbounds nuw i8, ptr %3, i64 12
  %35 = load float, ptr %34, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %36 = fmul float %35, 1.000000e-03
  %37 = fmul float %33, 9.990000e-01
  %38 = fmul float %35, %36
  %39 = fadd float %37, %38
  %40 = getelementptr inbounds nuw i8, ptr %7, i64 12
  store float %39, ptr %40, align 4, !alias.scope !10, !noalias !14
  %41 = getelementptr inbounds nuw i8, ptr %5, i64 16
  %42 = load float, ptr %41, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %43 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %44 = load float, ptr %43, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %45 = fmul float %44, 1.000000e-03
  %46 = fmul float %42, 9.990000e-01
  %47 = fmul float %44, %45
  %48 = fadd float %46, %47
  %49 = getelementptr inbounds nuw i8, ptr %7, i64 16
  store float %48, ptr %49, align 4, !alias.scope !10, !noalias !14
  %50 = getelementptr inbounds nuw i8, ptr %5, i64 20
  %51 = load float, ptr %50, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %52 = getelementptr inbounds nuw i8, ptr %3, i64 20
  %53 = load float, ptr %52, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %54 = fmul float %53, 1.000000e-03
  %55 = fmul float %51, 9.990000e-01
  %56 = fmul float %53, %54
  %57 = fadd float %55, %56
  %58 = getelementptr inbounds nuw i8, ptr %7, i64 20
  store float %57, ptr %58, align 4, !alias.scope !10, !noalias !14
  %59 = getelementptr inbounds nuw i8, ptr %5, i64 24
  %60 = load float, ptr %59, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %61 = getelementptr inbounds nuw i8, ptr %3, i64 24
  %62 = load float, ptr %61, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %63 = fmul float %62, 1.000000e-03
  %64 = fmul float %60, 9.990000e-01
  %65 = fmul float %62, %63
  %66 = fadd float %64, %65
  %67 = getelementptr inbounds nuw i8, ptr %7, i64 24
  store float %66, ptr %67, align 4, !alias.scope !10, !noalias !14
  %68 = getelementptr inbounds nuw i8, ptr %5, i64 28
  %69 = load float, ptr %68, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %70 = getelementptr inbounds nuw i8, ptr %3, i64 28
  %71 = load float, ptr %70, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %72 = fmul float %71, 1.000000e-03
  %73 = fmul float %69, 9.990000e-01
  %74 = fmul float %71, %72
  %75 = fadd float %73, %74
  %76 = getelementptr inbounds nuw i8, ptr %7, i64 28
  store float %75, ptr %76, align 4, !alias.scope !10, !noalias !14
  %77 = getelementptr inbounds nuw i8, ptr %5, i64 32
  %78 = load float, ptr %77, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %79 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %80 = load float, ptr %79, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %81 = fmul float %80, 1.000000e-03
  %82 = fmul float %78, 9.990000e-01
  %83 = fmul float %80, %81
  %84 = fadd float %82, %83
  %85 = getelementptr inbounds nuw i8, ptr %7, i64 32
  store float %84, ptr %85, align 4, !alias.scope !10, !noalias !14
  %86 = getelementptr inbounds nuw i8, ptr %5, i64 36
  %87 = load float, ptr %86, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %88 = getelementptr inbounds nuw i8, ptr %3, i64 36
  %89 = load float, ptr %88, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %90 = fmul float %89, 1.000000e-03
  %91 = fmul float %87, 9.990000e-01
  %92 = fmul float %89, %90
  %93 = fadd float %91, %92
  %94 = getelementptr inbounds nuw i8, ptr %7, i64 36
  store float %93, ptr %94, align 4, !alias.scope !10, !noalias !14
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 3}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 40}
!5 = !{!6}
!6 = distinct !{!6, !7, !"multiply_add_fusion_wrapped: argument 0"}
!7 = distinct !{!7, !"multiply_add_fusion_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"multiply_add_fusion_wrapped: argument 1"}
!10 = !{!11}
!11 = distinct !{!11, !7, !"multiply_add_fusion_wrapped: argument 2"}
!12 = !{!6, !11}
!13 = !{!9, !11}
!14 = !{!6, !9}
