; ModuleID = '__compute_module___compute_module_wrapped_iota.2'
source_filename = "__compute_module___compute_module_wrapped_iota.2"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none)
define noalias noundef ptr @wrapped_iota.2(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %6 = load ptr, ptr %5, align 8
  %7 = load i64, ptr %6, align 4, !invariant.load !3
  %.not = icmp sgt i64 %7, 1
  br i1 %.not, label %._crit_edge, label %wrapped_iota.2_impl.exit.preheader

wrapped_iota.2_impl.exit.preheader:               ; preds = %1
  %8 = tail call i64 @llvm.smax.i64(i64 %7, i64 0)
  %9 = shl i64 %8, 14
  %10 = tail call i64 @llvm.umin.i64(i64 %9, i64 16384)
  %11 = tail call i64 @llvm.umin.i64(i64 %9, i64 32768)
  %12 = or disjoint i64 %10, 16380
  br label %wrapped_iota.2_impl.exit

wrapped_iota.2_impl.exit:                         ; preds = %wrapped_iota.2_impl.exit, %wrapped_iota.2_impl.exit.preheader
  %13 = phi i64 [ %11, %wrapped_iota.2_impl.exit.preheader ], [ %49, %wrapped_iota.2_impl.exit ]
  %14 = and i64 %13, 28
  %15 = trunc nuw nsw i64 %14 to i32
  %16 = insertelement <16 x i32> poison, i32 %15, i64 0
  %17 = shufflevector <16 x i32> %16, <16 x i32> poison, <16 x i32> zeroinitializer
  %18 = shl nuw nsw i64 %13, 6
  %.idx7 = and i64 %18, 9223372036854710272
  %19 = getelementptr i8, ptr %4, i64 %.idx7
  %.idx8 = and i64 %18, 63488
  %20 = getelementptr i8, ptr %19, i64 %.idx8
  %.idx9 = shl nuw nsw i64 %14, 6
  %21 = getelementptr i8, ptr %20, i64 %.idx9
  store <16 x i32> %17, ptr %21, align 1
  %22 = or disjoint i64 %13, 1
  %23 = and i64 %22, 29
  %24 = trunc nuw nsw i64 %23 to i32
  %25 = insertelement <16 x i32> poison, i32 %24, i64 0
  %26 = shufflevector <16 x i32> %25, <16 x i32> poison, <16 x i32> zeroinitializer
  %27 = shl nuw nsw i64 %22, 6
  %.idx7.1 = and i64 %27, 9223372036854710272
  %28 = getelementptr i8, ptr %4, i64 %.idx7.1
  %.idx8.1 = and i64 %27, 63488
  %29 = getelementptr i8, ptr %28, i64 %.idx8.1
  %.idx9.1 = shl nuw nsw i64 %23, 6
  %30 = getelementptr i8, ptr %29, i64 %.idx9.1
  store <16 x i32> %26, ptr %30, align 1
  %31 = or disjoint i64 %13, 2
  %32 = and i64 %31, 30
  %33 = trunc nuw nsw i64 %32 to i32
  %34 = insertelement <16 x i32> poison, i32 %33, i64 0
  %35 = shufflevector <16 x i32> %34, <16 x i32> poison, <16 x i32> zeroinitializer
  %36 = shl nuw nsw i64 %31, 6
  %.idx7.2 = and i64 %36, 9223372036854710272
  %37 = getelementptr i8, ptr %4, i64 %.idx7.2
  %.idx8.2 = and i64 %36, 63488
  %38 = getelementptr i8, ptr %37, i64 %.idx8.2
  %.idx9.2 = shl nuw nsw i64 %32, 6
  %39 = getelementptr i8, ptr %38, i64 %.idx9.2
  store <16 x i32> %35, ptr %39, align 1
  %40 = or disjoint i64 %13, 3
  %41 = and i64 %40, 31
  %42 = trunc nuw nsw i64 %41 to i32
  %43 = insertelement <16 x i32> poison, i32 %42, i64 0
  %44 = shufflevector <16 x i32> %43, <16 x i32> poison, <16 x i32> zeroinitializer
  %45 = shl nuw nsw i64 %40, 6
  %.idx7.3 = and i64 %45, 9223372036854710272
  %46 = getelementptr i8, ptr %4, i64 %.idx7.3
  %.idx8.3 = and i64 %45, 63488
  %47 = getelementptr i8, ptr %46, i64 %.idx8.3
  %.idx9.3 = shl nuw nsw i64 %41, 6
  %48 = getelementptr i8, ptr %47, i64 %.idx9.3
  store <16 x i32> %44, ptr %48, align 1
  %49 = add nuw nsw i64 %13, 4
  %exitcond.not.3 = icmp eq i64 %13, %12
  br i1 %exitcond.not.3, label %._crit_edge, label %wrapped_iota.2_impl.exit

._crit_edge:                                      ; preds = %wrapped_iota.2_impl.exit, %1
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
!1 = !{i32 1, !"xla_dylib_index", i64 30}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
