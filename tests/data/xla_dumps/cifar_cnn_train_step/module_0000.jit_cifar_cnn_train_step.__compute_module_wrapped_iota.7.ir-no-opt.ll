; ModuleID = '__compute_module___compute_module_wrapped_iota.7'
source_filename = "__compute_module___compute_module_wrapped_iota.7"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

@__constant_16xi32 = private constant [16 x i32] [i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15], align 64

define ptr @wrapped_iota.7(ptr %0) {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3
  %6 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %7 = load ptr, ptr %6, align 8
  %8 = getelementptr inbounds %kernel_dim3, ptr %7, i32 0, i32 0
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  %10 = call i64 @llvm.smax.i64(i64 %9, i64 0)
  %11 = mul nuw nsw i64 %10, 8192
  %12 = call i64 @llvm.smin.i64(i64 %11, i64 16384)
  %13 = add nuw nsw i64 %11, 8192
  %14 = call i64 @llvm.smin.i64(i64 %13, i64 16384)
  br label %15

15:                                               ; preds = %18, %1
  %16 = phi i64 [ %19, %18 ], [ %12, %1 ]
  %17 = icmp slt i64 %16, %14
  br i1 %17, label %18, label %20

18:                                               ; preds = %15
  call void @wrapped_iota.7_impl(ptr %5, ptr %5, i64 0, i64 32, i64 16, i64 16, i64 32, i64 8192, i64 512, i64 32, i64 1, i64 %16)
  %19 = add i64 %16, 1
  br label %15

20:                                               ; preds = %15
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @wrapped_iota.7_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, i64 %10, i64 %11) #0 {
  %13 = urem i64 %11, 2
  %14 = mul nsw i64 %13, 16
  %15 = trunc i64 %14 to i32
  %16 = alloca i32, i64 1, align 64
  store i32 %15, ptr %16, align 4
  %17 = load <1 x i32>, ptr %16, align 4
  %18 = extractelement <1 x i32> %17, i64 0
  %19 = insertelement <16 x i32> poison, i32 %18, i32 0
  %20 = shufflevector <16 x i32> %19, <16 x i32> poison, <16 x i32> zeroinitializer
  %21 = alloca i32, i64 16, align 64
  store <16 x i32> %20, ptr %21, align 4
  %22 = alloca i32, i64 16, align 64
  br label %23

23:                                               ; preds = %26, %12
  %24 = phi i64 [ %33, %26 ], [ 0, %12 ]
  %25 = icmp slt i64 %24, 16
  br i1 %25, label %26, label %34

26:                                               ; preds = %23
  %27 = getelementptr i32, ptr %21, i64 %24
  %28 = load <8 x i32>, ptr %27, align 4
  %29 = getelementptr i32, ptr @__constant_16xi32, i64 %24
  %30 = load <8 x i32>, ptr %29, align 4
  %31 = add <8 x i32> %28, %30
  %32 = getelementptr i32, ptr %22, i64 %24
  store <8 x i32> %31, ptr %32, align 4
  %33 = add i64 %24, 8
  br label %23

34:                                               ; preds = %23
  %35 = udiv i64 %11, 512
  %36 = udiv i64 %11, 32
  %37 = urem i64 %36, 16
  %38 = udiv i64 %11, 2
  %39 = urem i64 %38, 16
  %40 = sub i64 32, %35
  %41 = call i64 @llvm.smin.i64(i64 %40, i64 1)
  %42 = sub i64 16, %37
  %43 = call i64 @llvm.smin.i64(i64 %42, i64 1)
  %44 = sub i64 16, %39
  %45 = call i64 @llvm.smin.i64(i64 %44, i64 1)
  %46 = sub i64 32, %14
  %47 = call i64 @llvm.smin.i64(i64 %46, i64 16)
  %48 = icmp eq i64 %41, 1
  %49 = icmp eq i64 %43, 1
  %50 = and i1 %48, %49
  %51 = icmp eq i64 %45, 1
  %52 = and i1 %50, %51
  %53 = icmp eq i64 %47, 16
  %54 = and i1 %52, %53
  br i1 %54, label %55, label %63

55:                                               ; preds = %34
  %56 = mul nsw i64 %35, 8192
  %57 = mul nsw i64 %37, 512
  %58 = add nsw i64 %56, %57
  %59 = mul nsw i64 %39, 32
  %60 = add nsw i64 %58, %59
  %61 = add nsw i64 %60, %14
  %62 = getelementptr i32, ptr %1, i64 %61
  call void @llvm.memcpy.p0.p0.i64(ptr %62, ptr %22, i64 64, i1 false)
  br label %110

63:                                               ; preds = %34
  %64 = mul nsw i64 %35, 8192
  %65 = mul nsw i64 %37, 512
  %66 = add nsw i64 %64, %65
  %67 = mul nsw i64 %39, 32
  %68 = add nsw i64 %66, %67
  %69 = add nsw i64 %68, %14
  br label %70

70:                                               ; preds = %107, %63
  %71 = phi i64 [ %108, %107 ], [ 0, %63 ]
  %72 = icmp slt i64 %71, %41
  br i1 %72, label %73, label %109

73:                                               ; preds = %70
  br label %74

74:                                               ; preds = %105, %73
  %75 = phi i64 [ %106, %105 ], [ 0, %73 ]
  %76 = icmp slt i64 %75, %43
  br i1 %76, label %77, label %107

77:                                               ; preds = %74
  br label %78

78:                                               ; preds = %103, %77
  %79 = phi i64 [ %104, %103 ], [ 0, %77 ]
  %80 = icmp slt i64 %79, %45
  br i1 %80, label %81, label %105

81:                                               ; preds = %78
  br label %82

82:                                               ; preds = %85, %81
  %83 = phi i64 [ %102, %85 ], [ 0, %81 ]
  %84 = icmp slt i64 %83, %47
  br i1 %84, label %85, label %103

85:                                               ; preds = %82
  %86 = mul nuw nsw i64 %71, 16
  %87 = mul nuw nsw i64 %75, 16
  %88 = add nuw nsw i64 %86, %87
  %89 = mul nuw nsw i64 %79, 16
  %90 = add nuw nsw i64 %88, %89
  %91 = add nuw nsw i64 %90, %83
  %92 = getelementptr inbounds nuw i32, ptr %22, i64 %91
  %93 = load i32, ptr %92, align 4
  %94 = getelementptr i32, ptr %1, i64 %69
  %95 = mul nuw nsw i64 %71, 8192
  %96 = mul nuw nsw i64 %75, 512
  %97 = add nuw nsw i64 %95, %96
  %98 = mul nuw nsw i64 %79, 32
  %99 = add nuw nsw i64 %97, %98
  %100 = add nuw nsw i64 %99, %83
  %101 = getelementptr inbounds nuw i32, ptr %94, i64 %100
  store i32 %93, ptr %101, align 4
  %102 = add i64 %83, 1
  br label %82

103:                                              ; preds = %82
  %104 = add i64 %79, 1
  br label %78

105:                                              ; preds = %78
  %106 = add i64 %75, 1
  br label %74

107:                                              ; preds = %74
  %108 = add i64 %71, 1
  br label %70

109:                                              ; preds = %70
  br label %110

110:                                              ; preds = %55, %109
  ret void
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smin.i64(i64, i64) #1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #2

attributes #0 = { alwaysinline }
attributes #1 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 3}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
