; ModuleID = '__compute_module___compute_module_wrapped_log'
source_filename = "__compute_module___compute_module_wrapped_log"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

define ptr @wrapped_log(ptr %0) {
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
  %13 = mul nuw nsw i64 %12, 8
  %14 = call i64 @llvm.smin.i64(i64 %13, i64 8)
  br label %15

15:                                               ; preds = %18, %1
  %16 = phi i64 [ %19, %18 ], [ %14, %1 ]
  %17 = icmp slt i64 %16, 8
  br i1 %17, label %18, label %20

18:                                               ; preds = %15
  call void @wrapped_log_impl(ptr %5, ptr %5, i64 0, i64 128, i64 1, ptr %7, ptr %7, i64 0, i64 128, i64 1, i64 %16)
  %19 = add i64 %16, 1
  br label %15

20:                                               ; preds = %15
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @wrapped_log_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, ptr %5, ptr %6, i64 %7, i64 %8, i64 %9, i64 %10) #0 {
  %12 = mul nsw i64 %10, 16
  %13 = sub i64 128, %12
  %14 = call i64 @llvm.smin.i64(i64 %13, i64 16)
  %15 = icmp eq i64 %14, 16
  %16 = alloca float, i64 16, align 4
  %17 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %16, 0
  %18 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %17, ptr %16, 1
  %19 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %18, i64 0, 2
  %20 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %19, i64 16, 3, 0
  %21 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %20, i64 1, 4, 0
  %22 = alloca float, i64 16, align 4
  %23 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %22, 0
  %24 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %23, ptr %22, 1
  %25 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %24, i64 0, 2
  %26 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %25, i64 16, 3, 0
  %27 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %26, i64 1, 4, 0
  %28 = select i1 %15, { ptr, ptr, i64, [1 x i64], [1 x i64] } %21, { ptr, ptr, i64, [1 x i64], [1 x i64] } %27
  br i1 %15, label %29, label %31

29:                                               ; preds = %11
  %30 = getelementptr float, ptr %1, i64 %12
  call void @llvm.memcpy.p0.p0.i64(ptr %16, ptr %30, i64 64, i1 false)
  br label %42

31:                                               ; preds = %11
  br label %32

32:                                               ; preds = %35, %31
  %33 = phi i64 [ %40, %35 ], [ 0, %31 ]
  %34 = icmp slt i64 %33, %14
  br i1 %34, label %35, label %41

35:                                               ; preds = %32
  %36 = getelementptr float, ptr %1, i64 %12
  %37 = getelementptr inbounds nuw float, ptr %36, i64 %33
  %38 = load float, ptr %37, align 4
  %39 = getelementptr inbounds nuw float, ptr %22, i64 %33
  store float %38, ptr %39, align 4
  %40 = add i64 %33, 1
  br label %32

41:                                               ; preds = %32
  br label %42

42:                                               ; preds = %29, %41
  %43 = alloca float, i64 16, align 64
  %44 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %28, 1
  br label %45

45:                                               ; preds = %48, %42
  %46 = phi i64 [ %53, %48 ], [ 0, %42 ]
  %47 = icmp slt i64 %46, 16
  br i1 %47, label %48, label %54

48:                                               ; preds = %45
  %49 = getelementptr float, ptr %44, i64 %46
  %50 = load <8 x float>, ptr %49, align 4
  %51 = call <8 x float> @llvm.log.v8f32(<8 x float> %50)
  %52 = getelementptr float, ptr %43, i64 %46
  store <8 x float> %51, ptr %52, align 4
  %53 = add i64 %46, 8
  br label %45

54:                                               ; preds = %45
  br i1 %15, label %55, label %57

55:                                               ; preds = %54
  %56 = getelementptr float, ptr %6, i64 %12
  call void @llvm.memcpy.p0.p0.i64(ptr %56, ptr %43, i64 64, i1 false)
  br label %68

57:                                               ; preds = %54
  br label %58

58:                                               ; preds = %61, %57
  %59 = phi i64 [ %66, %61 ], [ 0, %57 ]
  %60 = icmp slt i64 %59, %14
  br i1 %60, label %61, label %67

61:                                               ; preds = %58
  %62 = getelementptr inbounds nuw float, ptr %43, i64 %59
  %63 = load float, ptr %62, align 4
  %64 = getelementptr float, ptr %6, i64 %12
  %65 = getelementptr inbounds nuw float, ptr %64, i64 %59
  store float %63, ptr %65, align 4
  %66 = add i64 %59, 1
  br label %58

67:                                               ; preds = %58
  br label %68

68:                                               ; preds = %55, %67
  ret void
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smin.i64(i64, i64) #1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #2

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare <8 x float> @llvm.log.v8f32(<8 x float>) #1

attributes #0 = { alwaysinline }
attributes #1 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 15}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
