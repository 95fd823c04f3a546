; ModuleID = '__compute_module___compute_module_wrapped_iota.4'
source_filename = "__compute_module___compute_module_wrapped_iota.4"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none)
define noalias noundef ptr @wrapped_iota.4(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %6 = load ptr, ptr %5, align 8
  %7 = load i64, ptr %6, align 4, !invariant.load !3
  %.not = icmp sgt i64 %7, 1
  br i1 %.not, label %._crit_edge, label %wrapped_iota.4_impl.exit.preheader

wrapped_iota.4_impl.exit.preheader:               ; preds = %1
  %8 = tail call i64 @llvm.smax.i64(i64 %7, i64 0)
  %9 = shl i64 %8, 13
  %10 = tail call i64 @llvm.umin.i64(i64 %9, i64 8192)
  %11 = tail call i64 @llvm.umin.i64(i64 %9, i64 16384)
  %12 = or disjoint i64 %10, 8188
  br label %wrapped_iota.4_impl.exit

wrapped_iota.4_impl.exit:                         ; preds = %wrapped_iota.4_impl.exit, %wrapped_iota.4_impl.exit.preheader
  %13 = phi i64 [ %11, %wrapped_iota.4_impl.exit.preheader ], [ %51, %wrapped_iota.4_impl.exit ]
  %14 = lshr i64 %13, 9
  %15 = trunc nuw nsw i64 %14 to i32
  %16 = insertelement <16 x i32> poison, i32 %15, i64 0
  %17 = shufflevector <16 x i32> %16, <16 x i32> poison, <16 x i32> zeroinitializer
  %.idx7 = shl nuw nsw i64 %14, 15
  %18 = getelementptr i8, ptr %4, i64 %.idx7
  %19 = shl i64 %13, 6
  %.idx8 = and i64 %19, 30720
  %20 = getelementptr i8, ptr %18, i64 %.idx8
  %.idx9 = and i64 %19, 1792
  %21 = getelementptr i8, ptr %20, i64 %.idx9
  store <16 x i32> %17, ptr %21, align 1
  %22 = lshr i64 %13, 9
  %23 = trunc nuw nsw i64 %22 to i32
  %24 = insertelement <16 x i32> poison, i32 %23, i64 0
  %25 = shufflevector <16 x i32> %24, <16 x i32> poison, <16 x i32> zeroinitializer
  %.idx7.1 = shl nuw nsw i64 %22, 15
  %26 = getelementptr i8, ptr %4, i64 %.idx7.1
  %27 = shl i64 %13, 6
  %.idx8.1 = and i64 %27, 30720
  %28 = getelementptr i8, ptr %26, i64 %.idx8.1
  %.idx9.1 = and i64 %27, 1792
  %29 = getelementptr i8, ptr %28, i64 %.idx9.1
  %30 = getelementptr i8, ptr %29, i64 64
  store <16 x i32> %25, ptr %30, align 1
  %31 = lshr i64 %13, 9
  %32 = trunc nuw nsw i64 %31 to i32
  %33 = insertelement <16 x i32> poison, i32 %32, i64 0
  %34 = shufflevector <16 x i32> %33, <16 x i32> poison, <16 x i32> zeroinitializer
  %.idx7.2 = shl nuw nsw i64 %31, 15
  %35 = getelementptr i8, ptr %4, i64 %.idx7.2
  %36 = shl i64 %13, 6
  %.idx8.2 = and i64 %36, 30720
  %37 = getelementptr i8, ptr %35, i64 %.idx8.2
  %38 = and i64 %36, 1792
  %39 = getelementptr i8, ptr %37, i64 %38
  %40 = getelementptr i8, ptr %39, i64 128
  store <16 x i32> %34, ptr %40, align 1
  %41 = lshr i64 %13, 9
  %42 = trunc nuw nsw i64 %41 to i32
  %43 = insertelement <16 x i32> poison, i32 %42, i64 0
  %44 = shufflevector <16 x i32> %43, <16 x i32> poison, <16 x i32> zeroinitializer
  %.idx7.3 = shl nuw nsw i64 %41, 15
  %45 = getelementptr i8, ptr %4, i64 %.idx7.3
  %46 = shl i64 %13, 6
  %.idx8.3 = and i64 %46, 30720
  %47 = getelementptr i8, ptr %45, i64 %.idx8.3
  %48 = and i64 %46, 1792
  %49 = getelementptr i8, ptr %47, i64 %48
  %50 = getelementptr i8, ptr %49, i64 192
  store <16 x i32> %44, ptr %50, align 1
  %51 = add nuw nsw i64 %13, 4
  %exitcond.not.3 = icmp eq i64 %13, %12
  br i1 %exitcond.not.3, label %._crit_edge, label %wrapped_iota.4_impl.exit

._crit_edge:                                      ; preds = %wrapped_iota.4_impl.exit, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #2

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none) }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 0}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
