; ModuleID = '__compute_module_compare_select_fusion.1_kernel_module'
source_filename = "__compute_module_compare_select_fusion.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @compare_select_fusion.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !4
  %7 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %8 = load ptr, ptr %7, align 8, !invariant.load !3, !dereferenceable !5
  %9 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %10 = load ptr, ptr %9, align 8
  %11 = load i64, ptr %10, align 4, !invariant.load !3
  tail call void @llvm.experimental.noalias.scope.decl(metadata !6)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !9)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !11)
  %12 = icmp ult i64 %11, 2
  br i1 %12, label %13, label %compare_select_fusion.1_wrapped.exit

13:                                               ; preds = %1
  %14 = shl nuw nsw i64 %11, 17
  %15 = getelementptr inbounds nuw i8, ptr %8, i64 32
  %wide.load12 = load <8 x float>, ptr %8, align 4, !invariant.load !3, !alias.scope !11, !noalias !13
  %wide.load13 = load <8 x float>, ptr %15, align 4, !invariant.load !3, !alias.scope !11, !noalias !13
  %16 = getelementptr inbounds nuw i8, ptr %8, i64 64
  %17 = getelementptr inbounds nuw i8, ptr %8, i64 96
  %wide.load12.1 = load <8 x float>, ptr %16, align 4, !invariant.load !3, !alias.scope !11, !noalias !13
  %wide.load13.1 = load <8 x float>, ptr %17, align 4, !invariant.load !3, !alias.scope !11, !noalias !13
  br label %18

18:                                               ; preds = %13, %53
  %19 = phi i64 [ 0, %13 ], [ %54, %53 ]
  %20 = shl nuw nsw i64 %19, 13
  %21 = add nuw nsw i64 %20, %14
  br label %22

22:                                               ; preds = %18, %51
  %23 = phi i64 [ 0, %18 ], [ %52, %51 ]
  %24 = shl nuw nsw i64 %23, 9
  %25 = add nuw nsw i64 %24, %21
  br label %vector.ph

vector.ph:                                        ; preds = %22, %vector.ph
  %26 = phi i64 [ 0, %22 ], [ %50, %vector.ph ]
  %27 = shl nuw nsw i64 %26, 5
  %28 = add nuw nsw i64 %27, %25
  %29 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %28
  %30 = getelementptr inbounds nuw i8, ptr %29, i64 32
  %wide.load = load <8 x float>, ptr %29, align 4, !alias.scope !9, !noalias !14
  %wide.load11 = load <8 x float>, ptr %30, align 4, !alias.scope !9, !noalias !14
  %31 = fadd <8 x float> %wide.load, %wide.load12
  %32 = fadd <8 x float> %wide.load11, %wide.load13
  %33 = fcmp ogt <8 x float> %31, zeroinitializer
  %34 = fcmp ogt <8 x float> %32, zeroinitializer
  %35 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %28
  %36 = getelementptr inbounds nuw i8, ptr %35, i64 32
  %wide.load14 = load <8 x float>, ptr %35, align 4, !invariant.load !3, !alias.scope !6, !noalias !15
  %wide.load15 = load <8 x float>, ptr %36, align 4, !invariant.load !3, !alias.scope !6, !noalias !15
  %37 = select <8 x i1> %33, <8 x float> %wide.load14, <8 x float> zeroinitializer
  %38 = select <8 x i1> %34, <8 x float> %wide.load15, <8 x float> zeroinitializer
  store <8 x float> %37, ptr %29, align 4, !alias.scope !9, !noalias !14
  store <8 x float> %38, ptr %30, align 4, !alias.scope !9, !noalias !14
  %39 = or disjoint i64 %28, 16
  %40 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %39
  %41 = getelementptr inbounds nuw i8, ptr %40, i64 32
  %wide.load.1 = load <8 x float>, ptr %40, align 4, !alias.scope !9, !noalias !14
  %wide.load11.1 = load <8 x float>, ptr %41, align 4, !alias.scope !9, !noalias !14
  %42 = fadd <8 x float> %wide.load.1, %wide.load12.1
  %43 = fadd <8 x float> %wide.load11.1, %wide.load13.1
  %44 = fcmp ogt <8 x float> %42, zeroinitializer
  %45 = fcmp ogt <8 x float> %43, zeroinitializer
  %46 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %39
  %47 = getelementptr inbounds nuw i8, ptr %46, i64 32
  %wide.load14.1 = load <8 x float>, ptr %46, align 4, !invariant.load !3, !alias.scope !6, !noalias !15
  %wide.load15.1 = load <8 x float>, ptr %47, align 4, !invariant.load !3, !alias.scope !6, !noalias !15
  %48 = select <8 x i1> %44, <8 x float> %wide.load14.1, <8 x float> zeroinitializer
  %49 = select <8 x i1> %45, <8 x float> %wide.load15.1, <8 x float> zeroinitializer
  store <8 x float> %48, ptr %40, align 4, !alias.scope !9, !noalias !14
  store <8 x float> %49, ptr %41, align 4, !alias.scope !9, !noalias !14
  %50 = add nuw nsw i64 %26, 1
  %exitcond5.not = icmp eq i64 %50, 16
  br i1 %exitcond5.not, label %51, label %vector.ph, !llvm.loop !16

51:                                               ; preds = %vector.ph
  %52 = add nuw nsw i64 %23, 1
  %exitcond6.not = icmp eq i64 %52, 16
  br i1 %exitcond6.not, label %53, label %22, !llvm.loop !16

53:                                               ; preds = %51
  %54 = add nuw nsw i64 %19, 1
  %exitcond7.not = icmp eq i64 %54, 16
  br i1 %exitcond7.not, label %compare_select_fusion.1_wrapped.exit, label %18, !llvm.loop !16

compare_select_fusion.1_wrapped.exit:             ; preds = %53, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 8}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 1048576}
!5 = !{i64 128}
!6 = !{!7}
!7 = distinct !{!7, !8, !"compare_select_fusion.1_wrapped: argument 0"}
!8 = distinct !{!8, !"compare_select_fusion.1_wrapped"}
!9 = !{!10}
!10 = distinct !{!10, !8, !"compare_select_fusion.1_wrapped: argument 1"}
!11 = !{!12}
!12 = distinct !{!12, !8, !"compare_select_fusion.1_wrapped: argument 2"}
!13 = !{!7, !10}
!14 = !{!7, !12}
!15 = !{!10, !12}
!16 = distinct !{!16, !17}
!17 = !{!"llvm.loop.unroll.disable"}
