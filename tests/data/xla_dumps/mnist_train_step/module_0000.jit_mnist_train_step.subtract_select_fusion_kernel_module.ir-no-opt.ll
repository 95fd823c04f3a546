; ModuleID = '__compute_module_subtract_select_fusion_kernel_module'
source_filename = "__compute_module_subtract_select_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @subtract_select_fusion(ptr %0) #0 {
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
  %15 = load ptr, ptr %14, align 8, !invariant.load !3, !dereferenceable !5
  %16 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %17 = load ptr, ptr %16, align 8
  %18 = getelementptr inbounds %kernel_dim3, ptr %17, i32 0, i32 0
  %19 = load i64, ptr %18, align 4, !invariant.load !3
  %20 = getelementptr inbounds %kernel_dim3, ptr %17, i32 0, i32 1
  %21 = load i64, ptr %20, align 4, !invariant.load !3
  %22 = getelementptr inbounds %kernel_dim3, ptr %17, i32 0, i32 2
  %23 = load i64, ptr %22, align 4, !invariant.load !3
  call void @subtract_select_fusion_wrapped(ptr %5, ptr %7, ptr %9, ptr %11, ptr %13, ptr %15, i64 %19, i64 %21, i64 %23)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @subtract_select_fusion_wrapped(ptr noalias align 64 dereferenceable(512) %0, ptr noalias align 64 dereferenceable(512) %1, ptr noalias align 64 dereferenceable(5120) %2, ptr noalias align 64 dereferenceable(40) %3, ptr noalias align 64 dereferenceable(512) %4, ptr noalias align 64 dereferenceable(5120) %5, i64 %6, i64 %7, i64 %8) #1 {
  br label %10

10:                                               ; preds = %38, %9
  %11 = phi i64 [ %39, %38 ], [ 0, %9 ]
  %12 = icmp slt i64 %11, 128
  br i1 %12, label %13, label %40

13:                                               ; preds = %10
  %14 = getelementptr inbounds [128 x float], ptr %1, i32 0, i64 %11
  %15 = load float, ptr %14, align 4, !invariant.load !3
  %16 = getelementptr inbounds [128 x i32], ptr %4, i32 0, i64 %11
  %17 = load i32, ptr %16, align 4, !invariant.load !3
  %18 = getelementptr inbounds [128 x float], ptr %0, i32 0, i64 %11
  %19 = load float, ptr %18, align 4, !invariant.load !3
  %20 = mul nsw i64 %11, 10
  br label %21

21:                                               ; preds = %24, %13
  %22 = phi i64 [ %37, %24 ], [ 0, %13 ]
  %23 = icmp slt i64 %22, 10
  br i1 %23, label %24, label %38

24:                                               ; preds = %21
  %25 = add nsw i64 %20, %22
  %26 = getelementptr inbounds [1280 x float], ptr %2, i32 0, i64 %25
  %27 = load float, ptr %26, align 4, !invariant.load !3
  %28 = getelementptr inbounds [10 x float], ptr %3, i32 0, i64 %22
  %29 = load float, ptr %28, align 4, !invariant.load !3
  %30 = fadd float %27, %29
  %31 = trunc i64 %22 to i32
  %32 = fsub float %30, %15
  %33 = icmp eq i32 %17, %31
  %34 = fsub float %32, %19
  %35 = select i1 %33, float %34, float 0.000000e+00
  %36 = getelementptr inbounds [1280 x float], ptr %5, i32 0, i64 %25
  store float %35, ptr %36, align 4
  %37 = add i64 %22, 1
  br label %21

38:                                               ; preds = %21
  %39 = add i64 %11, 1
  br label %10, !llvm.loop !7

40:                                               ; preds = %10
  ret void
}

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 13}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 512}
!5 = !{i64 5120}
!6 = !{i64 40}
!7 = distinct !{!7, !8}
!8 = !{!"llvm.loop.unroll.disable"}
