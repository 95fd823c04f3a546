; ModuleID = '__compute_module_copy_subtract_fusion_kernel_module'
source_filename = "__compute_module_copy_subtract_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @copy_subtract_fusion(ptr %0) #0 {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !4
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
  call void @copy_subtract_fusion_wrapped(ptr %5, ptr %7, ptr %9, i64 %13, i64 %15, i64 %17)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @copy_subtract_fusion_wrapped(ptr noalias align 64 dereferenceable(18432) %0, ptr noalias align 64 dereferenceable(18432) %1, ptr noalias align 64 dereferenceable(18432) %2, i64 %3, i64 %4, i64 %5) #1 {
  br label %7

7:                                                ; preds = %47, %6
  %8 = phi i64 [ %48, %47 ], [ 0, %6 ]
  %9 = icmp slt i64 %8, 3
  br i1 %9, label %10, label %49

10:                                               ; preds = %7
  %11 = mul nsw i64 %8, 96
  %12 = mul nsw i64 %8, 1536
  br label %13

13:                                               ; preds = %45, %10
  %14 = phi i64 [ %46, %45 ], [ 0, %10 ]
  %15 = icmp slt i64 %14, 3
  br i1 %15, label %16, label %47

16:                                               ; preds = %13
  %17 = mul nsw i64 %14, 32
  %18 = add nsw i64 %11, %17
  %19 = mul nsw i64 %14, 512
  %20 = add nsw i64 %12, %19
  br label %21

21:                                               ; preds = %43, %16
  %22 = phi i64 [ %44, %43 ], [ 0, %16 ]
  %23 = icmp slt i64 %22, 16
  br i1 %23, label %24, label %45

24:                                               ; preds = %21
  %25 = mul nsw i64 %22, 288
  %26 = add nsw i64 %18, %25
  %27 = mul nsw i64 %22, 32
  %28 = add nsw i64 %20, %27
  br label %29

29:                                               ; preds = %32, %24
  %30 = phi i64 [ %42, %32 ], [ 0, %24 ]
  %31 = icmp slt i64 %30, 32
  br i1 %31, label %32, label %43

32:                                               ; preds = %29
  %33 = add nsw i64 %26, %30
  %34 = getelementptr inbounds [4608 x float], ptr %1, i32 0, i64 %33
  %35 = load float, ptr %34, align 4, !invariant.load !3
  %36 = fmul float %35, f0x3C23D70A
  %37 = add nsw i64 %28, %30
  %38 = getelementptr inbounds [4608 x float], ptr %0, i32 0, i64 %37
  %39 = load float, ptr %38, align 4, !invariant.load !3
  %40 = fsub float %39, %36
  %41 = getelementptr inbounds [4608 x float], ptr %2, i32 0, i64 %37
  store float %40, ptr %41, align 4
  %42 = add i64 %30, 1
  br label %29

43:                                               ; preds = %29
  %44 = add i64 %22, 1
  br label %21, !llvm.loop !5

45:                                               ; preds = %21
  %46 = add i64 %14, 1
  br label %13, !llvm.loop !5

47:                                               ; preds = %13
  %48 = add i64 %8, 1
  br label %7, !llvm.loop !5

49:                                               ; preds = %7
  ret void
}

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 11}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 18432}
!5 = distinct !{!5, !6}
!6 = !{!"llvm.loop.unroll.disable"}
