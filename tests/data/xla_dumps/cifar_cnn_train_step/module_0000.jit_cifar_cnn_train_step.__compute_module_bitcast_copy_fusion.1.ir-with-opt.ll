; ModuleID = '__compute_module___compute_module_bitcast_copy_fusion.1'
source_filename = "__compute_module___compute_module_bitcast_copy_fusion.1"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem: none)
define noalias noundef ptr @bitcast_copy_fusion.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  %.not = icmp sgt i64 %9, 1
  br i1 %.not, label %._crit_edge, label %bitcast_copy_fusion.1_impl.exit.preheader

bitcast_copy_fusion.1_impl.exit.preheader:        ; preds = %1
  %10 = tail call i64 @llvm.smax.i64(i64 %9, i64 0)
  %11 = shl i64 %10, 11
  %12 = tail call i64 @llvm.umin.i64(i64 %11, i64 2048)
  %13 = tail call i64 @llvm.umin.i64(i64 %11, i64 4096)
  %14 = or disjoint i64 %12, 2040
  br label %bitcast_copy_fusion.1_impl.exit

bitcast_copy_fusion.1_impl.exit:                  ; preds = %bitcast_copy_fusion.1_impl.exit, %bitcast_copy_fusion.1_impl.exit.preheader
  %15 = phi i64 [ %13, %bitcast_copy_fusion.1_impl.exit.preheader ], [ %71, %bitcast_copy_fusion.1_impl.exit ]
  %16 = shl nuw nsw i64 %15, 4
  %17 = and i64 %16, 1920
  %18 = shl nuw nsw i64 %15, 6
  %.idx3 = and i64 %18, 9223372036854767616
  %19 = getelementptr i8, ptr %4, i64 %.idx3
  %20 = getelementptr [4 x i8], ptr %19, i64 %17
  %21 = getelementptr [4 x i8], ptr %6, i64 %16
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %21, ptr noundef nonnull align 1 dereferenceable(64) %20, i64 64, i1 false)
  %22 = shl i64 %15, 4
  %23 = or disjoint i64 %22, 16
  %24 = and i64 %23, 1936
  %25 = shl nuw nsw i64 %15, 6
  %.idx3.1 = and i64 %25, 9223372036854767616
  %26 = getelementptr i8, ptr %4, i64 %.idx3.1
  %27 = getelementptr [4 x i8], ptr %26, i64 %24
  %28 = getelementptr [4 x i8], ptr %6, i64 %23
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %28, ptr noundef nonnull align 1 dereferenceable(64) %27, i64 64, i1 false)
  %29 = shl i64 %15, 4
  %30 = or disjoint i64 %29, 32
  %31 = and i64 %30, 1952
  %32 = shl nuw nsw i64 %15, 6
  %.idx3.2 = and i64 %32, 9223372036854767616
  %33 = getelementptr i8, ptr %4, i64 %.idx3.2
  %34 = getelementptr [4 x i8], ptr %33, i64 %31
  %35 = getelementptr [4 x i8], ptr %6, i64 %30
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %35, ptr noundef nonnull align 1 dereferenceable(64) %34, i64 64, i1 false)
  %36 = shl i64 %15, 4
  %37 = or disjoint i64 %36, 48
  %38 = and i64 %37, 1968
  %39 = shl nuw nsw i64 %15, 6
  %.idx3.3 = and i64 %39, 9223372036854767616
  %40 = getelementptr i8, ptr %4, i64 %.idx3.3
  %41 = getelementptr [4 x i8], ptr %40, i64 %38
  %42 = getelementptr [4 x i8], ptr %6, i64 %37
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %42, ptr noundef nonnull align 1 dereferenceable(64) %41, i64 64, i1 false)
  %43 = shl i64 %15, 4
  %44 = or disjoint i64 %43, 64
  %45 = and i64 %44, 1984
  %46 = shl nuw nsw i64 %15, 6
  %.idx3.4 = and i64 %46, 9223372036854767616
  %47 = getelementptr i8, ptr %4, i64 %.idx3.4
  %48 = getelementptr [4 x i8], ptr %47, i64 %45
  %49 = getelementptr [4 x i8], ptr %6, i64 %44
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %49, ptr noundef nonnull align 1 dereferenceable(64) %48, i64 64, i1 false)
  %50 = shl i64 %15, 4
  %51 = or disjoint i64 %50, 80
  %52 = and i64 %51, 2000
  %53 = shl nuw nsw i64 %15, 6
  %.idx3.5 = and i64 %53, 9223372036854767616
  %54 = getelementptr i8, ptr %4, i64 %.idx3.5
  %55 = getelementptr [4 x i8], ptr %54, i64 %52
  %56 = getelementptr [4 x i8], ptr %6, i64 %51
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %56, ptr noundef nonnull align 1 dereferenceable(64) %55, i64 64, i1 false)
  %57 = shl i64 %15, 4
  %58 = or disjoint i64 %57, 96
  %59 = and i64 %58, 2016
  %60 = shl nuw nsw i64 %15, 6
  %.idx3.6 = and i64 %60, 9223372036854767616
  %61 = getelementptr i8, ptr %4, i64 %.idx3.6
  %62 = getelementptr [4 x i8], ptr %61, i64 %59
  %63 = getelementptr [4 x i8], ptr %6, i64 %58
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %63, ptr noundef nonnull align 1 dereferenceable(64) %62, i64 64, i1 false)
  %64 = shl i64 %15, 4
  %65 = or disjoint i64 %64, 112
  %66 = and i64 %65, 2032
  %67 = shl nuw nsw i64 %15, 6
  %.idx3.7 = and i64 %67, 9223372036854767616
  %68 = getelementptr i8, ptr %4, i64 %.idx3.7
  %69 = getelementptr [4 x i8], ptr %68, i64 %66
  %70 = getelementptr [4 x i8], ptr %6, i64 %65
  tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %70, ptr noundef nonnull align 1 dereferenceable(64) %69, i64 64, i1 false)
  %71 = add nuw nsw i64 %15, 8
  %exitcond.not.7 = icmp eq i64 %15, %14
  br i1 %exitcond.not.7, label %._crit_edge, label %bitcast_copy_fusion.1_impl.exit

._crit_edge:                                      ; preds = %bitcast_copy_fusion.1_impl.exit, %1
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
!1 = !{i32 1, !"xla_dylib_index", i64 4}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
