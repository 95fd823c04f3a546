; ModuleID = '__compute_module_wrapped_broadcast.1_kernel_module'
source_filename = "__compute_module_wrapped_broadcast.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @wrapped_broadcast.1(ptr %0) #0 {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !5
  %8 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %9 = load ptr, ptr %8, align 8
  %10 = getelementptr inbounds %kernel_dim3, ptr %9, i32 0, i32 0
  %11 = load i64, ptr %10, align 4, !invariant.load !3
  %12 = getelementptr inbounds %kernel_dim3, ptr %9, i32 0, i32 1
  %13 = load i64, ptr %12, align 4, !invariant.load !3
  %14 = getelementptr inbounds %kernel_dim3, ptr %9, i32 0, i32 2
  %15 = load i64, ptr %14, align 4, !invariant.load !3
  call void @wrapped_broadcast.1_wrapped(ptr %5, ptr %7, i64 %11, i64 %13, i64 %15)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @wrapped_broadcast.1_wrapped(ptr noalias align 64 dereferenceable(4) %0, ptr noalias align 64 dereferenceable(1048576) %1, i64 %2, i64 %3, i64 %4) #1 {
  %6 = icmp sge i64 %2, 0
  %7 = icmp sle i64 %2, 1
  %8 = and i1 %6, %7
  br i1 %8, label %9, label %45

9:                                                ; preds = %5
  %10 = getelementptr inbounds [1 x float], ptr %0, i32 0, i32 0
  %11 = load float, ptr %10, align 4, !invariant.load !3
  %12 = mul nsw i64 %2, 131072
  br label %13

13:                                               ; preds = %42, %9
  %14 = phi i64 [ %43, %42 ], [ 0, %9 ]
  %15 = icmp slt i64 %14, 16
  br i1 %15, label %16, label %44

16:                                               ; preds = %13
  %17 = mul nsw i64 %14, 8192
  %18 = add nsw i64 %12, %17
  br label %19

19:                                               ; preds = %40, %16
  %20 = phi i64 [ %41, %40 ], [ 0, %16 ]
  %21 = icmp slt i64 %20, 16
  br i1 %21, label %22, label %42

22:                                               ; preds = %19
  %23 = mul nsw i64 %20, 512
  %24 = add nsw i64 %18, %23
  br label %25

25:                                               ; preds = %38, %22
  %26 = phi i64 [ %39, %38 ], [ 0, %22 ]
  %27 = icmp slt i64 %26, 16
  br i1 %27, label %28, label %40

28:                                               ; preds = %25
  %29 = mul nsw i64 %26, 32
  %30 = add nsw i64 %24, %29
  br label %31

31:                                               ; preds = %34, %28
  %32 = phi i64 [ %37, %34 ], [ 0, %28 ]
  %33 = icmp slt i64 %32, 32
  br i1 %33, label %34, label %38

34:                                               ; preds = %31
  %35 = add nsw i64 %30, %32
  %36 = getelementptr inbounds [262144 x float], ptr %1, i32 0, i64 %35
  store float %11, ptr %36, align 4
  %37 = add i64 %32, 1
  br label %31

38:                                               ; preds = %31
  %39 = add i64 %26, 1
  br label %25, !llvm.loop !6

40:                                               ; preds = %25
  %41 = add i64 %20, 1
  br label %19, !llvm.loop !6

42:                                               ; preds = %19
  %43 = add i64 %14, 1
  br label %13, !llvm.loop !6

44:                                               ; preds = %13
  br label %45

45:                                               ; preds = %44, %5
  ret void
}

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 27}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 4}
!5 = !{i64 1048576}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.unroll.disable"}
