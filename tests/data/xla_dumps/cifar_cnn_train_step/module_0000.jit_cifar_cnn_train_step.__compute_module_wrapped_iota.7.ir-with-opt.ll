; ModuleID = '__compute_module___compute_module_wrapped_iota.7'
source_filename = "__compute_module___compute_module_wrapped_iota.7"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none)
define noalias noundef ptr @wrapped_iota.7(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %6 = load ptr, ptr %5, align 8
  %7 = load i64, ptr %6, align 4, !invariant.load !3
  %.not = icmp sgt i64 %7, 1
  br i1 %.not, label %._crit_edge, label %.lr.ph.preheader

.lr.ph.preheader:                                 ; preds = %1
  %8 = tail call i64 @llvm.smax.i64(i64 %7, i64 0)
  %9 = shl i64 %8, 13
  %10 = tail call i64 @llvm.umin.i64(i64 %9, i64 8192)
  %11 = tail call i64 @llvm.umin.i64(i64 %9, i64 16384)
  %12 = or disjoint i64 %10, 8190
  br label %.lr.ph

.lr.ph:                                           ; preds = %.lr.ph, %.lr.ph.preheader
  %13 = phi i64 [ %11, %.lr.ph.preheader ], [ %23, %.lr.ph ]
  %14 = shl nuw nsw i64 %13, 6
  %.idx7 = and i64 %14, 9223372036854743040
  %15 = getelementptr i8, ptr %4, i64 %.idx7
  %.idx8 = and i64 %14, 30720
  %16 = getelementptr i8, ptr %15, i64 %.idx8
  %.idx9 = and i64 %14, 1920
  %17 = getelementptr i8, ptr %16, i64 %.idx9
  store <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>, ptr %17, align 1
  %.sroa.4.0..sroa_idx = getelementptr inbounds nuw i8, ptr %17, i64 32
  store <8 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>, ptr %.sroa.4.0..sroa_idx, align 1
  %18 = shl i64 %13, 6
  %.idx7.1 = and i64 %18, 9223372036854743040
  %19 = getelementptr i8, ptr %4, i64 %.idx7.1
  %.idx8.1 = and i64 %18, 30720
  %20 = getelementptr i8, ptr %19, i64 %.idx8.1
  %.idx9.1 = and i64 %18, 1920
  %21 = getelementptr i8, ptr %20, i64 %.idx9.1
  %22 = getelementptr i8, ptr %21, i64 64
  store <8 x i32> <i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23>, ptr %22, align 1
  %.sroa.4.0..sroa_idx.1 = getelementptr i8, ptr %21, i64 96
  store <8 x i32> <i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31>, ptr %.sroa.4.0..sroa_idx.1, align 1
  %23 = add nuw nsw i64 %13, 2
  %exitcond.not.1 = icmp eq i64 %13, %12
  br i1 %exitcond.not.1, label %._crit_edge, label %.lr.ph

._crit_edge:                                      ; preds = %.lr.ph, %1
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
!1 = !{i32 1, !"xla_dylib_index", i64 3}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
