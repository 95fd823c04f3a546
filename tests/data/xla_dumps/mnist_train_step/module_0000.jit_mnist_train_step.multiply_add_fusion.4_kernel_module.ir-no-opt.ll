; ModuleID = '__compute_module_multiply_add_fusion.4_kernel_module'
source_filename = "__compute_module_multiply_add_fusion.4_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @multiply_add_fusion.4(ptr %0) #0 {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !5
  %8 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 2, i32 0
  %9 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !5
  %10 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 3, i32 0
  %11 = load ptr, ptr %10, align 8, !invariant.load !3, !dereferenceable !4
  %12 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %13 = load ptr, ptr %12, align 8
  %14 = getelementptr inbounds %kernel_dim3, ptr %13, i32 0, i32 0
  %15 = load i64, ptr %14, align 4, !invariant.load !3
  %16 = getelementptr inbounds %kernel_dim3, ptr %13, i32 0, i32 1
  %17 = load i64, ptr %16, align 4, !invariant.load !3
  %18 = getelementptr inbounds %kernel_dim3, ptr %13, i32 0, i32 2
  %19 = load i64, ptr %18, align 4, !invariant.load !3
  call void @multiply_add_fusion.4_wrapped(ptr %5, ptr %7, ptr %9, ptr %11, i64 %15, i64 %17, i64 %19)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @multiply_add_fusion.4_wrapped(ptr noalias align 64 dereferenceable(5120) %0, ptr noalias align 64 dereferenceable(512) %1, ptr noalias align 64 dereferenceable(512) %2, ptr noalias align 64 dereferenceable(5120) %3, i64 %4, i64 %5, i64 %6) #1 {
  br label %8

8:                                                ; preds = %30, %7
  %9 = phi i64 [ %31, %30 ], [ 0, %7 ]
  %10 = icmp slt i64 %9, 128
  br i1 %10, label %11, label %32

11:                                               ; preds = %8
  %12 = getelementptr inbounds [128 x i32], ptr %2, i32 0, i64 %9
  %13 = load i32, ptr %12, align 4, !invariant.load !3
  %14 = getelementptr inbounds [128 x float], ptr %1, i32 0, i64 %9
  %15 = load float, ptr %14, align 4, !invariant.load !3
  %16 = mul nsw i64 %9, 10
  br label %17

17:                                               ; preds = %20, %11
  %18 = phi i64 [ %29, %20 ], [ 0, %11 ]
  %19 = icmp slt i64 %18, 10
  br i1 %19, label %20, label %30

20:                                               ; preds = %17
  %21 = trunc i64 %18 to i32
  %22 = icmp eq i32 %13, %21
  %23 = add nsw i64 %16, %18
  %24 = getelementptr inbounds [1280 x float], ptr %0, i32 0, i64 %23
  %25 = load float, ptr %24, align 4
  %26 = select i1 %22, float -7.812500e-03, float 0.000000e+00
  %27 = fmul float %15, %25
  %28 = fadd float %26, %27
  store float %28, ptr %24, align 4
  %29 = add i64 %18, 1
  br label %17

30:                                               ; preds = %17
  %31 = add i64 %9, 1
  br label %8, !llvm.loop !6

32:                                               ; preds = %8
  ret void
}

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 7}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 5120}
!5 = !{i64 512}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.unroll.disable"}
