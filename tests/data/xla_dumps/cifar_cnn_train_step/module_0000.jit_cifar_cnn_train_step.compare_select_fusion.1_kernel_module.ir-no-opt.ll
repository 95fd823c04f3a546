; ModuleID = '__compute_module_compare_select_fusion.1_kernel_module'
source_filename = "__compute_module_compare_select_fusion.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @compare_select_fusion.1(ptr %0) #0 {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !4
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
  call void @compare_select_fusion.1_wrapped(ptr %5, ptr %7, ptr %9, ptr %11, i64 %15, i64 %17, i64 %19)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @compare_select_fusion.1_wrapped(ptr noalias align 64 dereferenceable(1048576) %0, ptr noalias align 64 dereferenceable(1048576) %1, ptr noalias align 64 dereferenceable(128) %2, ptr noalias align 64 dereferenceable(1048576) %3, i64 %4, i64 %5, i64 %6) #1 {
  %8 = icmp sge i64 %4, 0
  %9 = icmp sle i64 %4, 1
  %10 = and i1 %8, %9
  br i1 %10, label %11, label %53

11:                                               ; preds = %7
  %12 = mul nsw i64 %4, 131072
  br label %13

13:                                               ; preds = %50, %11
  %14 = phi i64 [ %51, %50 ], [ 0, %11 ]
  %15 = icmp slt i64 %14, 16
  br i1 %15, label %16, label %52

16:                                               ; preds = %13
  %17 = mul nsw i64 %14, 8192
  %18 = add nsw i64 %12, %17
  br label %19

19:                                               ; preds = %48, %16
  %20 = phi i64 [ %49, %48 ], [ 0, %16 ]
  %21 = icmp slt i64 %20, 16
  br i1 %21, label %22, label %50

22:                                               ; preds = %19
  %23 = mul nsw i64 %20, 512
  %24 = add nsw i64 %18, %23
  br label %25

25:                                               ; preds = %46, %22
  %26 = phi i64 [ %47, %46 ], [ 0, %22 ]
  %27 = icmp slt i64 %26, 16
  br i1 %27, label %28, label %48

28:                                               ; preds = %25
  %29 = mul nsw i64 %26, 32
  %30 = add nsw i64 %24, %29
  br label %31

31:                                               ; preds = %34, %28
  %32 = phi i64 [ %45, %34 ], [ 0, %28 ]
  %33 = icmp slt i64 %32, 32
  br i1 %33, label %34, label %46

34:                                               ; preds = %31
  %35 = add nsw i64 %30, %32
  %36 = getelementptr inbounds [262144 x float], ptr %1, i32 0, i64 %35
  %37 = load float, ptr %36, align 4
  %38 = getelementptr inbounds [32 x float], ptr %2, i32 0, i64 %32
  %39 = load float, ptr %38, align 4, !invariant.load !3
  %40 = fadd float %37, %39
  %41 = fcmp ogt float %40, 0.000000e+00
  %42 = getelementptr inbounds [262144 x float], ptr %0, i32 0, i64 %35
  %43 = load float, ptr %42, align 4, !invariant.load !3
  %44 = select i1 %41, float %43, float 0.000000e+00
  store float %44, ptr %36, align 4
  %45 = add i64 %32, 1
  br label %31

46:                                               ; preds = %31
  %47 = add i64 %26, 1
  br label %25, !llvm.loop !6

48:                                               ; preds = %25
  %49 = add i64 %20, 1
  br label %19, !llvm.loop !6

50:                                               ; preds = %19
  %51 = add i64 %14, 1
  br label %13, !llvm.loop !6

52:                                               ; preds = %13
  br label %53

53:                                               ; preds = %52, %7
  ret void
}

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 8}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 1048576}
!5 = !{i64 128}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.unroll.disable"}
