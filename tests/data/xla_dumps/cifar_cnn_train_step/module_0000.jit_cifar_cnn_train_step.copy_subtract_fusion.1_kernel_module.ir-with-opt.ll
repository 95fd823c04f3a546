; ModuleID = '__compute_module_copy_subtract_fusion.1_kernel_module'
source_filename = "__compute_module_copy_subtract_fusion.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @copy_subtract_fusion.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
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

9:                                                ; preds = %1, %152
  %10 = phi i64 [ 0, %1 ], [ %153, %152 ]
  %11 = mul nuw nsw i64 %10, 144
  %.idx = mul nuw nsw i64 %10, 192
  %12 = getelementptr i8, ptr %6, i64 %.idx
  br label %13

13:                                               ; preds = %9, %150
  %14 = phi i64 [ 0, %9 ], [ %151, %150 ]
  %15 = mul nuw nsw i64 %14, 48
  %16 = add nuw nsw i64 %15, %11
  %.idx1 = shl nuw nsw i64 %14, 6
  %17 = getelementptr i8, ptr %12, i64 %.idx1
  br label %18

18:                                               ; preds = %13, %18
  %19 = phi i64 [ 0, %13 ], [ %149, %18 ]
  %20 = shl nuw nsw i64 %19, 4
  %21 = add nuw nsw i64 %16, %20
  %.idx2 = mul nuw nsw i64 %19, 576
  %22 = getelementptr i8, ptr %17, i64 %.idx2
  %23 = load float, ptr %22, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %24 = fmul float %23, f0x3C23D70A
  %25 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %21
  %26 = load float, ptr %25, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %27 = fsub float %26, %24
  %28 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %21
  store float %27, ptr %28, align 4, !alias.scope !10, !noalias !14
  %29 = getelementptr i8, ptr %22, i64 4
  %30 = load float, ptr %29, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %31 = fmul float %30, f0x3C23D70A
  %32 = or disjoint i64 %21, 1
  %33 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %32
  %34 = load float, ptr %33, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %35 = fsub float %34, %31
  %36 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %32
  store float %35, ptr %36, align 4, !alias.scope !10, !noalias !14
  %37 = getelementptr i8, ptr %22, i64 8
  %38 = load float, ptr %37, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %39 = fmul float %38, f0x3C23D70A
  %40 = or disjoint i64 %21, 2
  %41 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %40
  %42 = load float, ptr %41, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %43 = fsub float %42, %39
  %44 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %40
  store float %43, ptr %44, align 4, !alias.scope !10, !noalias !14
  %45 = getelementptr i8, ptr %22, i64 12
  %46 = load float, ptr %45, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %47 = fmul float %46, f0x3C23D70A
  %48 = or disjoint i64 %21, 3
  %49 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %48
  %50 = load float, ptr %49, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %51 = fsub float %50, %47
  %52 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %48
  store float %51, ptr %52, align 4, !alias.scope !10, !noalias !14
  %53 = getelementptr i8, ptr %22, i64 16
  %54 = load float, ptr %53, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %55 = fmul float %54, f0x3C23D70A
  %56 = or disjoint i64 %21, 4
  %57 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %56
  %58 = load float, ptr %57, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %59 = fsub float %58, %55
  %60 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %56
  store float %59, ptr %60, align 4, !alias.scope !10, !noalias !14
  %61 = getelementptr i8, ptr %22, i64 20
  %62 = load float, ptr %61, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %63 = fmul float %62, f0x3C23D70A
  %64 = or disjoint i64 %21, 5
  %65 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %64
  %66 = load float, ptr %65, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %67 = fsub float %66, %63
  %68 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %64
  store float %67, ptr %68, align 4, !alias.scope !10, !noalias !14
  %69 = getelementptr i8, ptr %22, i64 24
  %70 = load float, ptr %69, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %71 = fmul float %70, f0x3C23D70A
  %72 = or disjoint i64 %21, 6
  %73 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %72
  %74 = load float, ptr %73, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %75 = fsub float %74, %71
  %76 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %72
  store float %75, ptr %76, align 4, !alias.scope !10, !noalias !14
  %77 = getelementptr i8, ptr %22, i64 28
  %78 = load float, ptr %77, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %79 = fmul float %78, f0x3C23D70A
  %80 = or disjoint i64 %21, 7
  %81 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %80
  %82 = load float, ptr %81, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %83 = fsub float %82, %79
  %84 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %80
  store float %83, ptr %84, align 4, !alias.scope !10, !noalias !14
  %85 = getelementptr i8, ptr %22, i64 32
  %86 = load float, ptr %85, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %87 = fmul float %86, f0x3C23D70A
  %88 = or disjoint i64 %21, 8
  %89 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %88
  %90 = load float, ptr %89, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %91 = fsub float %90, %87
  %92 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %88
  store float %91, ptr %92, align 4, !alias.scope !10, !noalias !14
  %93 = getelementptr i8, ptr %22, i64 36
  %94 = load float, ptr %93, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %95 = fmul float %94, f0x3C23D70A
  %96 = or disjoint i64 %21, 9
  %97 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %96
  %98 = load float, ptr %97, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %99 = fsub float %98, %95
  %100 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %96
  store float %99, ptr %100, align 4, !alias.scope !10, !noalias !14
  %101 = getelementptr i8, ptr %22, i64 40
  %102 = load float, ptr %101, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %103 = fmul float %102, f0x3C23D70A
  %104 = or disjoint i64 %21, 10
  %105 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %104
  %106 = load float, ptr %105, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %107 = fsub float %106, %103
  %108 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %104
  store float %107, ptr %108, align 4, !alias.scope !10, !noalias !14
  %109 = getelementptr i8, ptr %22, i64 44
  %110 = load float, ptr %109, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %111 = fmul float %110, f0x3C23D70A
  %112 = or disjoint i64 %21, 11
  %113 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %112
  %114 = load float, ptr %113, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %115 = fsub float %114, %111
  %116 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %112
  store float %115, ptr %116, align 4, !alias.scope !10, !noalias !14
  %117 = getelementptr i8, ptr %22, i64 48
  %118 = load float, ptr %117, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %119 = fmul float %118, f0x3C23D70A
  %120 = or disjoint i64 %21, 12
  %121 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %120
  %122 = load float, ptr %121, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %123 = fsub float %122, %119
  %124 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %120
  store float %123, ptr %124, align 4, !alias.scope !10, !noalias !14
  %125 = getelementptr i8, ptr %22, i64 52
  %126 = load float, ptr %125, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %127 = fmul float %126, f0x3C23D70A
  %128 = or disjoint i64 %21, 13
  %129 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %128
  %130 = load float, ptr %129, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %131 = fsub float %130, %127
  %132 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %128
  store float %131, ptr %132, align 4, !alias.scope !10, !noalias !14
  %133 = getelementptr i8, ptr %22, i64 56
  %134 = load float, ptr %133, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %135 = fmul float %134, f0x3C23D70A
  %136 = or disjoint i64 %21, 14
  %137 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %136
  %138 = load float, ptr %137, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %139 = fsub float %138, %135
  %140 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %136
  store float %139, ptr %140, align 4, !alias.scope !10, !noalias !14
  %141 = getelementptr i8, ptr %22, i64 60
  %142 = load float, ptr %141, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %143 = fmul float %142, f0x3C23D70A
  %144 = or disjoint i64 %21, 15
  %145 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %144
  %146 = load float, ptr %145, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %147 = fsub float %146, %143
  %148 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %144
  store float %147, ptr %148, align 4, !alias.scope !10, !noalias !14
  %149 = add nuw nsw i64 %19, 1
  %exitcond.not = icmp eq i64 %149, 3
  br i1 %exitcond.not, label %150, label %18, !llvm.loop !15

150:                                              ; preds = %18
  %151 = add nuw nsw i64 %14, 1
  %exitcond6.not = icmp eq i64 %151, 3
  br i1 %exitcond6.not, label %152, label %13, !llvm.loop !15

152:                                              ; preds = %150
  %153 = add nuw nsw i64 %10, 1
  %exitcond7.not = icmp eq i64 %153, 3
  br i1 %exitcond7.not, label %copy_subtract_fusion.1_wrapped.exit, label %9, !llvm.loop !15

copy_subtract_fusion.1_wrapped.exit:              ; preds = %152
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 12}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 1728}
!5 = !{!6}
!6 = distinct !{!6, !7, !"copy_subtract_fusion.1_wrapped: argument 0"}
!7 = distinct !{!7, !"copy_subtract_fusion.1_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"copy_subtract_fusion.1_wrapped: argument 1"}
!10 = !{!11}
!11 = distinct !{!11, !7, !"copy_subtract_fusion.1_wrapped: argument 2"}
!12 = !{!6, !11}
!13 = !{!9, !11}
!14 = !{!6, !9}
!15 = distinct !{!15, !16}
!16 = !{!"llvm.loop.unroll.disable"}
