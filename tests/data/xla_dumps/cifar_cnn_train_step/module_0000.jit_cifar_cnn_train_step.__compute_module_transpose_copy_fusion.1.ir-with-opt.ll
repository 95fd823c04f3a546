; ModuleID = '__compute_module___compute_module_transpose_copy_fusion.1'
source_filename = "__compute_module___compute_module_transpose_copy_fusion.1"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind
define noalias noundef ptr @transpose_copy_fusion.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = alloca [256 x float], align 4
  %3 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = load ptr, ptr %4, align 8, !invariant.load !3
  %6 = getelementptr inbounds nuw i8, ptr %4, i64 16
  %7 = load ptr, ptr %6, align 8, !invariant.load !3
  %8 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %9 = load ptr, ptr %8, align 8
  %10 = load i64, ptr %9, align 4, !invariant.load !3
  %.not = icmp sgt i64 %10, 1
  br i1 %.not, label %._crit_edge, label %.lr.ph.preheader

.lr.ph.preheader:                                 ; preds = %1
  %11 = tail call i64 @llvm.smax.i64(i64 %10, i64 0)
  %12 = shl i64 %11, 8
  %13 = tail call i64 @llvm.umin.i64(i64 %12, i64 256)
  %14 = tail call i64 @llvm.umin.i64(i64 %12, i64 512)
  %scevgep.1 = getelementptr inbounds nuw i8, ptr %2, i64 64
  %scevgep.2 = getelementptr inbounds nuw i8, ptr %2, i64 128
  %scevgep.3 = getelementptr inbounds nuw i8, ptr %2, i64 192
  %scevgep.4 = getelementptr inbounds nuw i8, ptr %2, i64 256
  %scevgep.5 = getelementptr inbounds nuw i8, ptr %2, i64 320
  %scevgep.6 = getelementptr inbounds nuw i8, ptr %2, i64 384
  %scevgep.7 = getelementptr inbounds nuw i8, ptr %2, i64 448
  %scevgep.8 = getelementptr inbounds nuw i8, ptr %2, i64 512
  %scevgep.9 = getelementptr inbounds nuw i8, ptr %2, i64 576
  %scevgep.10 = getelementptr inbounds nuw i8, ptr %2, i64 640
  %scevgep.11 = getelementptr inbounds nuw i8, ptr %2, i64 704
  %scevgep.12 = getelementptr inbounds nuw i8, ptr %2, i64 768
  %scevgep.13 = getelementptr inbounds nuw i8, ptr %2, i64 832
  %scevgep.14 = getelementptr inbounds nuw i8, ptr %2, i64 896
  %scevgep.15 = getelementptr inbounds nuw i8, ptr %2, i64 960
  %15 = or disjoint i64 %13, 255
  br label %.lr.ph

.lr.ph:                                           ; preds = %.lr.ph.preheader, %.preheader32
  %16 = phi i64 [ %62, %.preheader32 ], [ %14, %.lr.ph.preheader ]
  %17 = lshr i64 %16, 5
  %18 = shl nuw nsw i64 %17, 11
  %19 = lshr i64 %16, 1
  %20 = and i64 %19, 15
  %21 = shl nuw nsw i64 %20, 7
  %22 = or disjoint i64 %18, %21
  %23 = and i64 %16, 1
  %24 = shl nuw nsw i64 %23, 6
  %25 = or disjoint i64 %22, %24
  %26 = shl nuw nsw i64 %23, 18
  %27 = shl nuw nsw i64 %17, 10
  %28 = add nuw i64 %26, %27
  %29 = shl nuw nsw i64 %20, 6
  %30 = or disjoint i64 %28, %29
  %savedstack = tail call ptr @llvm.stacksave.p0()
  call void @llvm.lifetime.start.p0(ptr nonnull %2)
  %scevgep33 = getelementptr i8, ptr %5, i64 %30
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %2, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33, i64 64, i1 false)
  %31 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.1 = getelementptr i8, ptr %31, i64 16384
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.1, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.1, i64 64, i1 false)
  %32 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.2 = getelementptr i8, ptr %32, i64 32768
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.2, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.2, i64 64, i1 false)
  %33 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.3 = getelementptr i8, ptr %33, i64 49152
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.3, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.3, i64 64, i1 false)
  %34 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.4 = getelementptr i8, ptr %34, i64 65536
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.4, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.4, i64 64, i1 false)
  %35 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.5 = getelementptr i8, ptr %35, i64 81920
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.5, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.5, i64 64, i1 false)
  %36 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.6 = getelementptr i8, ptr %36, i64 98304
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.6, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.6, i64 64, i1 false)
  %37 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.7 = getelementptr i8, ptr %37, i64 114688
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.7, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.7, i64 64, i1 false)
  %38 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.8 = getelementptr i8, ptr %38, i64 131072
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.8, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.8, i64 64, i1 false)
  %39 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.9 = getelementptr i8, ptr %39, i64 147456
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.9, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.9, i64 64, i1 false)
  %40 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.10 = getelementptr i8, ptr %40, i64 163840
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.10, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.10, i64 64, i1 false)
  %41 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.11 = getelementptr i8, ptr %41, i64 180224
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.11, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.11, i64 64, i1 false)
  %42 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.12 = getelementptr i8, ptr %42, i64 196608
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.12, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.12, i64 64, i1 false)
  %43 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.13 = getelementptr i8, ptr %43, i64 212992
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.13, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.13, i64 64, i1 false)
  %44 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.14 = getelementptr i8, ptr %44, i64 229376
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.14, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.14, i64 64, i1 false)
  %45 = getelementptr i8, ptr %5, i64 %30
  %scevgep33.15 = getelementptr i8, ptr %45, i64 245760
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.15, ptr noundef nonnull align 4 dereferenceable(64) %scevgep33.15, i64 64, i1 false)
  %46 = alloca [256 x float], align 64
  br label %.preheader30

.preheader32:                                     ; preds = %.preheader30
  %scevgep = getelementptr i8, ptr %7, i64 %25
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep, ptr noundef nonnull align 64 dereferenceable(64) %46, i64 64, i1 false)
  %47 = getelementptr i8, ptr %7, i64 %25
  %scevgep.138 = getelementptr i8, ptr %47, i64 32768
  %scevgep36.1 = getelementptr inbounds nuw i8, ptr %46, i64 64
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.138, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.1, i64 64, i1 false)
  %48 = getelementptr i8, ptr %7, i64 %25
  %scevgep.239 = getelementptr i8, ptr %48, i64 65536
  %scevgep36.2 = getelementptr inbounds nuw i8, ptr %46, i64 128
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.239, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.2, i64 64, i1 false)
  %49 = getelementptr i8, ptr %7, i64 %25
  %scevgep.340 = getelementptr i8, ptr %49, i64 98304
  %scevgep36.3 = getelementptr inbounds nuw i8, ptr %46, i64 192
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.340, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.3, i64 64, i1 false)
  %50 = getelementptr i8, ptr %7, i64 %25
  %scevgep.441 = getelementptr i8, ptr %50, i64 131072
  %scevgep36.4 = getelementptr inbounds nuw i8, ptr %46, i64 256
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.441, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.4, i64 64, i1 false)
  %51 = getelementptr i8, ptr %7, i64 %25
  %scevgep.542 = getelementptr i8, ptr %51, i64 163840
  %scevgep36.5 = getelementptr inbounds nuw i8, ptr %46, i64 320
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.542, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.5, i64 64, i1 false)
  %52 = getelementptr i8, ptr %7, i64 %25
  %scevgep.643 = getelementptr i8, ptr %52, i64 196608
  %scevgep36.6 = getelementptr inbounds nuw i8, ptr %46, i64 384
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.643, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.6, i64 64, i1 false)
  %53 = getelementptr i8, ptr %7, i64 %25
  %scevgep.744 = getelementptr i8, ptr %53, i64 229376
  %scevgep36.7 = getelementptr inbounds nuw i8, ptr %46, i64 448
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.744, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.7, i64 64, i1 false)
  %54 = getelementptr i8, ptr %7, i64 %25
  %scevgep.845 = getelementptr i8, ptr %54, i64 262144
  %scevgep36.8 = getelementptr inbounds nuw i8, ptr %46, i64 512
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.845, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.8, i64 64, i1 false)
  %55 = getelementptr i8, ptr %7, i64 %25
  %scevgep.946 = getelementptr i8, ptr %55, i64 294912
  %scevgep36.9 = getelementptr inbounds nuw i8, ptr %46, i64 576
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.946, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.9, i64 64, i1 false)
  %56 = getelementptr i8, ptr %7, i64 %25
  %scevgep.1047 = getelementptr i8, ptr %56, i64 327680
  %scevgep36.10 = getelementptr inbounds nuw i8, ptr %46, i64 640
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.1047, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.10, i64 64, i1 false)
  %57 = getelementptr i8, ptr %7, i64 %25
  %scevgep.1148 = getelementptr i8, ptr %57, i64 360448
  %scevgep36.11 = getelementptr inbounds nuw i8, ptr %46, i64 704
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.1148, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.11, i64 64, i1 false)
  %58 = getelementptr i8, ptr %7, i64 %25
  %scevgep.1249 = getelementptr i8, ptr %58, i64 393216
  %scevgep36.12 = getelementptr inbounds nuw i8, ptr %46, i64 768
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.1249, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.12, i64 64, i1 false)
  %59 = getelementptr i8, ptr %7, i64 %25
  %scevgep.1350 = getelementptr i8, ptr %59, i64 425984
  %scevgep36.13 = getelementptr inbounds nuw i8, ptr %46, i64 832
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.1350, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.13, i64 64, i1 false)
  %60 = getelementptr i8, ptr %7, i64 %25
  %scevgep.1451 = getelementptr i8, ptr %60, i64 458752
  %scevgep36.14 = getelementptr inbounds nuw i8, ptr %46, i64 896
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.1451, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.14, i64 64, i1 false)
  %61 = getelementptr i8, ptr %7, i64 %25
  %scevgep.1552 = getelementptr i8, ptr %61, i64 491520
  %scevgep36.15 = getelementptr inbounds nuw i8, ptr %46, i64 960
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %scevgep.1552, ptr noundef nonnull align 64 dereferenceable(64) %scevgep36.15, i64 64, i1 false)
  call void @llvm.lifetime.end.p0(ptr nonnull %2)
  call void @llvm.stackrestore.p0(ptr %savedstack)
  %62 = add nuw nsw i64 %16, 1
  %exitcond54.not = icmp eq i64 %16, %15
  br i1 %exitcond54.not, label %._crit_edge, label %.lr.ph

.preheader30:                                     ; preds = %.lr.ph, %.preheader30
  %63 = phi i64 [ 0, %.lr.ph ], [ %98, %.preheader30 ]
  %invariant.gep = getelementptr [4 x i8], ptr %2, i64 %63
  %.idx17 = shl i64 %63, 6
  %64 = getelementptr i8, ptr %46, i64 %.idx17
  %65 = load float, ptr %invariant.gep, align 4
  %66 = insertelement <8 x float> poison, float %65, i64 0
  %gep.1 = getelementptr i8, ptr %invariant.gep, i64 64
  %67 = load float, ptr %gep.1, align 4
  %68 = insertelement <8 x float> %66, float %67, i64 1
  %gep.2 = getelementptr i8, ptr %invariant.gep, i64 128
  %69 = load float, ptr %gep.2, align 4
  %70 = insertelement <8 x float> %68, float %69, i64 2
  %gep.3 = getelementptr i8, ptr %invariant.gep, i64 192
  %71 = load float, ptr %gep.3, align 4
  %72 = insertelement <8 x float> %70, float %71, i64 3
  %gep.4 = getelementptr i8, ptr %invariant.gep, i64 256
  %73 = load float, ptr %gep.4, align 4
  %74 = insertelement <8 x float> %72, float %73, i64 4
  %gep.5 = getelementptr i8, ptr %invariant.gep, i64 320
  %75 = load float, ptr %gep.5, align 4
  %76 = insertelement <8 x float> %74, float %75, i64 5
  %gep.6 = getelementptr i8, ptr %invariant.gep, i64 384
  %77 = load float, ptr %gep.6, align 4
  %78 = insertelement <8 x float> %76, float %77, i64 6
  %gep.7 = getelementptr i8, ptr %invariant.gep, i64 448
  %79 = load float, ptr %gep.7, align 4
  %80 = insertelement <8 x float> %78, float %79, i64 7
  store <8 x float> %80, ptr %64, align 64
  %gep.135 = getelementptr i8, ptr %invariant.gep, i64 512
  %81 = load float, ptr %gep.135, align 4
  %82 = insertelement <8 x float> poison, float %81, i64 0
  %gep.1.1 = getelementptr i8, ptr %invariant.gep, i64 576
  %83 = load float, ptr %gep.1.1, align 4
  %84 = insertelement <8 x float> %82, float %83, i64 1
  %gep.2.1 = getelementptr i8, ptr %invariant.gep, i64 640
  %85 = load float, ptr %gep.2.1, align 4
  %86 = insertelement <8 x float> %84, float %85, i64 2
  %gep.3.1 = getelementptr i8, ptr %invariant.gep, i64 704
  %87 = load float, ptr %gep.3.1, align 4
  %88 = insertelement <8 x float> %86, float %87, i64 3
  %gep.4.1 = getelementptr i8, ptr %invariant.gep, i64 768
  %89 = load float, ptr %gep.4.1, align 4
  %90 = insertelement <8 x float> %88, float %89, i64 4
  %gep.5.1 = getelementptr i8, ptr %invariant.gep, i64 832
  %91 = load float, ptr %gep.5.1, align 4
  %92 = insertelement <8 x float> %90, float %91, i64 5
  %gep.6.1 = getelementptr i8, ptr %invariant.gep, i64 896
  %93 = load float, ptr %gep.6.1, align 4
  %94 = insertelement <8 x float> %92, float %93, i64 6
  %gep.7.1 = getelementptr i8, ptr %invariant.gep, i64 960
  %95 = load float, ptr %gep.7.1, align 4
  %96 = insertelement <8 x float> %94, float %95, i64 7
  %97 = getelementptr i8, ptr %64, i64 32
  store <8 x float> %96, ptr %97, align 32
  %98 = add nuw nsw i64 %63, 1
  %exitcond.not = icmp eq i64 %98, 16
  br i1 %exitcond.not, label %.preheader32, label %.preheader30

._crit_edge:                                      ; preds = %.preheader32, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(ptr captures(none)) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare ptr @llvm.stacksave.p0() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare void @llvm.stackrestore.p0(ptr) #3

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #4

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #5

attributes #0 = { nofree norecurse nosync nounwind }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #3 = { mustprogress nocallback nofree nosync nounwind willreturn }
attributes #4 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 22}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
