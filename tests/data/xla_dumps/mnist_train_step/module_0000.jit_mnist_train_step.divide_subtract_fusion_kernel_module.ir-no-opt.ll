; ModuleID = '__compute_module_divide_subtract_fusion_kernel_module'
source_filename = "__compute_module_divide_subtract_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @divide_subtract_fusion(ptr %0) #0 {
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
  %12 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 4, i32 0
  %13 = load ptr, ptr %12, align 8, !invariant.load !3, !dereferenceable !5
  %14 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 5, i32 0
  %15 = load ptr, ptr %14, align 8, !invariant.load !3, !dereferenceable !4
  %16 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %17 = load ptr, ptr %16, align 8
  %18 = getelementptr inbounds %kernel_dim3, ptr %17, i32 0, i32 0
  %19 = load i64, ptr %18, align 4, !invariant.load !3
  %20 = getelementptr inbounds %kernel_dim3, ptr %17, i32 0, i32 1
  %21 = load i64, ptr %20, align 4, !invariant.load !3
  %22 = getelementptr inbounds %kernel_dim3, ptr %17, i32 0, i32 2
  %23 = load i64, ptr %22, align 4, !invariant.load !3
  call void @divide_subtract_fusion_wrapped(ptr %5, ptr %7, ptr %9, ptr %11, ptr %13, ptr %15, i64 %19, i64 %21, i64 %23)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @divide_subtract_fusion_wrapped(ptr noalias align 64 dereferenceable(40) %0, ptr noalias align 64 dereferenceable(40) %1, ptr noalias align 64 dereferenceable(4) %2, ptr noalias align 64 dereferenceable(40) %3, ptr noalias align 64 dereferenceable(4) %4, ptr noalias align 64 dereferenceable(40) %5, i64 %6, i64 %7, i64 %8) #1 {
  %10 = getelementptr inbounds [1 x float], ptr %2, i32 0, i32 0
  %11 = load float, ptr %10, align 4, !invariant.load !3
  %12 = getelementptr inbounds [1 x float], ptr %4, i32 0, i32 0
  %13 = load float, ptr %12, align 4, !invariant.load !3
  br label %14

14:                                               ; preds = %17, %9
  %15 = phi i64 [ %32, %17 ], [ 0, %9 ]
  %16 = icmp slt i64 %15, 10
  br i1 %16, label %17, label %33

17:                                               ; preds = %14
  %18 = getelementptr inbounds [10 x float], ptr %1, i32 0, i64 %15
  %19 = load float, ptr %18, align 4, !invariant.load !3
  %20 = getelementptr inbounds [10 x float], ptr %3, i32 0, i64 %15
  %21 = load float, ptr %20, align 4, !invariant.load !3
  %22 = fmul float %19, %11
  %23 = fmul float %21, %13
  %24 = call float @llvm.sqrt.f32(float %22)
  %25 = fmul float %23, 1.000000e-03
  %26 = fadd float %24, f0x322BCC77
  %27 = getelementptr inbounds [10 x float], ptr %0, i32 0, i64 %15
  %28 = load float, ptr %27, align 4, !invariant.load !3
  %29 = fdiv float %25, %26
  %30 = fsub float %28, %29
  %31 = getelementptr inbounds [10 x float], ptr %5, i32 0, i64 %15
  store float %30, ptr %31, align 4
  %32 = add i64 %15, 1
  br label %14

33:                                               ; preds = %14
  ret void
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.sqrt.f32(float) #2

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }
attributes #2 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 1}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 40}
!5 = !{i64 4}
