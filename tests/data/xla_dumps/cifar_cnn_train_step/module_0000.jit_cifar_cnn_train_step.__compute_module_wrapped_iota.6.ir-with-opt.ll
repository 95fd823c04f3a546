; ModuleID = '__compute_module___compute_module_wrapped_iota.6'
source_filename = "__compute_module___compute_module_wrapped_iota.6"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none)
define noalias noundef ptr @wrapped_iota.6(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %6 = load ptr, ptr %5, align 8
  %7 = load i64, ptr %6, align 4, !invariant.load !3
  %.not = icmp sgt i64 %7, 1
  br i1 %.not, label %._crit_edge, label %wrapped_iota.6_impl.exit.preheader

wrapped_iota.6_impl.exit.preheader:               ; preds = %1
  %8 = tail call i64 @llvm.smax.i64(i64 %7, i64 0)
  %9 = shl i64 %8, 13
  %10 = tail call i64 @llvm.umin.i64(i64 %9, i64 8192)
  %11 = tail call i64 @llvm.umin.i64(i64 %9, i64 16384)
  %12 = or disjoint i64 %10, 8190
  br label %wrapped_iota.6_impl.exit

wrapped_iota.6_impl.exit:                         ; preds = %wrapped_iota.6_impl.exit, %wrapped_iota.6_impl.exit.preheader
  %13 = phi i64 [ %11, %wrapped_iota.6_impl.exit.preheader ], [ %33, %wrapped_iota.6_impl.exit ]
  %14 = lshr exact i64 %13, 1
  %15 = and i64 %14, 15
  %16 = trunc nuw nsw i64 %15 to i32
  %17 = insertelement <16 x i32> poison, i32 %16, i64 0
  %18 = shufflevector <16 x i32> %17, <16 x i32> poison, <16 x i32> zeroinitializer
  %19 = shl nuw nsw i64 %13, 6
  %.idx7 = and i64 %19, 9223372036854743040
  %20 = getelementptr i8, ptr %4, i64 %.idx7
  %.idx8 = and i64 %19, 30720
  %21 = getelementptr i8, ptr %20, i64 %.idx8
  %.idx9 = shl nuw nsw i64 %15, 7
  %22 = getelementptr i8, ptr %21, i64 %.idx9
  store <16 x i32> %18, ptr %22, align 1
  %23 = lshr exact i64 %13, 1
  %24 = and i64 %23, 15
  %25 = trunc nuw nsw i64 %24 to i32
  %26 = insertelement <16 x i32> poison, i32 %25, i64 0
  %27 = shufflevector <16 x i32> %26, <16 x i32> poison, <16 x i32> zeroinitializer
  %28 = shl i64 %13, 6
  %.idx7.1 = and i64 %28, 9223372036854743040
  %29 = getelementptr i8, ptr %4, i64 %.idx7.1
  %.idx8.1 = and i64 %28, 30720
  %30 = getelementptr i8, ptr %29, i64 %.idx8.1
  %.idx9.1 = shl nuw nsw i64 %24, 7
  %31 = getelementptr i8, ptr %30, i64 %.idx9.1
  %32 = getelementptr i8, ptr %31, i64 64
  store <16 x i32> %27, ptr %32, align 1
  %33 = add nuw nsw i64 %13, 2
  %exitcond.not.1 = icmp eq i64 %13, %12
  br i1 %exitcond.not.1, label %._crit_edge, label %wrapped_iota.6_impl.exit

._crit_edge:                                      ; preds = %wrapped_iota.6_impl.exit, %1
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
!1 = !{i32 1, !"xla_dylib_index", i64 2}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
