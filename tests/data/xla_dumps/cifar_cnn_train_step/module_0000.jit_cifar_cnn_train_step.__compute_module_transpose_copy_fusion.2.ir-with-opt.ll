; ModuleID = '__compute_module___compute_module_transpose_copy_fusion.2'
source_filename = "__compute_module___compute_module_transpose_copy_fusion.2"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none)
define noalias noundef ptr @transpose_copy_fusion.2(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  %.not = icmp sgt i64 %9, 1
  br i1 %.not, label %._crit_edge, label %transpose_copy_fusion.2_impl.exit.preheader

transpose_copy_fusion.2_impl.exit.preheader:      ; preds = %1
  %10 = tail call i64 @llvm.smax.i64(i64 %9, i64 0)
  %11 = shl i64 %10, 14
  %12 = tail call i64 @llvm.umin.i64(i64 %11, i64 16384)
  %13 = tail call i64 @llvm.umin.i64(i64 %11, i64 32768)
  %14 = or disjoint i64 %12, 16380
  br label %transpose_copy_fusion.2_impl.exit

transpose_copy_fusion.2_impl.exit:                ; preds = %transpose_copy_fusion.2_impl.exit, %transpose_copy_fusion.2_impl.exit.preheader
  %15 = phi i64 [ %13, %transpose_copy_fusion.2_impl.exit.preheader ], [ %59, %transpose_copy_fusion.2_impl.exit ]
  %16 = and i64 %15, 28
  %17 = lshr i64 %15, 10
  %18 = lshr i64 %15, 5
  %19 = and i64 %18, 31
  %.idx7 = shl nuw nsw i64 %16, 16
  %20 = getelementptr i8, ptr %4, i64 %.idx7
  %.idx8 = shl nuw nsw i64 %17, 11
  %21 = getelementptr i8, ptr %20, i64 %.idx8
  %.idx9 = shl nuw nsw i64 %19, 6
  %22 = getelementptr i8, ptr %21, i64 %.idx9
  %.idx17 = shl nuw nsw i64 %17, 16
  %23 = getelementptr i8, ptr %6, i64 %.idx17
  %.idx18 = shl nuw nsw i64 %19, 11
  %24 = getelementptr i8, ptr %23, i64 %.idx18
  %.idx19 = shl nuw nsw i64 %16, 6
  %25 = getelementptr i8, ptr %24, i64 %.idx19
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %25, ptr noundef nonnull align 1 dereferenceable(64) %22, i64 64, i1 false)
  %26 = and i64 %15, 28
  %27 = or disjoint i64 %26, 1
  %28 = lshr i64 %15, 10
  %29 = lshr i64 %15, 5
  %30 = and i64 %29, 31
  %.idx7.1 = shl nuw nsw i64 %27, 16
  %31 = getelementptr i8, ptr %4, i64 %.idx7.1
  %.idx8.1 = shl nuw nsw i64 %28, 11
  %32 = getelementptr i8, ptr %31, i64 %.idx8.1
  %.idx9.1 = shl nuw nsw i64 %30, 6
  %33 = getelementptr i8, ptr %32, i64 %.idx9.1
  %.idx17.1 = shl nuw nsw i64 %28, 16
  %34 = getelementptr i8, ptr %6, i64 %.idx17.1
  %.idx18.1 = shl nuw nsw i64 %30, 11
  %35 = getelementptr i8, ptr %34, i64 %.idx18.1
  %.idx19.1 = shl nuw nsw i64 %27, 6
  %36 = getelementptr i8, ptr %35, i64 %.idx19.1
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %36, ptr noundef nonnull align 1 dereferenceable(64) %33, i64 64, i1 false)
  %37 = and i64 %15, 28
  %38 = or disjoint i64 %37, 2
  %39 = lshr i64 %15, 10
  %40 = lshr i64 %15, 5
  %41 = and i64 %40, 31
  %.idx7.2 = shl nuw nsw i64 %38, 16
  %42 = getelementptr i8, ptr %4, i64 %.idx7.2
  %.idx8.2 = shl nuw nsw i64 %39, 11
  %43 = getelementptr i8, ptr %42, i64 %.idx8.2
  %.idx9.2 = shl nuw nsw i64 %41, 6
  %44 = getelementptr i8, ptr %43, i64 %.idx9.2
  %.idx17.2 = shl nuw nsw i64 %39, 16
  %45 = getelementptr i8, ptr %6, i64 %.idx17.2
  %.idx18.2 = shl nuw nsw i64 %41, 11
  %46 = getelementptr i8, ptr %45, i64 %.idx18.2
  %.idx19.2 = shl nuw nsw i64 %38, 6
  %47 = getelementptr i8, ptr %46, i64 %.idx19.2
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %47, ptr noundef nonnull align 1 dereferenceable(64) %44, i64 64, i1 false)
  %48 = and i64 %15, 28
  %49 = or disjoint i64 %48, 3
  %50 = lshr i64 %15, 10
  %51 = lshr i64 %15, 5
  %52 = and i64 %51, 31
  %.idx7.3 = shl nuw nsw i64 %49, 16
  %53 = getelementptr i8, ptr %4, i64 %.idx7.3
  %.idx8.3 = shl nuw nsw i64 %50, 11
  %54 = getelementptr i8, ptr %53, i64 %.idx8.3
  %.idx9.3 = shl nuw nsw i64 %52, 6
  %55 = getelementptr i8, ptr %54, i64 %.idx9.3
  %.idx17.3 = shl nuw nsw i64 %50, 16
  %56 = getelementptr i8, ptr %6, i64 %.idx17.3
  %.idx18.3 = shl nuw nsw i64 %52, 11
  %57 = getelementptr i8, ptr %56, i64 %.idx18.3
  %.idx19.3 = shl nuw nsw i64 %49, 6
  %58 = getelementptr i8, ptr %57, i64 %.idx19.3
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %58, ptr noundef nonnull align 1 dereferenceable(64) %55, i64 64, i1 false)
  %59 = add nuw nsw i64 %15, 4
  %exitcond.not.3 = icmp eq i64 %15, %14
  br i1 %exitcond.not.3, label %._crit_edge, label %transpose_copy_fusion.2_impl.exit

._crit_edge:                                      ; preds = %transpose_copy_fusion.2_impl.exit, %1
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
!1 = !{i32 1, !"xla_dylib_index", i64 23}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
