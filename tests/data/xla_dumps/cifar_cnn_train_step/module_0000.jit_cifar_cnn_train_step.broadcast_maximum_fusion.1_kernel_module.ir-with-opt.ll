; ModuleID = '__compute_module_broadcast_maximum_fusion.1_kernel_module'
source_filename = "__compute_module_broadcast_maximum_fusion.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @broadcast_maximum_fusion.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !4
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  tail call void @llvm.experimental.noalias.scope.decl(metadata !5)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !8)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !10)
  %10 = icmp ult i64 %9, 2
  br i1 %10, label %11, label %broadcast_maximum_fusion.1_wrapped.exit

11:                                               ; preds = %1
  %12 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %13 = load ptr, ptr %12, align 8, !invariant.load !3, !dereferenceable !12
  %14 = shl nuw nsw i64 %9, 18
  %.phi.trans.insert = getelementptr inbounds nuw i8, ptr %13, i64 20
  %.pre = load float, ptr %.phi.trans.insert, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %.phi.trans.insert7 = getelementptr inbounds nuw i8, ptr %13, i64 24
  %.pre8 = load float, ptr %.phi.trans.insert7, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %.phi.trans.insert9 = getelementptr inbounds nuw i8, ptr %13, i64 28
  %.pre10 = load float, ptr %.phi.trans.insert9, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %.phi.trans.insert11 = getelementptr inbounds nuw i8, ptr %13, i64 32
  %.pre12 = load float, ptr %.phi.trans.insert11, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %.phi.trans.insert13 = getelementptr inbounds nuw i8, ptr %13, i64 36
  %.pre14 = load float, ptr %.phi.trans.insert13, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %.phi.trans.insert15 = getelementptr inbounds nuw i8, ptr %13, i64 40
  %.pre16 = load float, ptr %.phi.trans.insert15, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %.phi.trans.insert17 = getelementptr inbounds nuw i8, ptr %13, i64 44
  %.pre18 = load float, ptr %.phi.trans.insert17, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %.phi.trans.insert19 = getelementptr inbounds nuw i8, ptr %13, i64 16
  %.pre20 = load float, ptr %.phi.trans.insert19, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %15 = load float, ptr %13, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %16 = getelementptr inbounds nuw i8, ptr %13, i64 4
  %17 = load float, ptr %16, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %18 = getelementptr inbounds nuw i8, ptr %13, i64 8
  %19 = load float, ptr %18, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %20 = getelementptr inbounds nuw i8, ptr %13, i64 12
  %21 = load float, ptr %20, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %22 = getelementptr inbounds nuw i8, ptr %13, i64 48
  %23 = load float, ptr %22, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %24 = getelementptr inbounds nuw i8, ptr %13, i64 52
  %25 = load float, ptr %24, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %26 = getelementptr inbounds nuw i8, ptr %13, i64 56
  %27 = load float, ptr %26, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %28 = getelementptr inbounds nuw i8, ptr %13, i64 60
  %29 = load float, ptr %28, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  br label %30

30:                                               ; preds = %11, %140
  %31 = phi i64 [ 0, %11 ], [ %141, %140 ]
  %32 = shl nuw nsw i64 %31, 14
  %33 = add nuw nsw i64 %32, %14
  br label %34

34:                                               ; preds = %30, %138
  %35 = phi i64 [ 0, %30 ], [ %139, %138 ]
  %36 = shl nuw nsw i64 %35, 9
  %37 = add nuw nsw i64 %36, %33
  br label %38

38:                                               ; preds = %34, %38
  %39 = phi i64 [ 0, %34 ], [ %137, %38 ]
  %40 = shl nuw nsw i64 %39, 4
  %41 = add nuw nsw i64 %40, %37
  %42 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %41
  %43 = load float, ptr %42, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %44 = fadd float %43, %15
  %45 = tail call float @llvm.maximum.f32(float %44, float 0.000000e+00)
  %46 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %41
  store float %45, ptr %46, align 4, !alias.scope !10, !noalias !15
  %47 = or disjoint i64 %41, 1
  %48 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %47
  %49 = load float, ptr %48, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %50 = fadd float %49, %17
  %51 = tail call float @llvm.maximum.f32(float %50, float 0.000000e+00)
  %52 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %47
  store float %51, ptr %52, align 4, !alias.scope !10, !noalias !15
  %53 = or disjoint i64 %41, 2
  %54 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %53
  %55 = load float, ptr %54, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %56 = fadd float %55, %19
  %57 = tail call float @llvm.maximum.f32(float %56, float 0.000000e+00)
  %58 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %53
  store float %57, ptr %58, align 4, !alias.scope !10, !noalias !15
  %59 = or disjoint i64 %41, 3
  %60 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %59
  %61 = load float, ptr %60, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %62 = fadd float %61, %21
  %63 = tail call float @llvm.maximum.f32(float %62, float 0.000000e+00)
  %64 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %59
  store float %63, ptr %64, align 4, !alias.scope !10, !noalias !15
  %65 = or disjoint i64 %41, 4
  %66 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %65
  %67 = load float, ptr %66, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %68 = fadd float %67, %.pre20
  %69 = tail call float @llvm.maximum.f32(float %68, float 0.000000e+00)
  %70 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %65
  store float %69, ptr %70, align 4, !alias.scope !10, !noalias !15
  %71 = or disjoint i64 %41, 5
  %72 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %71
  %73 = load float, ptr %72, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %74 = fadd float %73, %.pre
  %75 = tail call float @llvm.maximum.f32(float %74, float 0.000000e+00)
  %76 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %71
  store float %75, ptr %76, align 4, !alias.scope !10, !noalias !15
  %77 = or disjoint i64 %41, 6
  %78 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %77
  %79 = load float, ptr %78, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %80 = fadd float %79, %.pre8
  %81 = tail call float @llvm.maximum.f32(float %80, float 0.000000e+00)
  %82 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %77
  store float %81, ptr %82, align 4, !alias.scope !10, !noalias !15
  %83 = or disjoint i64 %41, 7
  %84 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %83
  %85 = load float, ptr %84, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %86 = fadd float %85, %.pre10
  %87 = tail call float @llvm.maximum.f32(float %86, float 0.000000e+00)
  %88 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %83
  store float %87, ptr %88, align 4, !alias.scope !10, !noalias !15
  %89 = or disjoint i64 %41, 8
  %90 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %89
  %91 = load float, ptr %90, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %92 = fadd float %91, %.pre12
  %93 = tail call float @llvm.maximum.f32(float %92, float 0.000000e+00)
  %94 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %89
  store float %93, ptr %94, align 4, !alias.scope !10, !noalias !15
  %95 = or disjoint i64 %41, 9
  %96 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %95
  %97 = load float, ptr %96, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %98 = fadd float %97, %.pre14
  %99 = tail call float @llvm.maximum.f32(float %98, float 0.000000e+00)
  %100 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %95
  store float %99, ptr %100, align 4, !alias.scope !10, !noalias !15
  %101 = or disjoint i64 %41, 10
  %102 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %101
  %103 = load float, ptr %102, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %104 = fadd float %103, %.pre16
  %105 = tail call float @llvm.maximum.f32(float %104, float 0.000000e+00)
  %106 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %101
  store float %105, ptr %106, align 4, !alias.scope !10, !noalias !15
  %107 = or disjoint i64 %41, 11
  %108 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %107
  %109 = load float, ptr %108, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %110 = fadd float %109, %.pre18
  %111 = tail call float @llvm.maximum.f32(float %110, float 0.000000e+00)
  %112 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %107
  store float %111, ptr %112, align 4, !alias.scope !10, !noalias !15
  %113 = or disjoint i64 %41, 12
  %114 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %113
  %115 = load float, ptr %114, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %116 = fadd float %115, %23
  %117 = tail call float @llvm.maximum.f32(float %116, float 0.000000e+00)
  %118 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %113
  store float %117, ptr %118, align 4, !alias.scope !10, !noalias !15
  %119 = or disjoint i64 %41, 13
  %120 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %119
  %121 = load float, ptr %120, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %122 = fadd float %121, %25
  %123 = tail call float @llvm.maximum.f32(float %122, float 0.000000e+00)
  %124 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %119
  store float %123, ptr %124, align 4, !alias.scope !10, !noalias !15
  %125 = or disjoint i64 %41, 14
  %126 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %125
  %127 = load float, ptr %126, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %128 = fadd float %127, %27
  %129 = tail call float @llvm.maximum.f32(float %128, float 0.000000e+00)
  %130 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %125
  store float %129, ptr %130, align 4, !alias.scope !10, !noalias !15
  %131 = or disjoint i64 %41, 15
  %132 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %131
  %133 = load float, ptr %132, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %134 = fadd float %133, %29
  %135 = tail call float @llvm.maximum.f32(float %134, float 0.000000e+00)
  %136 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %131
  store float %135, ptr %136, align 4, !alias.scope !10, !noalias !15
  %137 = add nuw nsw i64 %39, 1
  %exitcond.not = icmp eq i64 %137, 32
  br i1 %exitcond.not, label %138, label %38, !llvm.loop !16

138:                                              ; preds = %38
  %139 = add nuw nsw i64 %35, 1
  %exitcond5.not = icmp eq i64 %139, 32
  br i1 %exitcond5.not, label %140, label %34, !llvm.loop !16

140:                                              ; preds = %138
  %141 = add nuw nsw i64 %31, 1
  %exitcond6.not = icmp eq i64 %141, 16
  br i1 %exitcond6.not, label %broadcast_maximum_fusion.1_wrapped.exit, label %30, !llvm.loop !16

broadcast_maximum_fusion.1_wrapped.exit:          ; preds = %140, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.maximum.f32(float, float) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #2

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 6}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 2097152}
!5 = !{!6}
!6 = distinct !{!6, !7, !"broadcast_maximum_fusion.1_wrapped: argument 0"}
!7 = distinct !{!7, !"broadcast_maximum_fusion.1_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"broadcast_maximum_fusion.1_wrapped: argument 1"}
!10 = !{!11}
!11 = distinct !{!11, !7, !"broadcast_maximum_fusion.1_wrapped: argument 2"}
!12 = !{i64 64}
!13 = !{!6, !11}
!14 = !{!9, !11}
!15 = !{!6, !9}
!16 = distinct !{!16, !17}
!17 = !{!"llvm.loop.unroll.disable"}
