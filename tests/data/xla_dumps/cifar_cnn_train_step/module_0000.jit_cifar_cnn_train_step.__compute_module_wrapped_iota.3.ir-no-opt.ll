; ModuleID = '__compute_module___compute_module_wrapped_iota.3'
source_filename = "__compute_module___compute_module_wrapped_iota.3"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

@__constant_1x1x1x16xi32 = private constant [1 x [1 x [1 x [16 x i32]]]] [[1 x [1 x [16 x i32]]] [[1 x [16 x i32]] [[16 x i32] [i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15]]]], align 64

define ptr @wrapped_iota.3(ptr %0) {
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
  call void @wrapped_iota.3_impl(ptr %5, ptr %5, i64 0, i64 32, i64 32, i64 32, i64 16, i64 16384, i64 512, i64 16, i64 1, i64 %16)
  %19 = add i64 %16, 1
  br label %15

20:                                               ; preds = %15
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @wrapped_iota.3_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, i64 %10, i64 %11) #0 {
  %13 = udiv i64 %11, 1024
  %14 = udiv i64 %11, 32
  %15 = urem i64 %14, 32
  %16 = urem i64 %11, 32
  %17 = sub i64 32, %13
  %18 = call i64 @llvm.smin.i64(i64 %17, i64 1)
  %19 = sub i64 32, %15
  %20 = call i64 @llvm.smin.i64(i64 %19, i64 1)
  %21 = sub i64 32, %16
  %22 = call i64 @llvm.smin.i64(i64 %21, i64 1)
  %23 = icmp eq i64 %18, 1
  %24 = icmp eq i64 %20, 1
  %25 = and i1 %23, %24
  %26 = icmp eq i64 %22, 1
  %27 = and i1 %25, %26
  br i1 %27, label %28, label %35

28:                                               ; preds = %12
  %29 = mul nsw i64 %13, 16384
  %30 = mul nsw i64 %15, 512
  %31 = add nsw i64 %29, %30
  %32 = mul nsw i64 %16, 16
  %33 = add nsw i64 %31, %32
  %34 = getelementptr i32, ptr %1, i64 %33
  call void @llvm.memcpy.p0.p0.i64(ptr %34, ptr @__constant_1x1x1x16xi32, i64 64, i1 false)
  br label %80

35:                                               ; preds = %12
  %36 = mul nsw i64 %13, 16384
  %37 = mul nsw i64 %15, 512
  %38 = add nsw i64 %36, %37
  %39 = mul nsw i64 %16, 16
  %40 = add nsw i64 %38, %39
  br label %41

41:                                               ; preds = %77, %35
  %42 = phi i64 [ %78, %77 ], [ 0, %35 ]
  %43 = icmp slt i64 %42, %18
  br i1 %43, label %44, label %79

44:                                               ; preds = %41
  br label %45

45:                                               ; preds = %75, %44
  %46 = phi i64 [ %76, %75 ], [ 0, %44 ]
  %47 = icmp slt i64 %46, %20
  br i1 %47, label %48, label %77

48:                                               ; preds = %45
  br label %49

49:                                               ; preds = %73, %48
  %50 = phi i64 [ %74, %73 ], [ 0, %48 ]
  %51 = icmp slt i64 %50, %22
  br i1 %51, label %52, label %75

52:                                               ; preds = %49
  br label %53

53:                                               ; preds = %56, %52
  %54 = phi i64 [ %72, %56 ], [ 0, %52 ]
  %55 = icmp slt i64 %54, 16
  br i1 %55, label %56, label %73

56:                                               ; preds = %53
  %57 = mul nuw nsw i64 %42, 16
  %58 = mul nuw nsw i64 %46, 16
  %59 = add nuw nsw i64 %57, %58
  %60 = mul nuw nsw i64 %50, 16
  %61 = add nuw nsw i64 %59, %60
  %62 = add nuw nsw i64 %61, %54
  %63 = getelementptr inbounds nuw i32, ptr @__constant_1x1x1x16xi32, i64 %62
  %64 = load i32, ptr %63, align 4
  %65 = getelementptr i32, ptr %1, i64 %40
  %66 = mul nuw nsw i64 %42, 16384
  %67 = mul nuw nsw i64 %46, 512
  %68 = add nuw nsw i64 %66, %67
  %69 = add nuw nsw i64 %68, %60
  %70 = add nuw nsw i64 %69, %54
  %71 = getelementptr inbounds nuw i32, ptr %65, i64 %70
  store i32 %64, ptr %71, align 4
  %72 = add i64 %54, 1
  br label %53

73:                                               ; preds = %53
  %74 = add i64 %50, 1
  br label %49

75:                                               ; preds = %49
  %76 = add i64 %46, 1
  br label %45

77:                                               ; preds = %45
  %78 = add i64 %42, 1
  br label %41

79:                                               ; preds = %41
  br label %80

80:                                               ; preds = %28, %79
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
!1 = !{i32 1, !"xla_dylib_index", i64 31}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
