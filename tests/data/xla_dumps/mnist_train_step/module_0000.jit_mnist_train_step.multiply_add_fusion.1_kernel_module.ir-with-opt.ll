; ModuleID = '__compute_module_multiply_add_fusion.1_kernel_module'
source_filename = "__compute_module_multiply_add_fusion.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @multiply_add_fusion.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
multiply_add_fusion.1_wrapped.exit:
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
  %10 = fmul float %8, f0x3F666666
  %11 = fmul float %9, 1.000000e-01
  %12 = fadd float %10, %11
  store float %12, ptr %7, align 4, !alias.scope !10, !noalias !14
  %13 = getelementptr inbounds nuw i8, ptr %5, i64 4
  %14 = load float, ptr %13, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %15 = getelementptr inbounds nuw i8, ptr %3, i64 4
  %16 = load float, ptr %15, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %17 = fmul float %14, f0x3F666666
  %18 = fmul float %16, 1.000000e-01
  %19 = fadd float %17, %18
  %20 = getelementptr inbounds nuw i8, ptr %7, i64 4
  store float %19, ptr %20, align 4, !alias.scope !10, !noalias !14
  %21 = getelementptr inbounds nuw i8, ptr %5, i64 8
  %22 = load float, ptr %21, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %23 = getelementptr inbounds nuw i8, ptr %3, i64 8
  %24 = load float, ptr %23, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %25 = fmul float %22, f0x3F666666
  %26 = fmul float %24, 1.000000e-01
  %27 = fadd float %25, %26
  %28 = getelementptr inbounds nuw i8, ptr %7, i64 8
  store float %27, ptr %28, align 4, !alias.scope !10, !noalias !14
  %29 = getelementptr inbounds nuw i8, ptr %5, i64 12
  %30 = load float, ptr %29, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %31 = getelementptr inbounds nuw i8, ptr %3, i64 12
  %32 = load float, ptr %31, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %33 = fmul float %30, f0x3F666666
  %34 = fmul float %32, 1.000000e-01
  %35 = fadd float %33, %34
  %36 = getelementptr inbounds nuw i8, ptr %7, i64 12
  store float %35, ptr %36, align 4, !alias.scope !10, !noalias !14
  %37 = getelementptr inbounds nuw i8, ptr %5, i64 16
  %38 = load float, ptr %37, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %39 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %40 = load float, ptr %39, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %41 = fmul float %38, f0x3F666666
  %42 = fmul float %40, 1.000000e-01
  %43 = fadd float %41, %42
  %44 = getelementptr inbounds nuw i8, ptr %7, i64 16
  store float %43, ptr %44, align 4, !alias.scope !10, !noalias !14
  %45 = getelementptr inbounds nuw i8, ptr %5, i64 20
  %46 = load float, ptr %45, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %47 = getelementptr inbounds nuw i8, ptr %3, i64 20
  %48 = load float, ptr %47, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %49 = fmul float %46, f0x3F666666
  %50 = fmul float %48, 1.000000e-01
  %51 = fadd float %49, %50
  %52 = getelementptr inbounds nuw i8, ptr %7, i64 20
  store float %51, ptr %52, align 4, !alias.scope !10, !noalias !14
  %53 = getelementptr inbounds nuw i8, ptr %5, i64 24
  %54 = load float, ptr %53, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %55 = getelementptr inbounds nuw i8, ptr %3, i64 24
  %56 = load float, ptr %55, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %57 = fmul float %54, f0x3F666666
  %58 = fmul float %56, 1.000000e-01
  %59 = fadd float %57, %58
  %60 = getelementptr inbounds nuw i8, ptr %7, i64 24
  store float %59, ptr %60, align 4, !alias.scope !10, !noalias !14
  %61 = getelementptr inbounds nuw i8, ptr %5, i64 28
  %62 = load float, ptr %61, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %63 = getelementptr inbounds nuw i8, ptr %3, i64 28
  %64 = load float, ptr %63, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %65 = fmul float %62, f0x3F666666
  %66 = fmul float %64, 1.000000e-01
  %67 = fadd float %65, %66
  %68 = getelementptr inbounds nuw i8, ptr %7, i64 28
  store float %67, ptr %68, align 4, !alias.scope !10, !noalias !14
  %69 = getelementptr inbounds nuw i8, ptr %5, i64 32
  %70 = load float, ptr %69, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %71 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %72 = load float, ptr %71, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %73 = fmul float %70, f0x3F666666
  %74 = fmul float %72, 1.000000e-01
  %75 = fadd float %73, %74
  %76 = getelementptr inbounds nuw i8, ptr %7, i64 32
  store float %75, ptr %76, align 4, !alias.scope !10, !noalias !14
  %77 = getelementptr inbounds nuw i8, ptr %5, i64 36
  %78 = load float, ptr %77, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %79 = getelementptr inbounds nuw i8, ptr %3, i64 36
  %80 = load float, ptr %79, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %81 = fmul float %78, f0x3F666666
  %82 = fmul float %80, 1.000000e-01
  %83 = fadd float %81, %82
  %84 = getelementptr inbounds nuw i8, ptr %7, i64 36
  store float %83, ptr %84, align 4, !alias.scope !10, !noalias !14
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 4}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 40}
!5 = !{!6}
!6 = distinct !{!6, !7, !"multiply_add_fusion.1_wrapped: argument 0"}
!7 = distinct !{!7, !"multiply_add_fusion.1_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"multiply_add_fusion.1_wrapped: argument 1"}
!10 = !{!11}
!11 = distinct !{!11, !7, !"multiply_add_fusion.1_wrapped: argument 2"}
!12 = !{!6, !11}
!13 = !{!9, !11}
!14 = !{!6, !9}
