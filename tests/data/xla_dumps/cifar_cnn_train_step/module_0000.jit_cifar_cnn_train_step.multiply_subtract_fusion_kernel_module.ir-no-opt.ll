; ModuleID = '__compute_module_multiply_subtract_fusion_kernel_module'
source_filename = "__compute_module_multiply_subtract_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @multiply_subtract_fusion(ptr %0) #0 {
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
  call void @multiply_subtract_fusion_wrapped(ptr %5, ptr %7, ptr %9, i64 %13, i64 %15, i64 %17)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @multiply_subtract_fusion_wrapped(ptr noalias align 64 dereferenceable(40) %0, ptr noalias align 64 dereferenceable(1280) %1, ptr noalias align 64 dereferenceable(40) %2, i64 %3, i64 %4, i64 %5) #1 {
  br label %7

7:                                                ; preds = %22, %6
  %8 = phi i64 [ %28, %22 ], [ 0, %6 ]
  %9 = icmp slt i64 %8, 10
  br i1 %9, label %10, label %29

10:                                               ; preds = %7
  br label %11

11:                                               ; preds = %15, %10
  %12 = phi i64 [ %21, %15 ], [ 0, %10 ]
  %13 = phi float [ %20, %15 ], [ 0.000000e+00, %10 ]
  %14 = icmp slt i64 %12, 32
  br i1 %14, label %15, label %22

15:                                               ; preds = %11
  %16 = mul nsw i64 %12, 10
  %17 = add nsw i64 %8, %16
  %18 = getelementptr inbounds [320 x float], ptr %1, i32 0, i64 %17
  %19 = load float, ptr %18, align 4, !invariant.load !3
  %20 = fadd reassoc float %13, %19
  %21 = add i64 %12, 1
  br label %11

22:                                               ; preds = %11
  %23 = getelementptr inbounds [10 x float], ptr %0, i32 0, i64 %8
  %24 = load float, ptr %23, align 4, !invariant.load !3
  %25 = fmul float %13, f0x3C23D70A
  %26 = fsub float %24, %25
  %27 = getelementptr inbounds [10 x float], ptr %2, i32 0, i64 %8
  store float %26, ptr %27, align 4
  %28 = add i64 %8, 1
  br label %7, !llvm.loop !6

29:                                               ; preds = %7
  ret void
}

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 15}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 40}
!5 = !{i64 1280}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.unroll.disable"}
