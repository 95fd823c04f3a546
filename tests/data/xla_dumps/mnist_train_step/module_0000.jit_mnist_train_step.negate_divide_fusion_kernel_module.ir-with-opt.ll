; ModuleID = '__compute_module_negate_divide_fusion_kernel_module'
source_filename = "__compute_module_negate_divide_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @negate_divide_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
vector.ph:
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
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %vector.ph
  %index = phi i64 [ 0, %vector.ph ], [ %index.next, %vector.body ]
  %8 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %index
  %wide.load = load <8 x i32>, ptr %8, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %9 = icmp eq <8 x i32> %wide.load, zeroinitializer
  %10 = select <8 x i1> %9, <8 x float> splat (float -7.812500e-03), <8 x float> zeroinitializer
  %11 = icmp eq <8 x i32> %wide.load, splat (i32 1)
  %12 = select <8 x i1> %11, <8 x float> splat (float -7.812500e-03), <8 x float> zeroinitializer
  %13 = fadd reassoc <8 x float> %10, %12
  %14 = icmp eq <8 x i32> %wide.load, splat (i32 2)
  %15 = select <8 x i1> %14, <8 x float> splat (float -7.812500e-03), <8 x float> zeroinitializer
  %16 = fadd reassoc <8 x float> %13, %15
  %17 = icmp eq <8 x i32> %wide.load, splat (i32 3)
  %18 = select <8 x i1> %17, <8 x float> splat (float -7.812500e-03), <8 x float> zeroinitializer
  %19 = fadd reassoc <8 x float> %16, %18
  %20 = icmp eq <8 x i32> %wide.load, splat (i32 4)
  %21 = select <8 x i1> %20, <8 x float> splat (float -7.812500e-03), <8 x float> zeroinitializer
  %22 = fadd reassoc <8 x float> %19, %21
  %23 = icmp eq <8 x i32> %wide.load, splat (i32 5)
  %24 = select <8 x i1> %23, <8 x float> splat (float -7.812500e-03), <8 x float> zeroinitializer
  %25 = fadd reassoc <8 x float> %22, %24
  %26 = icmp eq <8 x i32> %wide.load, splat (i32 6)
  %27 = select <8 x i1> %26, <8 x float> splat (float -7.812500e-03), <8 x float> zeroinitializer
  %28 = fadd reassoc <8 x float> %25, %27
  %29 = icmp eq <8 x i32> %wide.load, splat (i32 7)
  %30 = select <8 x i1> %29, <8 x float> splat (float -7.812500e-03), <8 x float> zeroinitializer
  %31 = fadd reassoc <8 x float> %28, %30
  %32 = icmp eq <8 x i32> %wide.load, splat (i32 8)
  %33 = select <8 x i1> %32, <8 x float> splat (float -7.812500e-03), <8 x float> zeroinitializer
  %34 = fadd reassoc <8 x float> %31, %33
  %35 = icmp eq <8 x i32> %wide.load, splat (i32 9)
  %36 = select <8 x i1> %35, <8 x float> splat (float -7.812500e-03), <8 x float> zeroinitializer
  %37 = fadd reassoc <8 x float> %34, %36
  %38 = fneg <8 x float> %37
  %39 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %index
  %wide.load2 = load <8 x float>, ptr %39, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %40 = fdiv <8 x float> %38, %wide.load2
  %41 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %index
  store <8 x float> %40, ptr %41, align 4, !alias.scope !10, !noalias !14
  %index.next = add nuw i64 %index, 8
  %42 = icmp eq i64 %index.next, 128
  br i1 %42, label %negate_divide_fusion_wrapped.exit, label %vector.body, !llvm.loop !15

negate_divide_fusion_wrapped.exit:                ; preds = %vector.body
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 9}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 512}
!5 = !{!6}
!6 = distinct !{!6, !7, !"negate_divide_fusion_wrapped: argument 0"}
!7 = distinct !{!7, !"negate_divide_fusion_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"negate_divide_fusion_wrapped: argument 1"}
!10 = !{!11}
!11 = distinct !{!11, !7, !"negate_divide_fusion_wrapped: argument 2"}
!12 = !{!6, !11}
!13 = !{!9, !11}
!14 = !{!6, !9}
!15 = distinct !{!15, !16, !17, !18}
!16 = !{!"llvm.loop.unroll.disable"}
!17 = !{!"llvm.loop.isvectorized", i32 1}
!18 = !{!"llvm.loop.unroll.runtime.disable"}
