; ModuleID = '__compute_module___compute_module_bitcast_copy_fusion'
source_filename = "__compute_module___compute_module_bitcast_copy_fusion"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none)
define noalias noundef ptr @bitcast_copy_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  %.not = icmp sgt i64 %9, 1
  br i1 %.not, label %._crit_edge, label %bitcast_copy_fusion_impl.exit.preheader

bitcast_copy_fusion_impl.exit.preheader:          ; preds = %1
  %10 = tail call i64 @llvm.smax.i64(i64 %9, i64 0)
  %11 = shl i64 %10, 12
  %12 = tail call i64 @llvm.umin.i64(i64 %11, i64 4096)
  %13 = tail call i64 @llvm.umin.i64(i64 %11, i64 8192)
  %14 = or disjoint i64 %12, 4088
  br label %bitcast_copy_fusion_impl.exit

bitcast_copy_fusion_impl.exit:                    ; preds = %bitcast_copy_fusion_impl.exit, %bitcast_copy_fusion_impl.exit.preheader
  %15 = phi i64 [ %13, %bitcast_copy_fusion_impl.exit.preheader ], [ %63, %bitcast_copy_fusion_impl.exit ]
  %16 = shl nuw nsw i64 %15, 6
  %.idx7 = and i64 %16, 9223372036854759424
  %17 = getelementptr i8, ptr %4, i64 %.idx7
  %.idx8 = and i64 %16, 15360
  %18 = getelementptr i8, ptr %17, i64 %.idx8
  %.idx9 = and i64 %16, 512
  %19 = getelementptr i8, ptr %18, i64 %.idx9
  %20 = getelementptr i8, ptr %6, i64 %16
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %20, ptr noundef nonnull align 1 dereferenceable(64) %19, i64 64, i1 false)
  %21 = shl i64 %15, 6
  %22 = or disjoint i64 %21, 64
  %.idx7.1 = and i64 %21, 9223372036854759424
  %23 = getelementptr i8, ptr %4, i64 %.idx7.1
  %.idx8.1 = and i64 %21, 15360
  %24 = getelementptr i8, ptr %23, i64 %.idx8.1
  %.idx9.1 = and i64 %22, 576
  %25 = getelementptr i8, ptr %24, i64 %.idx9.1
  %26 = getelementptr i8, ptr %6, i64 %22
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %26, ptr noundef nonnull align 1 dereferenceable(64) %25, i64 64, i1 false)
  %27 = shl i64 %15, 6
  %28 = or disjoint i64 %27, 128
  %.idx7.2 = and i64 %27, 9223372036854759424
  %29 = getelementptr i8, ptr %4, i64 %.idx7.2
  %.idx8.2 = and i64 %27, 15360
  %30 = getelementptr i8, ptr %29, i64 %.idx8.2
  %.idx9.2 = and i64 %28, 640
  %31 = getelementptr i8, ptr %30, i64 %.idx9.2
  %32 = getelementptr i8, ptr %6, i64 %28
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %32, ptr noundef nonnull align 1 dereferenceable(64) %31, i64 64, i1 false)
  %33 = shl i64 %15, 6
  %34 = or disjoint i64 %33, 192
  %.idx7.3 = and i64 %33, 9223372036854759424
  %35 = getelementptr i8, ptr %4, i64 %.idx7.3
  %.idx8.3 = and i64 %33, 15360
  %36 = getelementptr i8, ptr %35, i64 %.idx8.3
  %.idx9.3 = and i64 %34, 704
  %37 = getelementptr i8, ptr %36, i64 %.idx9.3
  %38 = getelementptr i8, ptr %6, i64 %34
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %38, ptr noundef nonnull align 1 dereferenceable(64) %37, i64 64, i1 false)
  %39 = shl i64 %15, 6
  %40 = or disjoint i64 %39, 256
  %.idx7.4 = and i64 %39, 9223372036854759424
  %41 = getelementptr i8, ptr %4, i64 %.idx7.4
  %.idx8.4 = and i64 %39, 15360
  %42 = getelementptr i8, ptr %41, i64 %.idx8.4
  %.idx9.4 = and i64 %40, 768
  %43 = getelementptr i8, ptr %42, i64 %.idx9.4
  %44 = getelementptr i8, ptr %6, i64 %40
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %44, ptr noundef nonnull align 1 dereferenceable(64) %43, i64 64, i1 false)
  %45 = shl i64 %15, 6
  %46 = or disjoint i64 %45, 320
  %.idx7.5 = and i64 %45, 9223372036854759424
  %47 = getelementptr i8, ptr %4, i64 %.idx7.5
  %.idx8.5 = and i64 %45, 15360
  %48 = getelementptr i8, ptr %47, i64 %.idx8.5
  %.idx9.5 = and i64 %46, 832
  %49 = getelementptr i8, ptr %48, i64 %.idx9.5
  %50 = getelementptr i8, ptr %6, i64 %46
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %50, ptr noundef nonnull align 1 dereferenceable(64) %49, i64 64, i1 false)
  %51 = shl i64 %15, 6
  %52 = or disjoint i64 %51, 384
  %.idx7.6 = and i64 %51, 9223372036854759424
  %53 = getelementptr i8, ptr %4, i64 %.idx7.6
  %.idx8.6 = and i64 %51, 15360
  %54 = getelementptr i8, ptr %53, i64 %.idx8.6
  %.idx9.6 = and i64 %52, 896
  %55 = getelementptr i8, ptr %54, i64 %.idx9.6
  %56 = getelementptr i8, ptr %6, i64 %52
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %56, ptr noundef nonnull align 1 dereferenceable(64) %55, i64 64, i1 false)
  %57 = shl i64 %15, 6
  %58 = or disjoint i64 %57, 448
  %.idx7.7 = and i64 %57, 9223372036854759424
  %59 = getelementptr i8, ptr %4, i64 %.idx7.7
  %.idx8.7 = and i64 %57, 15360
  %60 = getelementptr i8, ptr %59, i64 %.idx8.7
  %.idx9.7 = and i64 %58, 960
  %61 = getelementptr i8, ptr %60, i64 %.idx9.7
  %62 = getelementptr i8, ptr %6, i64 %58
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %62, ptr noundef nonnull align 1 dereferenceable(64) %61, i64 64, i1 false)
  %63 = add nuw nsw i64 %15, 8
  %exitcond.not.7 = icmp eq i64 %15, %14
  br i1 %exitcond.not.7, label %._crit_edge, label %bitcast_copy_fusion_impl.exit

._crit_edge:                                      ; preds = %bitcast_copy_fusion_impl.exit, %1
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
!1 = !{i32 1, !"xla_dylib_index", i64 3}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
