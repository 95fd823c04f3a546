; ModuleID = '__compute_module___compute_module_wrapped_iota'
source_filename = "__compute_module___compute_module_wrapped_iota"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none)
define noalias noundef ptr @wrapped_iota(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %6 = load ptr, ptr %5, align 8
  %7 = load i64, ptr %6, align 4, !invariant.load !3
  %.not = icmp sgt i64 %7, 1
  br i1 %.not, label %._crit_edge, label %wrapped_iota_impl.exit.preheader

wrapped_iota_impl.exit.preheader:                 ; preds = %1
  %8 = tail call i64 @llvm.smax.i64(i64 %7, i64 0)
  %9 = shl i64 %8, 14
  %10 = tail call i64 @llvm.umin.i64(i64 %9, i64 16384)
  %11 = tail call i64 @llvm.umin.i64(i64 %9, i64 32768)
  %12 = or disjoint i64 %10, 16380
  br label %wrapped_iota_impl.exit

wrapped_iota_impl.exit:                           ; preds = %wrapped_iota_impl.exit, %wrapped_iota_impl.exit.preheader
  %13 = phi i64 [ %11, %wrapped_iota_impl.exit.preheader ], [ %52, %wrapped_iota_impl.exit ]
  %14 = lshr i64 %13, 10
  %15 = trunc nuw nsw i64 %14 to i32
  %16 = insertelement <16 x i32> poison, i32 %15, i64 0
  %17 = shufflevector <16 x i32> %16, <16 x i32> poison, <16 x i32> zeroinitializer
  %.idx7 = shl nuw nsw i64 %14, 16
  %18 = getelementptr i8, ptr %4, i64 %.idx7
  %19 = shl i64 %13, 6
  %.idx8 = and i64 %19, 63488
  %20 = getelementptr i8, ptr %18, i64 %.idx8
  %.idx9 = and i64 %19, 1792
  %21 = getelementptr i8, ptr %20, i64 %.idx9
  store <16 x i32> %17, ptr %21, align 1
  %22 = lshr i64 %13, 10
  %23 = trunc nuw nsw i64 %22 to i32
  %24 = insertelement <16 x i32> poison, i32 %23, i64 0
  %25 = shufflevector <16 x i32> %24, <16 x i32> poison, <16 x i32> zeroinitializer
  %.idx7.1 = shl nuw nsw i64 %22, 16
  %26 = getelementptr i8, ptr %4, i64 %.idx7.1
  %27 = shl i64 %13, 6
  %.idx8.1 = and i64 %27, 63488
  %28 = getelementptr i8, ptr %26, i64 %.idx8.1
  %29 = and i64 %27, 1792
  %30 = getelementptr i8, ptr %28, i64 %29
  %31 = getelementptr i8, ptr %30, i64 64
  store <16 x i32> %25, ptr %31, align 1
  %32 = lshr i64 %13, 10
  %33 = trunc nuw nsw i64 %32 to i32
  %34 = insertelement <16 x i32> poison, i32 %33, i64 0
  %35 = shufflevector <16 x i32> %34, <16 x i32> poison, <16 x i32> zeroinitializer
  %.idx7.2 = shl nuw nsw i64 %32, 16
  %36 = getelementptr i8, ptr %4, i64 %.idx7.2
  %37 = shl i64 %13, 6
  %.idx8.2 = and i64 %37, 63488
  %38 = getelementptr i8, ptr %36, i64 %.idx8.2
  %39 = and i64 %37, 1792
  %40 = getelementptr i8, ptr %38, i64 %39
  %41 = getelementptr i8, ptr %40, i64 128
  store <16 x i32> %35, ptr %41, align 1
  %42 = lshr i64 %13, 10
  %43 = trunc nuw nsw i64 %42 to i32
  %44 = insertelement <16 x i32> poison, i32 %43, i64 0
  %45 = shufflevector <16 x i32> %44, <16 x i32> poison, <16 x i32> zeroinitializer
  %.idx7.3 = shl nuw nsw i64 %42, 16
  %46 = getelementptr i8, ptr %4, i64 %.idx7.3
  %47 = shl i64 %13, 6
  %.idx8.3 = and i64 %47, 63488
  %48 = getelementptr i8, ptr %46, i64 %.idx8.3
  %49 = and i64 %47, 1792
  %50 = getelementptr i8, ptr %48, i64 %49
  %51 = getelementptr i8, ptr %50, i64 192
  store <16 x i32> %45, ptr %51, align 1
  %52 = add nuw nsw i64 %13, 4
  %exitcond.not.3 = icmp eq i64 %13, %12
  br i1 %exitcond.not.3, label %._crit_edge, label %wrapped_iota_impl.exit

._crit_edge:                                      ; preds = %wrapped_iota_impl.exit, %1
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
!1 = !{i32 1, !"xla_dylib_index", i64 28}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
