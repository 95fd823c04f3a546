; ModuleID = '__compute_module_multiply_subtract_fusion.1_kernel_module'
source_filename = "__compute_module_multiply_subtract_fusion.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @multiply_subtract_fusion.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !4
  tail call void @llvm.experimental.noalias.scope.decl(metadata !5)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !8)
  br label %7

7:                                                ; preds = %1, %7
  %8 = phi i64 [ 0, %1 ], [ %79, %7 ]
  %9 = mul nuw nsw i64 %8, 10
  %10 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %9
  %11 = load float, ptr %10, align 4, !alias.scope !8, !noalias !5
  %12 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %9
  %13 = load float, ptr %12, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %14 = fmul float %11, f0x3C23D70A
  %15 = fsub float %13, %14
  store float %15, ptr %10, align 4, !alias.scope !8, !noalias !5
  %16 = or disjoint i64 %9, 1
  %17 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %16
  %18 = load float, ptr %17, align 4, !alias.scope !8, !noalias !5
  %19 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %16
  %20 = load float, ptr %19, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %21 = fmul float %18, f0x3C23D70A
  %22 = fsub float %20, %21
  store float %22, ptr %17, align 4, !alias.scope !8, !noalias !5
  %23 = add nuw nsw i64 %9, 2
  %24 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %23
  %25 = load float, ptr %24, align 4, !alias.scope !8, !noalias !5
  %26 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %23
  %27 = load float, ptr %26, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %28 = fmul float %25, f0x3C23D70A
  %29 = fsub float %27, %28
  store float %29, ptr %24, align 4, !alias.scope !8, !noalias !5
  %30 = add nuw nsw i64 %9, 3
  %31 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %30
  %32 = load float, ptr %31, align 4, !alias.scope !8, !noalias !5
  %33 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %30
  %34 = load float, ptr %33, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %35 = fmul float %32, f0x3C23D70A
  %36 = fsub float %34, %35
  store float %36, ptr %31, align 4, !alias.scope !8, !noalias !5
  %37 = add nuw nsw i64 %9, 4
  %38 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %37
  %39 = load float, ptr %38, align 4, !alias.scope !8, !noalias !5
  %40 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %37
  %41 = load float, ptr %40, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %42 = fmul float %39, f0x3C23D70A
  %43 = fsub float %41, %42
  store float %43, ptr %38, align 4, !alias.scope !8, !noalias !5
  %44 = add nuw nsw i64 %9, 5
  %45 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %44
  %46 = load float, ptr %45, align 4, !alias.scope !8, !noalias !5
  %47 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %44
  %48 = load float, ptr %47, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %49 = fmul float %46, f0x3C23D70A
  %50 = fsub float %48, %49
  store float %50, ptr %45, align 4, !alias.scope !8, !noalias !5
  %51 = add nuw nsw i64 %9, 6
  %52 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %51
  %53 = load float, ptr %52, align 4, !alias.scope !8, !noalias !5
  %54 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %51
  %55 = load float, ptr %54, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %56 = fmul float %53, f0x3C23D70A
  %57 = fsub float %55, %56
  store float %57, ptr %52, align 4, !alias.scope !8, !noalias !5
  %58 = add nuw nsw i64 %9, 7
  %59 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %58
  %60 = load float, ptr %59, align 4, !alias.scope !8, !noalias !5
  %61 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %58
  %62 = load float, ptr %61, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %63 = fmul float %60, f0x3C23D70A
  %64 = fsub float %62, %63
  store float %64, ptr %59, align 4, !alias.scope !8, !noalias !5
  %65 = add nuw nsw i64 %9, 8
  %66 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %65
  %67 = load float, ptr %66, align 4, !alias.scope !8, !noalias !5
  %68 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %65
  %69 = load float, ptr %68, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %70 = fmul float %67, f0x3C23D70A
  %71 = fsub float %69, %70
  store float %71, ptr %66, align 4, !alias.scope !8, !noalias !5
  %72 = add nuw nsw i64 %9, 9
  %73 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %72
  %74 = load float, ptr %73, align 4, !alias.scope !8, !noalias !5
  %75 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %72
  %76 = load float, ptr %75, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %77 = fmul float %74, f0x3C23D70A
  %78 = fsub float %76, %77
  store float %78, ptr %73, align 4, !alias.scope !8, !noalias !5
  %79 = add nuw nsw i64 %8, 1
  %exitcond.not = icmp eq i64 %79, 2048
  br i1 %exitcond.not, label %multiply_subtract_fusion.1_wrapped.exit, label %7, !llvm.loop !10

multiply_subtract_fusion.1_wrapped.exit:          ; preds = %7
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
!4 = !{i64 81920}
!5 = !{!6}
!6 = distinct !{!6, !7, !"multiply_subtract_fusion.1_wrapped: argument 0"}
!7 = distinct !{!7, !"multiply_subtract_fusion.1_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"multiply_subtract_fusion.1_wrapped: argument 1"}
!10 = distinct !{!10, !11}
!11 = !{!"llvm.loop.unroll.disable"}
