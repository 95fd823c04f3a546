; ModuleID = '__compute_module_wrapped_scatter.1'
source_filename = "__compute_module_wrapped_scatter.1"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @wrapped_scatter.1(ptr %0) #0 {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !4
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !4, !dereferenceable !5
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !4, !dereferenceable !5
  %8 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 2, i32 0
  %9 = load ptr, ptr %8, align 8, !invariant.load !4, !dereferenceable !6
  %10 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 3, i32 0
  %11 = load ptr, ptr %10, align 8, !invariant.load !4, !dereferenceable !5
  %12 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %13 = load ptr, ptr %12, align 8
  %14 = getelementptr inbounds %kernel_dim3, ptr %13, i32 0, i32 0
  %15 = load i64, ptr %14, align 4, !invariant.load !4
  %16 = trunc nsw i64 %15 to i32
  %17 = getelementptr inbounds %kernel_dim3, ptr %13, i32 0, i32 1
  %18 = load i64, ptr %17, align 4, !invariant.load !4
  %19 = trunc nsw i64 %18 to i32
  %20 = getelementptr inbounds %kernel_dim3, ptr %13, i32 0, i32 2
  %21 = load i64, ptr %20, align 4, !invariant.load !4
  %22 = trunc nsw i64 %21 to i32
  call void @wrapped_scatter.1_wrapped(ptr %5, ptr %7, ptr %9, ptr %11, i32 %16, i32 %19, i32 %22)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @wrapped_scatter.1_wrapped(ptr noalias align 64 dereferenceable(2097152) %0, ptr noalias align 64 dereferenceable(2097152) %1, ptr noalias align 64 dereferenceable(524288) %2, ptr noalias align 64 dereferenceable(2097152) %3, i32 %4, i32 %5, i32 %6) #1 {
  br label %8

8:                                                ; preds = %43, %7
  %9 = phi i32 [ %44, %43 ], [ 0, %7 ]
  %10 = icmp slt i32 %9, 131072
  br i1 %10, label %11, label %45

11:                                               ; preds = %8
  %12 = mul nsw i32 %9, 4
  %13 = getelementptr inbounds [524288 x i32], ptr %1, i32 0, i32 %12
  %14 = load i32, ptr %13, align 4
  %15 = icmp ule i32 %14, 31
  %16 = add nsw i32 %12, 1
  %17 = getelementptr inbounds [524288 x i32], ptr %1, i32 0, i32 %16
  %18 = load i32, ptr %17, align 4
  %19 = icmp ule i32 %18, 31
  %20 = and i1 %15, %19
  %21 = add nsw i32 %12, 2
  %22 = getelementptr inbounds [524288 x i32], ptr %1, i32 0, i32 %21
  %23 = load i32, ptr %22, align 4
  %24 = icmp ule i32 %23, 31
  %25 = and i1 %20, %24
  %26 = add nsw i32 %12, 3
  %27 = getelementptr inbounds [524288 x i32], ptr %1, i32 0, i32 %26
  %28 = load i32, ptr %27, align 4
  %29 = icmp ule i32 %28, 15
  %30 = and i1 %25, %29
  br i1 %30, label %31, label %43

31:                                               ; preds = %11
  %32 = getelementptr inbounds [131072 x float], ptr %2, i32 0, i32 %9
  %33 = load float, ptr %32, align 4
  %34 = mul nsw i32 %14, 16384
  %35 = mul nsw i32 %18, 512
  %36 = add nsw i32 %34, %35
  %37 = mul nsw i32 %23, 16
  %38 = add nsw i32 %36, %37
  %39 = add nsw i32 %38, %28
  %40 = getelementptr inbounds [524288 x float], ptr %0, i32 0, i32 %39
  %41 = load float, ptr %40, align 4
  %42 = fadd float %41, %33
  store float %42, ptr %40, align 4
  br label %43

43:                                               ; preds = %31, %11
  %44 = add i32 %9, 1
  br label %8

45:                                               ; preds = %8
  ret void
}

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }

!llvm.module.flags = !{!0, !1, !2}
!xla_cpu_memory_region_name = !{!3}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_backend_extra_options", !"xla_cpu_disable_loop_unrolling"}
!2 = !{i32 1, !"xla_dylib_index", i64 1}
!3 = !{!"xla_cpu_emitter__cpu_scatter_fusion__hlo_opcode__fusion"}
!4 = !{}
!5 = !{i64 2097152}
!6 = !{i64 524288}
