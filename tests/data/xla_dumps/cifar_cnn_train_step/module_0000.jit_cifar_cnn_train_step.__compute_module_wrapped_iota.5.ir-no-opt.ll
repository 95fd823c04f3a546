; ModuleID = '__compute_module___compute_module_wrapped_iota.5'
source_filename = "__compute_module___compute_module_wrapped_iota.5"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

define ptr @wrapped_iota.5(ptr %0) {
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
  call void @wrapped_iota.5_impl(ptr %5, ptr %5, i64 0, i64 32, i64 16, i64 16, i64 32, i64 8192, i64 512, i64 32, i64 1, i64 %16)
  %19 = add i64 %16, 1
  br label %15

20:                                               ; preds = %15
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @wrapped_iota.5_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, i64 %10, i64 %11) #0 {
  %13 = udiv i64 %11, 32
  %14 = urem i64 %13, 16
  %15 = trunc i64 %14 to i32
  %16 = alloca i32, i64 1, align 64
  store i32 %15, ptr %16, align 4
  %17 = load <1 x i32>, ptr %16, align 4
  %18 = alloca i32, i64 16, align 64
  %19 = extractelement <1 x i32> %17, i64 0
  %20 = insertelement <16 x i32> poison, i32 %19, i32 0
  %21 = shufflevector <16 x i32> %20, <16 x i32> poison, <16 x i32> zeroinitializer
  %22 = getelementptr i32, ptr %18, i64 0
  store <16 x i32> %21, ptr %22, align 4
  %23 = udiv i64 %11, 512
  %24 = udiv i64 %11, 2
  %25 = urem i64 %24, 16
  %26 = urem i64 %11, 2
  %27 = mul nsw i64 %26, 16
  %28 = sub i64 32, %23
  %29 = call i64 @llvm.smin.i64(i64 %28, i64 1)
  %30 = sub i64 16, %14
  %31 = call i64 @llvm.smin.i64(i64 %30, i64 1)
  %32 = sub i64 16, %25
  %33 = call i64 @llvm.smin.i64(i64 %32, i64 1)
  %34 = sub i64 32, %27
  %35 = call i64 @llvm.smin.i64(i64 %34, i64 16)
  %36 = icmp eq i64 %29, 1
  %37 = icmp eq i64 %31, 1
  %38 = and i1 %36, %37
  %39 = icmp eq i64 %33, 1
  %40 = and i1 %38, %39
  %41 = icmp eq i64 %35, 16
  %42 = and i1 %40, %41
  br i1 %42, label %43, label %51

43:                                               ; preds = %12
  %44 = mul nsw i64 %23, 8192
  %45 = mul nsw i64 %14, 512
  %46 = add nsw i64 %44, %45
  %47 = mul nsw i64 %25, 32
  %48 = add nsw i64 %46, %47
  %49 = add nsw i64 %48, %27
  %50 = getelementptr i32, ptr %1, i64 %49
  call void @llvm.memcpy.p0.p0.i64(ptr %50, ptr %18, i64 64, i1 false)
  br label %98

51:                                               ; preds = %12
  %52 = mul nsw i64 %23, 8192
  %53 = mul nsw i64 %14, 512
  %54 = add nsw i64 %52, %53
  %55 = mul nsw i64 %25, 32
  %56 = add nsw i64 %54, %55
  %57 = add nsw i64 %56, %27
  br label %58

58:                                               ; preds = %95, %51
  %59 = phi i64 [ %96, %95 ], [ 0, %51 ]
  %60 = icmp slt i64 %59, %29
  br i1 %60, label %61, label %97

61:                                               ; preds = %58
  br label %62

62:                                               ; preds = %93, %61
  %63 = phi i64 [ %94, %93 ], [ 0, %61 ]
  %64 = icmp slt i64 %63, %31
  br i1 %64, label %65, label %95

65:                                               ; preds = %62
  br label %66

66:                                               ; preds = %91, %65
  %67 = phi i64 [ %92, %91 ], [ 0, %65 ]
  %68 = icmp slt i64 %67, %33
  br i1 %68, label %69, label %93

69:                                               ; preds = %66
  br label %70

70:                                               ; preds = %73, %69
  %71 = phi i64 [ %90, %73 ], [ 0, %69 ]
  %72 = icmp slt i64 %71, %35
  br i1 %72, label %73, label %91

73:                                               ; preds = %70
  %74 = mul nuw nsw i64 %59, 16
  %75 = mul nuw nsw i64 %63, 16
  %76 = add nuw nsw i64 %74, %75
  %77 = mul nuw nsw i64 %67, 16
  %78 = add nuw nsw i64 %76, %77
  %79 = add nuw nsw i64 %78, %71
  %80 = getelementptr inbounds nuw i32, ptr %18, i64 %79
  %81 = load i32, ptr %80, align 4
  %82 = getelementptr i32, ptr %1, i64 %57
  %83 = mul nuw nsw i64 %59, 8192
  %84 = mul nuw nsw i64 %63, 512
  %85 = add nuw nsw i64 %83, %84
  %86 = mul nuw nsw i64 %67, 32
  %87 = add nuw nsw i64 %85, %86
  %88 = add nuw nsw i64 %87, %71
  %89 = getelementptr inbounds nuw i32, ptr %82, i64 %88
  store i32 %81, ptr %89, align 4
  %90 = add i64 %71, 1
  br label %70

91:                                               ; preds = %70
  %92 = add i64 %67, 1
  br label %66

93:                                               ; preds = %66
  %94 = add i64 %63, 1
  br label %62

95:                                               ; preds = %62
  %96 = add i64 %59, 1
  br label %58

97:                                               ; preds = %58
  br label %98

98:                                               ; preds = %43, %97
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
!1 = !{i32 1, !"xla_dylib_index", i64 1}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
