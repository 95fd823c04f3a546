; ModuleID = '__compute_module___compute_module_bitcast_copy_fusion.1'
source_filename = "__compute_module___compute_module_bitcast_copy_fusion.1"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

define ptr @bitcast_copy_fusion.1(ptr %0) {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3
  %8 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %9 = load ptr, ptr %8, align 8
  %10 = getelementptr inbounds %kernel_dim3, ptr %9, i32 0, i32 0
  %11 = load i64, ptr %10, align 4, !invariant.load !3
  %12 = call i64 @llvm.smax.i64(i64 %11, i64 0)
  %13 = mul nuw nsw i64 %12, 2048
  %14 = call i64 @llvm.smin.i64(i64 %13, i64 4096)
  %15 = add nuw nsw i64 %13, 2048
  %16 = call i64 @llvm.smin.i64(i64 %15, i64 4096)
  br label %17

17:                                               ; preds = %20, %1
  %18 = phi i64 [ %21, %20 ], [ %14, %1 ]
  %19 = icmp slt i64 %18, %16
  br i1 %19, label %20, label %22

20:                                               ; preds = %17
  call void @bitcast_copy_fusion.1_impl(ptr %5, ptr %5, i64 0, i64 32, i64 2048, i64 2048, i64 1, ptr %7, ptr %7, i64 0, i64 65536, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1, i64 %18)
  %21 = add i64 %18, 1
  br label %17

22:                                               ; preds = %17
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @bitcast_copy_fusion.1_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, ptr %7, ptr %8, i64 %9, i64 %10, i64 %11, i64 %12, i64 %13, i64 %14, i64 %15, i64 %16, i64 %17, i64 %18, i64 %19, i64 %20) #0 {
  %22 = udiv i64 %20, 128
  %23 = urem i64 %20, 128
  %24 = mul nsw i64 %23, 16
  %25 = sub i64 32, %22
  %26 = call i64 @llvm.smin.i64(i64 %25, i64 1)
  %27 = sub i64 2048, %24
  %28 = call i64 @llvm.smin.i64(i64 %27, i64 16)
  %29 = icmp eq i64 %26, 1
  %30 = icmp eq i64 %28, 16
  %31 = and i1 %29, %30
  %32 = alloca float, i64 16, align 4
  %33 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } poison, ptr %32, 0
  %34 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %33, ptr %32, 1
  %35 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %34, i64 0, 2
  %36 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %35, i64 1, 3, 0
  %37 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %36, i64 16, 3, 1
  %38 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %37, i64 16, 4, 0
  %39 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %38, i64 1, 4, 1
  %40 = alloca float, i64 16, align 4
  %41 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } poison, ptr %40, 0
  %42 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %41, ptr %40, 1
  %43 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %42, i64 0, 2
  %44 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %43, i64 1, 3, 0
  %45 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %44, i64 16, 3, 1
  %46 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %45, i64 16, 4, 0
  %47 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %46, i64 1, 4, 1
  %48 = select i1 %31, { ptr, ptr, i64, [2 x i64], [2 x i64] } %39, { ptr, ptr, i64, [2 x i64], [2 x i64] } %47
  br i1 %31, label %49, label %53

49:                                               ; preds = %21
  %50 = mul nsw i64 %22, 2048
  %51 = add nsw i64 %50, %24
  %52 = getelementptr float, ptr %1, i64 %51
  call void @llvm.memcpy.p0.p0.i64(ptr %32, ptr %52, i64 64, i1 false)
  br label %76

53:                                               ; preds = %21
  %54 = mul nsw i64 %22, 2048
  %55 = add nsw i64 %54, %24
  br label %56

56:                                               ; preds = %73, %53
  %57 = phi i64 [ %74, %73 ], [ 0, %53 ]
  %58 = icmp slt i64 %57, %26
  br i1 %58, label %59, label %75

59:                                               ; preds = %56
  br label %60

60:                                               ; preds = %63, %59
  %61 = phi i64 [ %72, %63 ], [ 0, %59 ]
  %62 = icmp slt i64 %61, %28
  br i1 %62, label %63, label %73

63:                                               ; preds = %60
  %64 = getelementptr float, ptr %1, i64 %55
  %65 = mul nuw nsw i64 %57, 2048
  %66 = add nuw nsw i64 %65, %61
  %67 = getelementptr inbounds nuw float, ptr %64, i64 %66
  %68 = load float, ptr %67, align 4
  %69 = mul nuw nsw i64 %57, 16
  %70 = add nuw nsw i64 %69, %61
  %71 = getelementptr inbounds nuw float, ptr %40, i64 %70
  store float %68, ptr %71, align 4
  %72 = add i64 %61, 1
  br label %60

73:                                               ; preds = %60
  %74 = add i64 %57, 1
  br label %56

75:                                               ; preds = %56
  br label %76

76:                                               ; preds = %49, %75
  %77 = extractvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %48, 1
  %78 = mul nsw i64 %20, 16
  %79 = sub i64 65536, %78
  %80 = call i64 @llvm.smin.i64(i64 %79, i64 16)
  %81 = icmp eq i64 %80, 16
  br i1 %81, label %82, label %84

82:                                               ; preds = %76
  %83 = getelementptr float, ptr %8, i64 %78
  call void @llvm.memcpy.p0.p0.i64(ptr %83, ptr %77, i64 64, i1 false)
  br label %99

84:                                               ; preds = %76
  br label %85

85:                                               ; preds = %88, %84
  %86 = phi i64 [ %97, %88 ], [ 0, %84 ]
  %87 = icmp slt i64 %86, %80
  br i1 %87, label %88, label %98

88:                                               ; preds = %85
  %89 = add nuw nsw i64 %86, 0
  %90 = add nuw nsw i64 %89, 0
  %91 = add nuw nsw i64 %90, 0
  %92 = add nuw nsw i64 %91, 0
  %93 = getelementptr inbounds nuw float, ptr %77, i64 %92
  %94 = load float, ptr %93, align 4
  %95 = getelementptr float, ptr %8, i64 %78
  %96 = getelementptr inbounds nuw float, ptr %95, i64 %92
  store float %94, ptr %96, align 4
  %97 = add i64 %86, 1
  br label %85

98:                                               ; preds = %85
  br label %99

99:                                               ; preds = %82, %98
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
!1 = !{i32 1, !"xla_dylib_index", i64 4}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
