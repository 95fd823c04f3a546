; ModuleID = '__compute_module_compare_select_fusion_kernel_module'
source_filename = "__compute_module_compare_select_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @compare_select_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !4
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  tail call void @llvm.experimental.noalias.scope.decl(metadata !5)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !8)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !10)
  %10 = icmp ult i64 %9, 2
  br i1 %10, label %11, label %compare_select_fusion_wrapped.exit

11:                                               ; preds = %1
  %12 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %13 = load ptr, ptr %12, align 8, !invariant.load !3, !dereferenceable !12
  %14 = shl nuw nsw i64 %9, 18
  %.phi.trans.insert = getelementptr inbounds nuw i8, ptr %13, i64 28
  %.pre = load float, ptr %.phi.trans.insert, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %.phi.trans.insert7 = getelementptr inbounds nuw i8, ptr %13, i64 32
  %.pre8 = load float, ptr %.phi.trans.insert7, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %15 = load float, ptr %13, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %16 = getelementptr inbounds nuw i8, ptr %13, i64 4
  %17 = load float, ptr %16, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %18 = getelementptr inbounds nuw i8, ptr %13, i64 8
  %19 = load float, ptr %18, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %20 = getelementptr inbounds nuw i8, ptr %13, i64 12
  %21 = load float, ptr %20, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %22 = getelementptr inbounds nuw i8, ptr %13, i64 16
  %23 = load float, ptr %22, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %24 = getelementptr inbounds nuw i8, ptr %13, i64 20
  %25 = load float, ptr %24, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %26 = getelementptr inbounds nuw i8, ptr %13, i64 24
  %27 = load float, ptr %26, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %28 = getelementptr inbounds nuw i8, ptr %13, i64 36
  %29 = load float, ptr %28, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %30 = getelementptr inbounds nuw i8, ptr %13, i64 40
  %31 = load float, ptr %30, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %32 = getelementptr inbounds nuw i8, ptr %13, i64 44
  %33 = load float, ptr %32, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %34 = getelementptr inbounds nuw i8, ptr %13, i64 48
  %35 = load float, ptr %34, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %36 = getelementptr inbounds nuw i8, ptr %13, i64 52
  %37 = load float, ptr %36, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %38 = getelementptr inbounds nuw i8, ptr %13, i64 56
  %39 = load float, ptr %38, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  %40 = getelementptr inbounds nuw i8, ptr %13, i64 60
  %41 = load float, ptr %40, align 4, !invariant.load !3, !alias.scope !10, !noalias !13
  br label %42

42:                                               ; preds = %11, %184
  %43 = phi i64 [ 0, %11 ], [ %185, %184 ]
  %44 = shl nuw nsw i64 %43, 14
  %45 = add nuw nsw i64 %44, %14
  br label %46

46:                                               ; preds = %42, %182
  %47 = phi i64 [ 0, %42 ], [ %183, %182 ]
  %48 = shl nuw nsw i64 %47, 9
  %49 = add nuw nsw i64 %48, %45
  br label %50

50:                                               ; preds = %46, %50
  %51 = phi i64 [ 0, %46 ], [ %181, %50 ]
  %52 = shl nuw nsw i64 %51, 4
  %53 = add nuw nsw i64 %52, %49
  %54 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %53
  %55 = load float, ptr %54, align 4, !alias.scope !8, !noalias !14
  %56 = fadd float %55, %15
  %57 = fcmp ogt float %56, 0.000000e+00
  %58 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %53
  %59 = load float, ptr %58, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %60 = select i1 %57, float %59, float 0.000000e+00
  store float %60, ptr %54, align 4, !alias.scope !8, !noalias !14
  %61 = or disjoint i64 %53, 1
  %62 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %61
  %63 = load float, ptr %62, align 4, !alias.scope !8, !noalias !14
  %64 = fadd float %63, %17
  %65 = fcmp ogt float %64, 0.000000e+00
  %66 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %61
  %67 = load float, ptr %66, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %68 = select i1 %65, float %67, float 0.000000e+00
  store float %68, ptr %62, align 4, !alias.scope !8, !noalias !14
  %69 = or disjoint i64 %53, 2
  %70 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %69
  %71 = load float, ptr %70, align 4, !alias.scope !8, !noalias !14
  %72 = fadd float %71, %19
  %73 = fcmp ogt float %72, 0.000000e+00
  %74 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %69
  %75 = load float, ptr %74, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %76 = select i1 %73, float %75, float 0.000000e+00
  store float %76, ptr %70, align 4, !alias.scope !8, !noalias !14
  %77 = or disjoint i64 %53, 3
  %78 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %77
  %79 = load float, ptr %78, align 4, !alias.scope !8, !noalias !14
  %80 = fadd float %79, %21
  %81 = fcmp ogt float %80, 0.000000e+00
  %82 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %77
  %83 = load float, ptr %82, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %84 = select i1 %81, float %83, float 0.000000e+00
  store float %84, ptr %78, align 4, !alias.scope !8, !noalias !14
  %85 = or disjoint i64 %53, 4
  %86 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %85
  %87 = load float, ptr %86, align 4, !alias.scope !8, !noalias !14
  %88 = fadd float %87, %23
  %89 = fcmp ogt float %88, 0.000000e+00
  %90 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %85
  %91 = load float, ptr %90, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %92 = select i1 %89, float %91, float 0.000000e+00
  store float %92, ptr %86, align 4, !alias.scope !8, !noalias !14
  %93 = or disjoint i64 %53, 5
  %94 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %93
  %95 = load float, ptr %94, align 4, !alias.scope !8, !noalias !14
  %96 = fadd float %95, %25
  %97 = fcmp ogt float %96, 0.000000e+00
  %98 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %93
  %99 = load float, ptr %98, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %100 = select i1 %97, float %99, float 0.000000e+00
  store float %100, ptr %94, align 4, !alias.scope !8, !noalias !14
  %101 = or disjoint i64 %53, 6
  %102 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %101
  %103 = load float, ptr %102, align 4, !alias.scope !8, !noalias !14
  %104 = fadd float %103, %27
  %105 = fcmp ogt float %104, 0.000000e+00
  %106 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %101
  %107 = load float, ptr %106, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %108 = select i1 %105, float %107, float 0.000000e+00
  store float %108, ptr %102, align 4, !alias.scope !8, !noalias !14
  %109 = or disjoint i64 %53, 7
  %110 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %109
  %111 = load float, ptr %110, align 4, !alias.scope !8, !noalias !14
  %112 = fadd float %111, %.pre
  %113 = fcmp ogt float %112, 0.000000e+00
  %114 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %109
  %115 = load float, ptr %114, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %116 = select i1 %113, float %115, float 0.000000e+00
  store float %116, ptr %110, align 4, !alias.scope !8, !noalias !14
  %117 = or disjoint i64 %53, 8
  %118 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %117
  %119 = load float, ptr %118, align 4, !alias.scope !8, !noalias !14
  %120 = fadd float %119, %.pre8
  %121 = fcmp ogt float %120, 0.000000e+00
  %122 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %117
  %123 = load float, ptr %122, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %124 = select i1 %121, float %123, float 0.000000e+00
  store float %124, ptr %118, align 4, !alias.scope !8, !noalias !14
  %125 = or disjoint i64 %53, 9
  %126 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %125
  %127 = load float, ptr %126, align 4, !alias.scope !8, !noalias !14
  %128 = fadd float %127, %29
  %129 = fcmp ogt float %128, 0.000000e+00
  %130 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %125
  %131 = load float, ptr %130, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %132 = select i1 %129, float %131, float 0.000000e+00
  store float %132, ptr %126, align 4, !alias.scope !8, !noalias !14
  %133 = or disjoint i64 %53, 10
  %134 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %133
  %135 = load float, ptr %134, align 4, !alias.scope !8, !noalias !14
  %136 = fadd float %135, %31
  %137 = fcmp ogt float %136, 0.000000e+00
  %138 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %133
  %139 = load float, ptr %138, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %140 = select i1 %137, float %139, float 0.000000e+00
  store float %140, ptr %134, align 4, !alias.scope !8, !noalias !14
  %141 = or disjoint i64 %53, 11
  %142 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %141
  %143 = load float, ptr %142, align 4, !alias.scope !8, !noalias !14
  %144 = fadd float %143, %33
  %145 = fcmp ogt float %144, 0.000000e+00
  %146 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %141
  %147 = load float, ptr %146, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %148 = select i1 %145, float %147, float 0.000000e+00
  store float %148, ptr %142, align 4, !alias.scope !8, !noalias !14
  %149 = or disjoint i64 %53, 12
  %150 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %149
  %151 = load float, ptr %150, align 4, !alias.scope !8, !noalias !14
  %152 = fadd float %151, %35
  %153 = fcmp ogt float %152, 0.000000e+00
  %154 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %149
  %155 = load float, ptr %154, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %156 = select i1 %153, float %155, float 0.000000e+00
  store float %156, ptr %150, align 4, !alias.scope !8, !noalias !14
  %157 = or disjoint i64 %53, 13
  %158 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %157
  %159 = load float, ptr %158, align 4, !alias.scope !8, !noalias !14
  %160 = fadd float %159, %37
  %161 = fcmp ogt float %160, 0.000000e+00
  %162 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %157
  %163 = load float, ptr %162, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %164 = select i1 %161, float %163, float 0.000000e+00
  store float %164, ptr %158, align 4, !alias.scope !8, !noalias !14
  %165 = or disjoint i64 %53, 14
  %166 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %165
  %167 = load float, ptr %166, align 4, !alias.scope !8, !noalias !14
  %168 = fadd float %167, %39
  %169 = fcmp ogt float %168, 0.000000e+00
  %170 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %165
  %171 = load float, ptr %170, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %172 = select i1 %169, float %171, float 0.000000e+00
  store float %172, ptr %166, align 4, !alias.scope !8, !noalias !14
  %173 = or disjoint i64 %53, 15
  %174 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %173
  %175 = load float, ptr %174, align 4, !alias.scope !8, !noalias !14
  %176 = fadd float %175, %41
  %177 = fcmp ogt float %176, 0.000000e+00
  %178 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %173
  %179 = load float, ptr %178, align 4, !invariant.load !3, !alias.scope !5, !noalias !15
  %180 = select i1 %177, float %179, float 0.000000e+00
  store float %180, ptr %174, align 4, !alias.scope !8, !noalias !14
  %181 = add nuw nsw i64 %51, 1
  %exitcond.not = icmp eq i64 %181, 32
  br i1 %exitcond.not, label %182, label %50, !llvm.loop !16

182:                                              ; preds = %50
  %183 = add nuw nsw i64 %47, 1
  %exitcond5.not = icmp eq i64 %183, 32
  br i1 %exitcond5.not, label %184, label %46, !llvm.loop !16

184:                                              ; preds = %182
  %185 = add nuw nsw i64 %43, 1
  %exitcond6.not = icmp eq i64 %185, 16
  br i1 %exitcond6.not, label %compare_select_fusion_wrapped.exit, label %42, !llvm.loop !16

compare_select_fusion_wrapped.exit:               ; preds = %184, %1
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
!4 = !{i64 2097152}
!5 = !{!6}
!6 = distinct !{!6, !7, !"compare_select_fusion_wrapped: argument 0"}
!7 = distinct !{!7, !"compare_select_fusion_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"compare_select_fusion_wrapped: argument 1"}
!10 = !{!11}
!11 = distinct !{!11, !7, !"compare_select_fusion_wrapped: argument 2"}
!12 = !{i64 64}
!13 = !{!6, !9}
!14 = !{!6, !11}
!15 = !{!9, !11}
!16 = distinct !{!16, !17}
!17 = !{!"llvm.loop.unroll.disable"}
