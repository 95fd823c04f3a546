; ModuleID = '__compute_module___compute_module_transpose_copy_fusion'
source_filename = "__compute_module___compute_module_transpose_copy_fusion"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none)
define noalias noundef ptr @transpose_copy_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  %.not = icmp sgt i64 %9, 1
  br i1 %.not, label %._crit_edge, label %transpose_copy_fusion_impl.exit.preheader

transpose_copy_fusion_impl.exit.preheader:        ; preds = %1
  %10 = tail call i64 @llvm.smax.i64(i64 %9, i64 0)
  %11 = shl i64 %10, 13
  %12 = tail call i64 @llvm.umin.i64(i64 %11, i64 8192)
  %13 = tail call i64 @llvm.umin.i64(i64 %11, i64 16384)
  %14 = or disjoint i64 %12, 8190
  br label %transpose_copy_fusion_impl.exit

transpose_copy_fusion_impl.exit:                  ; preds = %transpose_copy_fusion_impl.exit, %transpose_copy_fusion_impl.exit.preheader
  %15 = phi i64 [ %13, %transpose_copy_fusion_impl.exit.preheader ], [ %40, %transpose_copy_fusion_impl.exit ]
  %16 = lshr exact i64 %15, 1
  %17 = and i64 %16, 31
  %18 = lshr i64 %15, 10
  %19 = lshr i64 %15, 6
  %20 = and i64 %19, 15
  %.idx7 = shl nuw nsw i64 %17, 15
  %21 = getelementptr i8, ptr %4, i64 %.idx7
  %.idx8 = shl nuw nsw i64 %18, 11
  %22 = getelementptr i8, ptr %21, i64 %.idx8
  %.idx9 = shl nuw nsw i64 %20, 7
  %23 = getelementptr i8, ptr %22, i64 %.idx9
  %.idx17 = shl nuw nsw i64 %18, 16
  %24 = getelementptr i8, ptr %6, i64 %.idx17
  %.idx18 = shl nuw nsw i64 %20, 12
  %25 = getelementptr i8, ptr %24, i64 %.idx18
  %.idx19 = shl nuw nsw i64 %17, 7
  %26 = getelementptr i8, ptr %25, i64 %.idx19
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %26, ptr noundef nonnull align 1 dereferenceable(64) %23, i64 64, i1 false)
  %27 = lshr exact i64 %15, 1
  %28 = and i64 %27, 31
  %29 = lshr i64 %15, 10
  %30 = lshr i64 %15, 6
  %31 = and i64 %30, 15
  %.idx7.1 = shl nuw nsw i64 %28, 15
  %32 = getelementptr i8, ptr %4, i64 %.idx7.1
  %.idx8.1 = shl nuw nsw i64 %29, 11
  %33 = getelementptr i8, ptr %32, i64 %.idx8.1
  %.idx9.1 = shl nuw nsw i64 %31, 7
  %34 = getelementptr i8, ptr %33, i64 %.idx9.1
  %35 = getelementptr i8, ptr %34, i64 64
  %.idx17.1 = shl nuw nsw i64 %29, 16
  %36 = getelementptr i8, ptr %6, i64 %.idx17.1
  %.idx18.1 = shl nuw nsw i64 %31, 12
  %37 = getelementptr i8, ptr %36, i64 %.idx18.1
  %.idx19.1 = shl nuw nsw i64 %28, 7
  %38 = getelementptr i8, ptr %37, i64 %.idx19.1
  %39 = getelementptr i8, ptr %38, i64 64
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %39, ptr noundef nonnull align 1 dereferenceable(64) %35, i64 64, i1 false)
  %40 = add nuw nsw i64 %15, 2
  %exitcond.not.1 = icmp eq i64 %15, %14
  br i1 %exitcond.not.1, label %._crit_edge, label %transpose_copy_fusion_impl.exit

._crit_edge:                                      ; preds = %transpose_copy_fusion_impl.exit, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #2

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memmove.p0.p0.i64(ptr writeonly captures(none), ptr readonly captures(none), i64, i1 immarg) #3

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none) }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 21}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
