; ModuleID = '__compute_module___compute_module_transpose_copy_fusion.4'
source_filename = "__compute_module___compute_module_transpose_copy_fusion.4"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind
define noalias noundef ptr @transpose_copy_fusion.4(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  %.not = icmp sgt i64 %9, 1
  br i1 %.not, label %._crit_edge, label %.lr.ph.preheader

.lr.ph.preheader:                                 ; preds = %1
  %10 = tail call i64 @llvm.smax.i64(i64 %9, i64 0)
  %11 = shl i64 %10, 10
  %12 = tail call i64 @llvm.umin.i64(i64 %11, i64 1024)
  %13 = tail call i64 @llvm.umin.i64(i64 %11, i64 2048)
  %14 = or disjoint i64 %12, 1023
  br label %.lr.ph

.lr.ph:                                           ; preds = %.lr.ph.preheader, %.lr.ph
  %15 = phi i64 [ %101, %.lr.ph ], [ %13, %.lr.ph.preheader ]
  %16 = lshr i64 %15, 6
  %17 = shl nuw nsw i64 %16, 12
  %18 = lshr i64 %15, 1
  %19 = and i64 %18, 31
  %20 = shl nuw nsw i64 %19, 7
  %21 = or disjoint i64 %17, %20
  %22 = and i64 %15, 1
  %23 = shl nuw nsw i64 %22, 6
  %24 = or disjoint i64 %21, %23
  %25 = mul nuw nsw i64 %22, 196608
  %26 = mul nuw nsw i64 %16, 384
  %27 = add nuw i64 %25, %26
  %28 = mul nuw nsw i64 %19, 12
  %29 = add nuw i64 %27, %28
  %savedstack = tail call ptr @llvm.stacksave.p0()
  %scevgep28 = getelementptr nuw i8, ptr %4, i64 %29
  %.sroa.0.0.copyload = load float, ptr %scevgep28, align 4
  %.sroa.4.0.scevgep28.sroa_idx = getelementptr inbounds nuw i8, ptr %scevgep28, i64 4
  %.sroa.4.0.copyload = load float, ptr %.sroa.4.0.scevgep28.sroa_idx, align 4
  %.sroa.5.0.scevgep28.sroa_idx = getelementptr inbounds nuw i8, ptr %scevgep28, i64 8
  %.sroa.5.0.copyload = load float, ptr %.sroa.5.0.scevgep28.sroa_idx, align 4
  %30 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.1 = getelementptr nuw i8, ptr %30, i64 12288
  %.sroa.7.16.copyload = load float, ptr %scevgep28.1, align 4
  %.sroa.9.16.scevgep28.1.sroa_idx = getelementptr nuw i8, ptr %30, i64 12292
  %.sroa.9.16.copyload = load float, ptr %.sroa.9.16.scevgep28.1.sroa_idx, align 4
  %.sroa.10.16.scevgep28.1.sroa_idx = getelementptr nuw i8, ptr %30, i64 12296
  %.sroa.10.16.copyload = load float, ptr %.sroa.10.16.scevgep28.1.sroa_idx, align 4
  %31 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.2 = getelementptr nuw i8, ptr %31, i64 24576
  %.sroa.12.32.copyload = load float, ptr %scevgep28.2, align 4
  %.sroa.14.32.scevgep28.2.sroa_idx = getelementptr nuw i8, ptr %31, i64 24580
  %.sroa.14.32.copyload = load float, ptr %.sroa.14.32.scevgep28.2.sroa_idx, align 4
  %.sroa.15.32.scevgep28.2.sroa_idx = getelementptr nuw i8, ptr %31, i64 24584
  %.sroa.15.32.copyload = load float, ptr %.sroa.15.32.scevgep28.2.sroa_idx, align 4
  %32 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.3 = getelementptr nuw i8, ptr %32, i64 36864
  %.sroa.17.48.copyload = load float, ptr %scevgep28.3, align 4
  %.sroa.19.48.scevgep28.3.sroa_idx = getelementptr nuw i8, ptr %32, i64 36868
  %.sroa.19.48.copyload = load float, ptr %.sroa.19.48.scevgep28.3.sroa_idx, align 4
  %.sroa.20.48.scevgep28.3.sroa_idx = getelementptr nuw i8, ptr %32, i64 36872
  %.sroa.20.48.copyload = load float, ptr %.sroa.20.48.scevgep28.3.sroa_idx, align 4
  %33 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.4 = getelementptr nuw i8, ptr %33, i64 49152
  %.sroa.22.64.copyload = load float, ptr %scevgep28.4, align 4
  %.sroa.24.64.scevgep28.4.sroa_idx = getelementptr nuw i8, ptr %33, i64 49156
  %.sroa.24.64.copyload = load float, ptr %.sroa.24.64.scevgep28.4.sroa_idx, align 4
  %.sroa.25.64.scevgep28.4.sroa_idx = getelementptr nuw i8, ptr %33, i64 49160
  %.sroa.25.64.copyload = load float, ptr %.sroa.25.64.scevgep28.4.sroa_idx, align 4
  %34 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.5 = getelementptr nuw i8, ptr %34, i64 61440
  %.sroa.27.80.copyload = load float, ptr %scevgep28.5, align 4
  %.sroa.29.80.scevgep28.5.sroa_idx = getelementptr nuw i8, ptr %34, i64 61444
  %.sroa.29.80.copyload = load float, ptr %.sroa.29.80.scevgep28.5.sroa_idx, align 4
  %.sroa.30.80.scevgep28.5.sroa_idx = getelementptr nuw i8, ptr %34, i64 61448
  %.sroa.30.80.copyload = load float, ptr %.sroa.30.80.scevgep28.5.sroa_idx, align 4
  %35 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.6 = getelementptr nuw i8, ptr %35, i64 73728
  %.sroa.32.96.copyload = load float, ptr %scevgep28.6, align 4
  %.sroa.34.96.scevgep28.6.sroa_idx = getelementptr nuw i8, ptr %35, i64 73732
  %.sroa.34.96.copyload = load float, ptr %.sroa.34.96.scevgep28.6.sroa_idx, align 4
  %.sroa.35.96.scevgep28.6.sroa_idx = getelementptr nuw i8, ptr %35, i64 73736
  %.sroa.35.96.copyload = load float, ptr %.sroa.35.96.scevgep28.6.sroa_idx, align 4
  %36 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.7 = getelementptr nuw i8, ptr %36, i64 86016
  %.sroa.37.112.copyload = load float, ptr %scevgep28.7, align 4
  %.sroa.39.112.scevgep28.7.sroa_idx = getelementptr nuw i8, ptr %36, i64 86020
  %.sroa.39.112.copyload = load float, ptr %.sroa.39.112.scevgep28.7.sroa_idx, align 4
  %.sroa.40.112.scevgep28.7.sroa_idx = getelementptr nuw i8, ptr %36, i64 86024
  %.sroa.40.112.copyload = load float, ptr %.sroa.40.112.scevgep28.7.sroa_idx, align 4
  %37 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.8 = getelementptr nuw i8, ptr %37, i64 98304
  %.sroa.42.128.copyload = load float, ptr %scevgep28.8, align 4
  %.sroa.44.128.scevgep28.8.sroa_idx = getelementptr nuw i8, ptr %37, i64 98308
  %.sroa.44.128.copyload = load float, ptr %.sroa.44.128.scevgep28.8.sroa_idx, align 4
  %.sroa.45.128.scevgep28.8.sroa_idx = getelementptr nuw i8, ptr %37, i64 98312
  %.sroa.45.128.copyload = load float, ptr %.sroa.45.128.scevgep28.8.sroa_idx, align 4
  %38 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.9 = getelementptr nuw i8, ptr %38, i64 110592
  %.sroa.47.144.copyload = load float, ptr %scevgep28.9, align 4
  %.sroa.49.144.scevgep28.9.sroa_idx = getelementptr nuw i8, ptr %38, i64 110596
  %.sroa.49.144.copyload = load float, ptr %.sroa.49.144.scevgep28.9.sroa_idx, align 4
  %.sroa.50.144.scevgep28.9.sroa_idx = getelementptr nuw i8, ptr %38, i64 110600
  %.sroa.50.144.copyload = load float, ptr %.sroa.50.144.scevgep28.9.sroa_idx, align 4
  %39 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.10 = getelementptr nuw i8, ptr %39, i64 122880
  %.sroa.52.160.copyload = load float, ptr %scevgep28.10, align 4
  %.sroa.54.160.scevgep28.10.sroa_idx = getelementptr nuw i8, ptr %39, i64 122884
  %.sroa.54.160.copyload = load float, ptr %.sroa.54.160.scevgep28.10.sroa_idx, align 4
  %.sroa.55.160.scevgep28.10.sroa_idx = getelementptr nuw i8, ptr %39, i64 122888
  %.sroa.55.160.copyload = load float, ptr %.sroa.55.160.scevgep28.10.sroa_idx, align 4
  %40 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.11 = getelementptr nuw i8, ptr %40, i64 135168
  %.sroa.57.176.copyload = load float, ptr %scevgep28.11, align 4
  %.sroa.59.176.scevgep28.11.sroa_idx = getelementptr nuw i8, ptr %40, i64 135172
  %.sroa.59.176.copyload = load float, ptr %.sroa.59.176.scevgep28.11.sroa_idx, align 4
  %.sroa.60.176.scevgep28.11.sroa_idx = getelementptr nuw i8, ptr %40, i64 135176
  %.sroa.60.176.copyload = load float, ptr %.sroa.60.176.scevgep28.11.sroa_idx, align 4
  %41 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.12 = getelementptr nuw i8, ptr %41, i64 147456
  %.sroa.62.192.copyload = load float, ptr %scevgep28.12, align 4
  %.sroa.64.192.scevgep28.12.sroa_idx = getelementptr nuw i8, ptr %41, i64 147460
  %.sroa.64.192.copyload = load float, ptr %.sroa.64.192.scevgep28.12.sroa_idx, align 4
  %.sroa.65.192.scevgep28.12.sroa_idx = getelementptr nuw i8, ptr %41, i64 147464
  %.sroa.65.192.copyload = load float, ptr %.sroa.65.192.scevgep28.12.sroa_idx, align 4
  %42 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.13 = getelementptr nuw i8, ptr %42, i64 159744
  %.sroa.67.208.copyload = load float, ptr %scevgep28.13, align 4
  %.sroa.69.208.scevgep28.13.sroa_idx = getelementptr nuw i8, ptr %42, i64 159748
  %.sroa.69.208.copyload = load float, ptr %.sroa.69.208.scevgep28.13.sroa_idx, align 4
  %.sroa.70.208.scevgep28.13.sroa_idx = getelementptr nuw i8, ptr %42, i64 159752
  %.sroa.70.208.copyload = load float, ptr %.sroa.70.208.scevgep28.13.sroa_idx, align 4
  %43 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.14 = getelementptr nuw i8, ptr %43, i64 172032
  %.sroa.72.224.copyload = load float, ptr %scevgep28.14, align 4
  %.sroa.74.224.scevgep28.14.sroa_idx = getelementptr nuw i8, ptr %43, i64 172036
  %.sroa.74.224.copyload = load float, ptr %.sroa.74.224.scevgep28.14.sroa_idx, align 4
  %.sroa.75.224.scevgep28.14.sroa_idx = getelementptr nuw i8, ptr %43, i64 172040
  %.sroa.75.224.copyload = load float, ptr %.sroa.75.224.scevgep28.14.sroa_idx, align 4
  %44 = getelementptr nuw i8, ptr %4, i64 %29
  %scevgep28.15 = getelementptr nuw i8, ptr %44, i64 184320
  %.sroa.77.240.copyload = load float, ptr %scevgep28.15, align 4
  %.sroa.79.240.scevgep28.15.sroa_idx = getelementptr nuw i8, ptr %44, i64 184324
  %.sroa.79.240.copyload = load float, ptr %.sroa.79.240.scevgep28.15.sroa_idx, align 4
  %.sroa.80.240.scevgep28.15.sroa_idx = getelementptr nuw i8, ptr %44, i64 184328
  %.sroa.80.240.copyload = load float, ptr %.sroa.80.240.scevgep28.15.sroa_idx, align 4
  %45 = alloca [64 x float], align 64
  %46 = insertelement <8 x float> poison, float %.sroa.0.0.copyload, i64 0
  %47 = insertelement <8 x float> %46, float %.sroa.7.16.copyload, i64 1
  %48 = insertelement <8 x float> %47, float %.sroa.12.32.copyload, i64 2
  %49 = insertelement <8 x float> %48, float %.sroa.17.48.copyload, i64 3
  %50 = insertelement <8 x float> %49, float %.sroa.22.64.copyload, i64 4
  %51 = insertelement <8 x float> %50, float %.sroa.27.80.copyload, i64 5
  %52 = insertelement <8 x float> %51, float %.sroa.32.96.copyload, i64 6
  %53 = insertelement <8 x float> %52, float %.sroa.37.112.copyload, i64 7
  store <8 x float> %53, ptr %45, align 64
  %54 = insertelement <8 x float> poison, float %.sroa.42.128.copyload, i64 0
  %55 = insertelement <8 x float> %54, float %.sroa.47.144.copyload, i64 1
  %56 = insertelement <8 x float> %55, float %.sroa.52.160.copyload, i64 2
  %57 = insertelement <8 x float> %56, float %.sroa.57.176.copyload, i64 3
  %58 = insertelement <8 x float> %57, float %.sroa.62.192.copyload, i64 4
  %59 = insertelement <8 x float> %58, float %.sroa.67.208.copyload, i64 5
  %60 = insertelement <8 x float> %59, float %.sroa.72.224.copyload, i64 6
  %61 = insertelement <8 x float> %60, float %.sroa.77.240.copyload, i64 7
  %62 = getelementptr inbounds nuw i8, ptr %45, i64 32
  store <8 x float> %61, ptr %62, align 32
  %63 = getelementptr inbounds nuw i8, ptr %45, i64 64
  %64 = insertelement <8 x float> poison, float %.sroa.4.0.copyload, i64 0
  %65 = insertelement <8 x float> %64, float %.sroa.9.16.copyload, i64 1
  %66 = insertelement <8 x float> %65, float %.sroa.14.32.copyload, i64 2
  %67 = insertelement <8 x float> %66, float %.sroa.19.48.copyload, i64 3
  %68 = insertelement <8 x float> %67, float %.sroa.24.64.copyload, i64 4
  %69 = insertelement <8 x float> %68, float %.sroa.29.80.copyload, i64 5
  %70 = insertelement <8 x float> %69, float %.sroa.34.96.copyload, i64 6
  %71 = insertelement <8 x float> %70, float %.sroa.39.112.copyload, i64 7
  store <8 x float> %71, ptr %63, align 64
  %72 = insertelement <8 x float> poison, float %.sroa.44.128.copyload, i64 0
  %73 = insertelement <8 x float> %72, float %.sroa.49.144.copyload, i64 1
  %74 = insertelement <8 x float> %73, float %.sroa.54.160.copyload, i64 2
  %75 = insertelement <8 x float> %74, float %.sroa.59.176.copyload, i64 3
  %76 = insertelement <8 x float> %75, float %.sroa.64.192.copyload, i64 4
  %77 = insertelement <8 x float> %76, float %.sroa.69.208.copyload, i64 5
  %78 = insertelement <8 x float> %77, float %.sroa.74.224.copyload, i64 6
  %79 = insertelement <8 x float> %78, float %.sroa.79.240.copyload, i64 7
  %80 = getelementptr inbounds nuw i8, ptr %45, i64 96
  store <8 x float> %79, ptr %80, align 32
  %81 = getelementptr inbounds nuw i8, ptr %45, i64 128
  %82 = insertelement <8 x float> poison, float %.sroa.5.0.copyload, i64 0
  %83 = insertelement <8 x float> %82, float %.sroa.10.16.copyload, i64 1
  %84 = insertelement <8 x float> %83, float %.sroa.15.32.copyload, i64 2
  %85 = insertelement <8 x float> %84, float %.sroa.20.48.copyload, i64 3
  %86 = insertelement <8 x float> %85, float %.sroa.25.64.copyload, i64 4
  %87 = insertelement <8 x float> %86, float %.sroa.30.80.copyload, i64 5
  %88 = insertelement <8 x float> %87, float %.sroa.35.96.copyload, i64 6
  %89 = insertelement <8 x float> %88, float %.sroa.40.112.copyload, i64 7
  store <8 x float> %89, ptr %81, align 64
  %90 = insertelement <8 x float> poison, float %.sroa.45.128.copyload, i64 0
  %91 = insertelement <8 x float> %90, float %.sroa.50.144.copyload, i64 1
  %92 = insertelement <8 x float> %91, float %.sroa.55.160.copyload, i64 2
  %93 = insertelement <8 x float> %92, float %.sroa.60.176.copyload, i64 3
  %94 = insertelement <8 x float> %93, float %.sroa.65.192.copyload, i64 4
  %95 = insertelement <8 x float> %94, float %.sroa.70.208.copyload, i64 5
  %96 = insertelement <8 x float> %95, float %.sroa.75.224.copyload, i64 6
  %97 = insertelement <8 x float> %96, float %.sroa.80.240.copyload, i64 7
  %98 = getelementptr inbounds nuw i8, ptr %45, i64 160
  store <8 x float> %97, ptr %98, align 32
  %scevgep = getelementptr nuw i8, ptr %6, i64 %24
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep, ptr noundef nonnull align 64 dereferenceable(64) %45, i64 64, i1 false)
  %99 = getelementptr nuw i8, ptr %6, i64 %24
  %scevgep.140 = getelementptr nuw i8, ptr %99, i64 131072
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.140, ptr noundef nonnull align 64 dereferenceable(64) %63, i64 64, i1 false)
  %100 = getelementptr nuw i8, ptr %6, i64 %24
  %scevgep.241 = getelementptr nuw i8, ptr %100, i64 262144
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.241, ptr noundef nonnull align 64 dereferenceable(64) %81, i64 64, i1 false)
  call void @llvm.stackrestore.p0(ptr %savedstack)
  %101 = add nuw nsw i64 %15, 1
  %exitcond.not = icmp eq i64 %15, %14
  br i1 %exitcond.not, label %._crit_edge, label %.lr.ph

._crit_edge:                                      ; preds = %.lr.ph, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare ptr @llvm.stacksave.p0() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare void @llvm.stackrestore.p0(ptr) #2

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #3

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #4

attributes #0 = { nofree norecurse nosync nounwind }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn }
attributes #3 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 25}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
