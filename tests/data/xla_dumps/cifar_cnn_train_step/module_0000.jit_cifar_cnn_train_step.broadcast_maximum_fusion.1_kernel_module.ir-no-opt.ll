; ModuleID = '__compute_module_broadcast_maximum_fusion.1_kernel_module'
source_filename = "__compute_module_broadcast_maximum_fusion.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @broadcast_maximum_fusion.1(ptr %0) #0 {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !5
  %8 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 2, i32 0
  %9 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !4
  %10 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %11 = load ptr, ptr %10, align 8
  %12 = getelementptr inbounds %kernel_dim3, ptr %11, i32 0, i32 0
  %13 = load i64, ptr %12, align 4, !invariant.load !3
  %14 = getelementptr inbounds %kernel_dim3, ptr %11, i32 0, i32 1
  %15 = load i64, ptr %14, align 4, !invariant.load !3
  %16 = getelementptr inbounds %kernel_dim3, ptr %11, i32 0, i32 2
  %17 = load i64, ptr %16, align 4, !invariant.load !3
  call void @broadcast_maximum_fusion.1_wrapped(ptr %5, ptr %7, ptr %9, i64 %13, i64 %15, i64 %17)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @broadcast_maximum_fusion.1_wrapped(ptr noalias align 64 dereferenceable(2097152) %0, ptr noalias align 64 dereferenceable(64) %1, ptr noalias align 64 dereferenceable(2097152) %2, i64 %3, i64 %4, i64 %5) #1 {
  %7 = icmp sge i64 %3, 0
  %8 = icmp sle i64 %3, 1
  %9 = and i1 %7, %8
  br i1 %9, label %10, label %50

10:                                               ; preds = %6
  %11 = mul nsw i64 %3, 262144
  br label %12

12:                                               ; preds = %47, %10
  %13 = phi i64 [ %48, %47 ], [ 0, %10 ]
  %14 = icmp slt i64 %13, 16
  br i1 %14, label %15, label %49

15:                                               ; preds = %12
  %16 = mul nsw i64 %13, 16384
  %17 = add nsw i64 %11, %16
  br label %18

18:                                               ; preds = %45, %15
  %19 = phi i64 [ %46, %45 ], [ 0, %15 ]
  %20 = icmp slt i64 %19, 32
  br i1 %20, label %21, label %47

21:                                               ; preds = %18
  %22 = mul nsw i64 %19, 512
  %23 = add nsw i64 %17, %22
  br label %24

24:                                               ; preds = %43, %21
  %25 = phi i64 [ %44, %43 ], [ 0, %21 ]
  %26 = icmp slt i64 %25, 32
  br i1 %26, label %27, label %45

27:                                               ; preds = %24
  %28 = mul nsw i64 %25, 16
  %29 = add nsw i64 %23, %28
  br label %30

30:                                               ; preds = %33, %27
  %31 = phi i64 [ %42, %33 ], [ 0, %27 ]
  %32 = icmp slt i64 %31, 16
  br i1 %32, label %33, label %43

33:                                               ; preds = %30
  %34 = add nsw i64 %29, %31
  %35 = getelementptr inbounds [524288 x float], ptr %0, i32 0, i64 %34
  %36 = load float, ptr %35, align 4, !invariant.load !3
  %37 = getelementptr inbounds [16 x float], ptr %1, i32 0, i64 %31
  %38 = load float, ptr %37, align 4, !invariant.load !3
  %39 = fadd float %36, %38
  %40 = call float @llvm.maximum.f32(float %39, float 0.000000e+00)
  %41 = getelementptr inbounds [524288 x float], ptr %2, i32 0, i64 %34
  store float %40, ptr %41, align 4
  %42 = add i64 %31, 1
  br label %30

43:                                               ; preds = %30
  %44 = add i64 %25, 1
  br label %24, !llvm.loop !6

45:                                               ; preds = %24
  %46 = add i64 %19, 1
  br label %18, !llvm.loop !6

47:                                               ; preds = %18
  %48 = add i64 %13, 1
  br label %12, !llvm.loop !6

49:                                               ; preds = %12
  br label %50

50:                                               ; preds = %49, %6
  ret void
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.maximum.f32(float, float) #2

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }
attributes #2 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 6}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 2097152}
!5 = !{i64 64}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.unroll.disable"}
