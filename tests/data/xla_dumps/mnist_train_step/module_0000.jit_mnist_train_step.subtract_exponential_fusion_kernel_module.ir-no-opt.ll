; ModuleID = '__compute_module_subtract_exponential_fusion_kernel_module'
source_filename = "__compute_module_subtract_exponential_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @subtract_exponential_fusion(ptr %0) #0 {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !5
  %8 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 2, i32 0
  %9 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !6
  %10 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 3, i32 0
  %11 = load ptr, ptr %10, align 8, !invariant.load !3, !dereferenceable !5
  %12 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %13 = load ptr, ptr %12, align 8
  %14 = getelementptr inbounds %kernel_dim3, ptr %13, i32 0, i32 0
  %15 = load i64, ptr %14, align 4, !invariant.load !3
  %16 = getelementptr inbounds %kernel_dim3, ptr %13, i32 0, i32 1
  %17 = load i64, ptr %16, align 4, !invariant.load !3
  %18 = getelementptr inbounds %kernel_dim3, ptr %13, i32 0, i32 2
  %19 = load i64, ptr %18, align 4, !invariant.load !3
  call void @subtract_exponential_fusion_wrapped(ptr %5, ptr %7, ptr %9, ptr %11, i64 %15, i64 %17, i64 %19)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @subtract_exponential_fusion_wrapped(ptr noalias align 64 dereferenceable(512) %0, ptr noalias align 64 dereferenceable(5120) %1, ptr noalias align 64 dereferenceable(40) %2, ptr noalias align 64 dereferenceable(5120) %3, i64 %4, i64 %5, i64 %6) #1 {
  br label %8

8:                                                ; preds = %29, %7
  %9 = phi i64 [ %30, %29 ], [ 0, %7 ]
  %10 = icmp slt i64 %9, 128
  br i1 %10, label %11, label %31

11:                                               ; preds = %8
  %12 = getelementptr inbounds [128 x float], ptr %0, i32 0, i64 %9
  %13 = load float, ptr %12, align 4, !invariant.load !3
  %14 = mul nsw i64 %9, 10
  br label %15

15:                                               ; preds = %18, %11
  %16 = phi i64 [ %28, %18 ], [ 0, %11 ]
  %17 = icmp slt i64 %16, 10
  br i1 %17, label %18, label %29

18:                                               ; preds = %15
  %19 = add nsw i64 %14, %16
  %20 = getelementptr inbounds [1280 x float], ptr %1, i32 0, i64 %19
  %21 = load float, ptr %20, align 4, !invariant.load !3
  %22 = getelementptr inbounds [10 x float], ptr %2, i32 0, i64 %16
  %23 = load float, ptr %22, align 4, !invariant.load !3
  %24 = fadd float %21, %23
  %25 = fsub float %24, %13
  %26 = call float @llvm.exp.f32(float %25)
  %27 = getelementptr inbounds [1280 x float], ptr %3, i32 0, i64 %19
  store float %26, ptr %27, align 4
  %28 = add i64 %16, 1
  br label %15

29:                                               ; preds = %15
  %30 = add i64 %9, 1
  br label %8, !llvm.loop !7

31:                                               ; preds = %8
  ret void
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.exp.f32(float) #2

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }
attributes #2 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 12}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 512}
!5 = !{i64 5120}
!6 = !{i64 40}
!7 = distinct !{!7, !8}
!8 = !{!"llvm.loop.unroll.disable"}
