; ModuleID = '__compute_module_multiply_negate_fusion_kernel_module'
source_filename = "__compute_module_multiply_negate_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @multiply_negate_fusion(ptr %0) #0 {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !4
  %8 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 2, i32 0
  %9 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !5
  %10 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 3, i32 0
  %11 = load ptr, ptr %10, align 8, !invariant.load !3, !dereferenceable !6
  %12 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 4, i32 0
  %13 = load ptr, ptr %12, align 8, !invariant.load !3, !dereferenceable !4
  %14 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 5, i32 0
  %15 = load ptr, ptr %14, align 8, !invariant.load !3, !dereferenceable !7
  %16 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %17 = load ptr, ptr %16, align 8
  %18 = getelementptr inbounds %kernel_dim3, ptr %17, i32 0, i32 0
  %19 = load i64, ptr %18, align 4, !invariant.load !3
  %20 = getelementptr inbounds %kernel_dim3, ptr %17, i32 0, i32 1
  %21 = load i64, ptr %20, align 4, !invariant.load !3
  %22 = getelementptr inbounds %kernel_dim3, ptr %17, i32 0, i32 2
  %23 = load i64, ptr %22, align 4, !invariant.load !3
  call void @multiply_negate_fusion_wrapped(ptr %5, ptr %7, ptr %9, ptr %11, ptr %13, ptr %15, i64 %19, i64 %21, i64 %23)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @multiply_negate_fusion_wrapped(ptr noalias align 64 dereferenceable(128) %0, ptr noalias align 64 dereferenceable(128) %1, ptr noalias align 64 dereferenceable(1280) %2, ptr noalias align 64 dereferenceable(40) %3, ptr noalias align 64 dereferenceable(128) %4, ptr noalias align 64 dereferenceable(4) %5, i64 %6, i64 %7, i64 %8) #1 {
  br label %10

10:                                               ; preds = %40, %9
  %11 = phi i64 [ %41, %40 ], [ 0, %9 ]
  %12 = phi float [ %24, %40 ], [ 0.000000e+00, %9 ]
  %13 = icmp slt i64 %11, 32
  br i1 %13, label %14, label %42

14:                                               ; preds = %10
  %15 = getelementptr inbounds [32 x float], ptr %1, i32 0, i64 %11
  %16 = load float, ptr %15, align 4, !invariant.load !3
  %17 = getelementptr inbounds [32 x i32], ptr %4, i32 0, i64 %11
  %18 = load i32, ptr %17, align 4, !invariant.load !3
  %19 = getelementptr inbounds [32 x float], ptr %0, i32 0, i64 %11
  %20 = load float, ptr %19, align 4, !invariant.load !3
  %21 = mul nsw i64 %11, 10
  br label %22

22:                                               ; preds = %26, %14
  %23 = phi i64 [ %39, %26 ], [ 0, %14 ]
  %24 = phi float [ %38, %26 ], [ %12, %14 ]
  %25 = icmp slt i64 %23, 10
  br i1 %25, label %26, label %40

26:                                               ; preds = %22
  %27 = add nsw i64 %21, %23
  %28 = getelementptr inbounds [320 x float], ptr %2, i32 0, i64 %27
  %29 = load float, ptr %28, align 4, !invariant.load !3
  %30 = getelementptr inbounds [10 x float], ptr %3, i32 0, i64 %23
  %31 = load float, ptr %30, align 4, !invariant.load !3
  %32 = fadd float %29, %31
  %33 = trunc i64 %23 to i32
  %34 = fsub float %32, %16
  %35 = icmp eq i32 %18, %33
  %36 = fsub float %34, %20
  %37 = select i1 %35, float %36, float 0.000000e+00
  %38 = fadd reassoc float %24, %37
  %39 = add i64 %23, 1
  br label %22

40:                                               ; preds = %22
  %41 = add i64 %11, 1
  br label %10, !llvm.loop !8

42:                                               ; preds = %10
  %43 = fmul float %12, 3.125000e-02
  %44 = fneg float %43
  %45 = getelementptr inbounds [1 x float], ptr %5, i32 0, i32 0
  store float %44, ptr %45, align 4
  ret void
}

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 14}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 128}
!5 = !{i64 1280}
!6 = !{i64 40}
!7 = !{i64 4}
!8 = distinct !{!8, !9}
!9 = !{!"llvm.loop.unroll.disable"}
