; ModuleID = '__compute_module_multiply_subtract_fusion_kernel_module'
source_filename = "__compute_module_multiply_subtract_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @multiply_subtract_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
vector.ph:
  %1 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %2 = load ptr, ptr %1, align 8, !invariant.load !3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3, !dereferenceable !4
  %4 = getelementptr inbounds nuw i8, ptr %2, i64 16
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !5
  %6 = getelementptr inbounds nuw i8, ptr %2, i64 32
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !4
  tail call void @llvm.experimental.noalias.scope.decl(metadata !6)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !9)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !11)
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %vector.ph
  %index = phi i64 [ 0, %vector.ph ], [ %index.next, %vector.body ]
  %vec.ind = phi <8 x i8> [ <i8 0, i8 1, i8 2, i8 3, i8 4, i8 5, i8 6, i8 7>, %vector.ph ], [ %vec.ind.next, %vector.body ]
  %8 = icmp ult <8 x i8> %vec.ind, splat (i8 10)
  %9 = getelementptr [4 x i8], ptr %5, i64 %index
  %wide.masked.load = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %9, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %10 = fadd reassoc <8 x float> %wide.masked.load, zeroinitializer
  %11 = getelementptr i8, ptr %9, i64 40
  %wide.masked.load1 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %11, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %12 = fadd reassoc <8 x float> %10, %wide.masked.load1
  %13 = getelementptr i8, ptr %9, i64 80
  %wide.masked.load2 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %13, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %14 = fadd reassoc <8 x float> %12, %wide.masked.load2
  %15 = getelementptr i8, ptr %9, i64 120
  %wide.masked.load3 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %15, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %16 = fadd reassoc <8 x float> %14, %wide.masked.load3
  %17 = getelementptr i8, ptr %9, i64 160
  %wide.masked.load4 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %17, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %18 = fadd reassoc <8 x float> %16, %wide.masked.load4
  %19 = getelementptr i8, ptr %9, i64 200
  %wide.masked.load5 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %19, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %20 = fadd reassoc <8 x float> %18, %wide.masked.load5
  %21 = getelementptr i8, ptr %9, i64 240
  %wide.masked.load6 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %21, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %22 = fadd reassoc <8 x float> %20, %wide.masked.load6
  %23 = getelementptr i8, ptr %9, i64 280
  %wide.masked.load7 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %23, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %24 = fadd reassoc <8 x float> %22, %wide.masked.load7
  %25 = getelementptr i8, ptr %9, i64 320
  %wide.masked.load8 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %25, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %26 = fadd reassoc <8 x float> %24, %wide.masked.load8
  %27 = getelementptr i8, ptr %9, i64 360
  %wide.masked.load9 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %27, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %28 = fadd reassoc <8 x float> %26, %wide.masked.load9
  %29 = getelementptr i8, ptr %9, i64 400
  %wide.masked.load10 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %29, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %30 = fadd reassoc <8 x float> %28, %wide.masked.load10
  %31 = getelementptr i8, ptr %9, i64 440
  %wide.masked.load11 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %31, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %32 = fadd reassoc <8 x float> %30, %wide.masked.load11
  %33 = getelementptr i8, ptr %9, i64 480
  %wide.masked.load12 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %33, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %34 = fadd reassoc <8 x float> %32, %wide.masked.load12
  %35 = getelementptr i8, ptr %9, i64 520
  %wide.masked.load13 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %35, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %36 = fadd reassoc <8 x float> %34, %wide.masked.load13
  %37 = getelementptr i8, ptr %9, i64 560
  %wide.masked.load14 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %37, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %38 = fadd reassoc <8 x float> %36, %wide.masked.load14
  %39 = getelementptr i8, ptr %9, i64 600
  %wide.masked.load15 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %39, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %40 = fadd reassoc <8 x float> %38, %wide.masked.load15
  %41 = getelementptr i8, ptr %9, i64 640
  %wide.masked.load16 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %41, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %42 = fadd reassoc <8 x float> %40, %wide.masked.load16
  %43 = getelementptr i8, ptr %9, i64 680
  %wide.masked.load17 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %43, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %44 = fadd reassoc <8 x float> %42, %wide.masked.load17
  %45 = getelementptr i8, ptr %9, i64 720
  %wide.masked.load18 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %45, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %46 = fadd reassoc <8 x float> %44, %wide.masked.load18
  %47 = getelementptr i8, ptr %9, i64 760
  %wide.masked.load19 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %47, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %48 = fadd reassoc <8 x float> %46, %wide.masked.load19
  %49 = getelementptr i8, ptr %9, i64 800
  %wide.masked.load20 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %49, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %50 = fadd reassoc <8 x float> %48, %wide.masked.load20
  %51 = getelementptr i8, ptr %9, i64 840
  %wide.masked.load21 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %51, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %52 = fadd reassoc <8 x float> %50, %wide.masked.load21
  %53 = getelementptr i8, ptr %9, i64 880
  %wide.masked.load22 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %53, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %54 = fadd reassoc <8 x float> %52, %wide.masked.load22
  %55 = getelementptr i8, ptr %9, i64 920
  %wide.masked.load23 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %55, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %56 = fadd reassoc <8 x float> %54, %wide.masked.load23
  %57 = getelementptr i8, ptr %9, i64 960
  %wide.masked.load24 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %57, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %58 = fadd reassoc <8 x float> %56, %wide.masked.load24
  %59 = getelementptr i8, ptr %9, i64 1000
  %wide.masked.load25 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %59, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %60 = fadd reassoc <8 x float> %58, %wide.masked.load25
  %61 = getelementptr i8, ptr %9, i64 1040
  %wide.masked.load26 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %61, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %62 = fadd reassoc <8 x float> %60, %wide.masked.load26
  %63 = getelementptr i8, ptr %9, i64 1080
  %wide.masked.load27 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %63, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %64 = fadd reassoc <8 x float> %62, %wide.masked.load27
  %65 = getelementptr i8, ptr %9, i64 1120
  %wide.masked.load28 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %65, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %66 = fadd reassoc <8 x float> %64, %wide.masked.load28
  %67 = getelementptr i8, ptr %9, i64 1160
  %wide.masked.load29 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %67, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %68 = fadd reassoc <8 x float> %66, %wide.masked.load29
  %69 = getelementptr i8, ptr %9, i64 1200
  %wide.masked.load30 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %69, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %70 = fadd reassoc <8 x float> %68, %wide.masked.load30
  %71 = getelementptr i8, ptr %9, i64 1240
  %wide.masked.load31 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %71, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !9, !noalias !13
  %72 = fadd reassoc <8 x float> %70, %wide.masked.load31
  %73 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %index
  %wide.masked.load32 = tail call <8 x float> @llvm.masked.load.v8f32.p0(ptr nonnull align 4 %73, <8 x i1> %8, <8 x float> poison), !invariant.load !3, !alias.scope !6, !noalias !14
  %74 = fmul <8 x float> %72, splat (float f0x3C23D70A)
  %75 = fsub <8 x float> %wide.masked.load32, %74
  %76 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %index
  tail call void @llvm.masked.store.v8f32.p0(<8 x float> %75, ptr align 4 %76, <8 x i1> %8), !alias.scope !11, !noalias !15
  %index.next = add nuw i64 %index, 8
  %vec.ind.next = add nuw <8 x i8> %vec.ind, splat (i8 8)
  %77 = icmp eq i64 %index.next, 16
  br i1 %77, label %multiply_subtract_fusion_wrapped.exit, label %vector.body, !llvm.loop !16

multiply_subtract_fusion_wrapped.exit:            ; preds = %vector.body
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
!1 = !{i32 1, !"xla_dylib_index", i64 15}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 40}
!5 = !{i64 1280}
!6 = !{!7}
!7 = distinct !{!7, !8, !"multiply_subtract_fusion_wrapped: argument 0"}
!8 = distinct !{!8, !"multiply_subtract_fusion_wrapped"}
!9 = !{!10}
!10 = distinct !{!10, !8, !"multiply_subtract_fusion_wrapped: argument 1"}
!11 = !{!12}
!12 = distinct !{!12, !8, !"multiply_subtract_fusion_wrapped: argument 2"}
!13 = !{!7, !12}
!14 = !{!10, !12}
!15 = !{!7, !10}
!16 = distinct !{!16, !17, !18, !19}
!17 = !{!"llvm.loop.unroll.disable"}
!18 = !{!"llvm.loop.isvectorized", i32 1}
!19 = !{!"llvm.loop.unroll.runtime.disable"}
