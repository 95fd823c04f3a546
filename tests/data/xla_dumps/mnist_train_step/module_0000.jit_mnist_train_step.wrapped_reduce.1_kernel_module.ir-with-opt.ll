; ModuleID = '__compute_module_wrapped_reduce.1_kernel_module'
source_filename = "__compute_module_wrapped_reduce.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @wrapped_reduce.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
vector.ph:
  %1 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %2 = load ptr, ptr %1, align 8, !invariant.load !3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3, !dereferenceable !4
  %4 = getelementptr inbounds nuw i8, ptr %2, i64 32
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !5
  tail call void @llvm.experimental.noalias.scope.decl(metadata !6)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !9)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !11)
  %6 = getelementptr inbounds nuw i8, ptr %2, i64 16
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !13
  %8 = load float, ptr %7, align 4, !invariant.load !3, !alias.scope !9, !noalias !14
  %broadcast.splatinsert = insertelement <8 x float> poison, float %8, i64 0
  %broadcast.splat = shufflevector <8 x float> %broadcast.splatinsert, <8 x float> poison, <8 x i32> zeroinitializer
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %vector.ph
  %index = phi i64 [ 0, %vector.ph ], [ %index.next, %vector.body ]
  %vec.ind = phi <8 x i8> [ <i8 0, i8 1, i8 2, i8 3, i8 4, i8 5, i8 6, i8 7>, %vector.ph ], [ %vec.ind.next, %vector.body ]
  %9 = icmp ult <8 x i8> %vec.ind, splat (i8 10)
  %10 = getelementptr [4 x i8], ptr %3, i64 %index
  %wide.masked.load = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %10, <8 x i1> %9, <8 x float> poison), !invariant.load !3, !alias.scope !6, !noalias !15
  %11 = fadd reassoc <8 x float> %broadcast.splat, %wide.masked.load
  %12 = getelementptr i8, ptr %10, i64 40
  %wide.masked.load1 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %12, <8 x i1> %9, <8 x float> poison), !invariant.load !3, !alias.scope !6, !noalias !15
  %13 = fadd reassoc <8 x float> %11, %wide.masked.load1
  %14 = getelementptr i8, ptr %10, i64 80
  %wide.masked.load2 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %14, <8 x i1> %9, <8 x float> poison), !invariant.load !3, !alias.scope !6, !noalias !15
  %15 = fadd reassoc <8 x float> %13, %wide.masked.load2
  %16 = getelementptr i8, ptr %10, i64 120
  %wide.masked.load3 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %16, <8 x i1> %9, <8 x float> poison), !invariant.load !3, !alias.scope !6, !noalias !15
  %17 = fadd reassoc <8 x float> %15, %wide.masked.load3
  %18 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %index
  tail call void @llvm.masked.store.v8f32.p0(<8 x float> %17, ptr align 4 %18, <8 x i1> %9), !alias.scope !11, !noalias !16
  %index.next = add nuw i64 %index, 8
  %vec.ind.next = add nuw <8 x i8> %vec.ind, splat (i8 8)
  %19 = icmp eq i64 %index.next, 16
  br i1 %19, label %wrapped_reduce.1_wrapped.exit, label %vector.body, !llvm.loop !17

wrapped_reduce.1_wrapped.exit:                    ; preds = %vector.body
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: read)
declare <8 x float> @llvm.masked.load.v8f32.p0(ptr captures(none), <8 x i1>, <8 x float>) #2

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: write)
declare void @llvm.masked.store.v8f32.p0(<8 x float>, ptr captures(none), <8 x i1>) #3

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }
attributes #2 = { nocallback nofree nosync nounwind willreturn memory(argmem: read) }
attributes #3 = { nocallback nofree nosync nounwind willreturn memory(argmem: write) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 19}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 160}
!5 = !{i64 40}
!6 = !{!7}
!7 = distinct !{!7, !8, !"wrapped_reduce.1_wrapped: argument 0"}
!8 = distinct !{!8, !"wrapped_reduce.1_wrapped"}
!9 = !{!10}
!10 = distinct !{!10, !8, !"wrapped_reduce.1_wrapped: argument 1"}
!11 = !{!12}
!12 = distinct !{!12, !8, !"wrapped_reduce.1_wrapped: argument 2"}
!13 = !{i64 4}
!14 = !{!7, !12}
!15 = !{!10, !12}
!16 = !{!7, !10}
!17 = distinct !{!17, !18, !19, !20}
!18 = !{!"llvm.loop.unroll.disable"}
!19 = !{!"llvm.loop.isvectorized", i32 1}
!20 = !{!"llvm.loop.unroll.runtime.disable"}
