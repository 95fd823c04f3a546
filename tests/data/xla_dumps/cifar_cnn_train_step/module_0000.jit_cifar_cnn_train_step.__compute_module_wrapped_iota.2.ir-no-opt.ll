; ModuleID = '__compute_module___compute_module_wrapped_iota.2'
source_filename = "__compute_module___compute_module_wrapped_iota.2"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

define ptr @wrapped_iota.2(ptr %0) {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3
  %6 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %7 = load ptr, ptr %6, align 8
  %8 = getelementptr inbounds %kernel_dim3, ptr %7, i32 0, i32 0
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  %10 = call i64 @llvm.smax.i64(i64 %9, i64 0)
  %11 = mul nuw nsw i64 %10, 16384
  %12 = call i64 @llvm.smin.i64(i64 %11, i64 32768)
  %13 = add nuw nsw i64 %11, 16384
  %14 = call i64 @llvm.smin.i64(i64 %13, i64 32768)
  br label %15

15:                                               ; preds = %18, %1
  %16 = phi i64 [ %19, %18 ], [ %12, %1 ]
  %17 = icmp slt i64 %16, %14
  br i1 %17, label %18, label %20

18:                                               ; preds = %15
  call void @wrapped_iota.2_impl(ptr %5, ptr %5, i64 0, i64 32, i64 32, i64 32, i64 16, i64 16384, i64 512, i64 16, i64 1, i64 %16)
  %19 = add i64 %16, 1
  br label %15

20:                                               ; preds = %15
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @wrapped_iota.2_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, i64 %10, i64 %11) #0 {
  %13 = urem i64 %11, 32
  %14 = trunc i64 %13 to i32
  %15 = alloca i32, i64 1, align 64
  store i32 %14, ptr %15, align 4
  %16 = load <1 x i32>, ptr %15, align 4
  %17 = alloca i32, i64 16, align 64
  %18 = extractelement <1 x i32> %16, i64 0
  %19 = insertelement <16 x i32> poison, i32 %18, i32 0
  %20 = shufflevector <16 x i32> %19, <16 x i32> poison, <16 x i32> zeroinitializer
  %21 = getelementptr i32, ptr %17, i64 0
  store <16 x i32> %20, ptr %21, align 4
  %22 = udiv i64 %11, 1024
  %23 = udiv i64 %11, 32
  %24 = urem i64 %23, 32
  %25 = sub i64 32, %22
  %26 = call i64 @llvm.smin.i64(i64 %25, i64 1)
  %27 = sub i64 32, %24
  %28 = call i64 @llvm.smin.i64(i64 %27, i64 1)
  %29 = sub i64 32, %13
  %30 = call i64 @llvm.smin.i64(i64 %29, i64 1)
  %31 = icmp eq i64 %26, 1
  %32 = icmp eq i64 %28, 1
  %33 = and i1 %31, %32
  %34 = icmp eq i64 %30, 1
  %35 = and i1 %33, %34
  br i1 %35, label %36, label %43

36:                                               ; preds = %12
  %37 = mul nsw i64 %22, 16384
  %38 = mul nsw i64 %24, 512
  %39 = add nsw i64 %37, %38
  %40 = mul nsw i64 %13, 16
  %41 = add nsw i64 %39, %40
  %42 = getelementptr i32, ptr %1, i64 %41
  call void @llvm.memcpy.p0.p0.i64(ptr %42, ptr %17, i64 64, i1 false)
  br label %88

43:                                               ; preds = %12
  %44 = mul nsw i64 %22, 16384
  %45 = mul nsw i64 %24, 512
  %46 = add nsw i64 %44, %45
  %47 = mul nsw i64 %13, 16
  %48 = add nsw i64 %46, %47
  br label %49

49:                                               ; preds = %85, %43
  %50 = phi i64 [ %86, %85 ], [ 0, %43 ]
  %51 = icmp slt i64 %50, %26
  br i1 %51, label %52, label %87

52:                                               ; preds = %49
  br label %53

53:                                               ; preds = %83, %52
  %54 = phi i64 [ %84, %83 ], [ 0, %52 ]
  %55 = icmp slt i64 %54, %28
  br i1 %55, label %56, label %85

56:                                               ; preds = %53
  br label %57

57:                                               ; preds = %81, %56
  %58 = phi i64 [ %82, %81 ], [ 0, %56 ]
  %59 = icmp slt i64 %58, %30
  br i1 %59, label %60, label %83

60:                                               ; preds = %57
  br label %61

61:                                               ; preds = %64, %60
  %62 = phi i64 [ %80, %64 ], [ 0, %60 ]
  %63 = icmp slt i64 %62, 16
  br i1 %63, label %64, label %81

64:                                               ; preds = %61
  %65 = mul nuw nsw i64 %50, 16
  %66 = mul nuw nsw i64 %54, 16
  %67 = add nuw nsw i64 %65, %66
  %68 = mul nuw nsw i64 %58, 16
  %69 = add nuw nsw i64 %67, %68
  %70 = add nuw nsw i64 %69, %62
  %71 = getelementptr inbounds nuw i32, ptr %17, i64 %70
  %72 = load i32, ptr %71, align 4
  %73 = getelementptr i32, ptr %1, i64 %48
  %74 = mul nuw nsw i64 %50, 16384
  %75 = mul nuw nsw i64 %54, 512
  %76 = add nuw nsw i64 %74, %75
  %77 = add nuw nsw i64 %76, %68
  %78 = add nuw nsw i64 %77, %62
  %79 = getelementptr inbounds nuw i32, ptr %73, i64 %78
  store i32 %72, ptr %79, align 4
  %80 = add i64 %62, 1
  br label %61

81:                                               ; preds = %61
  %82 = add i64 %58, 1
  br label %57

83:                                               ; preds = %57
  %84 = add i64 %54, 1
  br label %53

85:                                               ; preds = %53
  %86 = add i64 %50, 1
  br label %49

87:                                               ; preds = %49
  br label %88

88:                                               ; preds = %36, %87
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
!1 = !{i32 1, !"xla_dylib_index", i64 30}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
