; ModuleID = '__compute_module___compute_module_wrapped_iota.3'
source_filename = "__compute_module___compute_module_wrapped_iota.3"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

@__constant_1x1x1x16xi32 = private unnamed_addr constant [1 x [1 x [1 x [16 x i32]]]] [[1 x [1 x [16 x i32]]] [[1 x [16 x i32]] [[16 x i32] [i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15]]]], align 64

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none)
define noalias noundef ptr @wrapped_iota.3(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %6 = load ptr, ptr %5, align 8
  %7 = load i64, ptr %6, align 4, !invariant.load !3
  %.not = icmp sgt i64 %7, 1
  br i1 %.not, label %._crit_edge, label %wrapped_iota.3_impl.exit.preheader

wrapped_iota.3_impl.exit.preheader:               ; preds = %1
  %8 = tail call i64 @llvm.smax.i64(i64 %7, i64 0)
  %9 = shl i64 %8, 14
  %10 = tail call i64 @llvm.umin.i64(i64 %9, i64 16384)
  %11 = tail call i64 @llvm.umin.i64(i64 %9, i64 32768)
  %12 = or disjoint i64 %10, 16380
  br label %wrapped_iota.3_impl.exit

wrapped_iota.3_impl.exit:                         ; preds = %wrapped_iota.3_impl.exit, %wrapped_iota.3_impl.exit.preheader
  %13 = phi i64 [ %11, %wrapped_iota.3_impl.exit.preheader ], [ %36, %wrapped_iota.3_impl.exit ]
  %14 = shl nuw nsw i64 %13, 6
  %.idx7 = and i64 %14, 9223372036854710272
  %15 = getelementptr i8, ptr %4, i64 %.idx7
  %.idx8 = and i64 %14, 63488
  %16 = getelementptr i8, ptr %15, i64 %.idx8
  %.idx9 = and i64 %14, 1792
  %17 = getelementptr i8, ptr %16, i64 %.idx9
  tail call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %17, ptr noundef nonnull align 64 dereferenceable(64) @__constant_1x1x1x16xi32, i64 64, i1 false)
  %18 = shl i64 %13, 6
  %.idx7.1 = and i64 %18, 9223372036854710272
  %19 = getelementptr i8, ptr %4, i64 %.idx7.1
  %.idx8.1 = and i64 %18, 63488
  %20 = getelementptr i8, ptr %19, i64 %.idx8.1
  %21 = and i64 %18, 1792
  %22 = getelementptr i8, ptr %20, i64 %21
  %23 = getelementptr i8, ptr %22, i64 64
  tail call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %23, ptr noundef nonnull align 64 dereferenceable(64) @__constant_1x1x1x16xi32, i64 64, i1 false)
  %24 = shl i64 %13, 6
  %.idx7.2 = and i64 %24, 9223372036854710272
  %25 = getelementptr i8, ptr %4, i64 %.idx7.2
  %.idx8.2 = and i64 %24, 63488
  %26 = getelementptr i8, ptr %25, i64 %.idx8.2
  %27 = and i64 %24, 1792
  %28 = getelementptr i8, ptr %26, i64 %27
  %29 = getelementptr i8, ptr %28, i64 128
  tail call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %29, ptr noundef nonnull align 64 dereferenceable(64) @__constant_1x1x1x16xi32, i64 64, i1 false)
  %30 = shl i64 %13, 6
  %.idx7.3 = and i64 %30, 9223372036854710272
  %31 = getelementptr i8, ptr %4, i64 %.idx7.3
  %.idx8.3 = and i64 %30, 63488
  %32 = getelementptr i8, ptr %31, i64 %.idx8.3
  %33 = and i64 %30, 1792
  %34 = getelementptr i8, ptr %32, i64 %33
  %35 = getelementptr i8, ptr %34, i64 192
  tail call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %35, ptr noundef nonnull align 64 dereferenceable(64) @__constant_1x1x1x16xi32, i64 64, i1 false)
  %36 = add nuw nsw i64 %13, 4
  %exitcond.not.3 = icmp eq i64 %13, %12
  br i1 %exitcond.not.3, label %._crit_edge, label %wrapped_iota.3_impl.exit

._crit_edge:                                      ; preds = %wrapped_iota.3_impl.exit, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #2

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #3

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none) }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #3 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 31}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
