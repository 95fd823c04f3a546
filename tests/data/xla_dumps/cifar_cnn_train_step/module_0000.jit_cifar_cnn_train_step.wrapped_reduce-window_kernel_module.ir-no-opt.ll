; ModuleID = '__compute_module_wrapped_reduce-window_kernel_module'
source_filename = "__compute_module_wrapped_reduce-window_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @wrapped_reduce-window(ptr %0) #0 {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !4
  %8 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 2, i32 0
  %9 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !4
  %10 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 3, i32 0
  %11 = load ptr, ptr %10, align 8, !invariant.load !3, !dereferenceable !4
  %12 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 4, i32 0
  %13 = load ptr, ptr %12, align 8, !invariant.load !3, !dereferenceable !4
  %14 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 5, i32 0
  %15 = load ptr, ptr %14, align 8, !invariant.load !3, !dereferenceable !5
  %16 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 6, i32 0
  %17 = load ptr, ptr %16, align 8, !invariant.load !3, !dereferenceable !5
  %18 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 7, i32 0
  %19 = load ptr, ptr %18, align 8, !invariant.load !3, !dereferenceable !6
  %20 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 8, i32 0
  %21 = load ptr, ptr %20, align 8, !invariant.load !3, !dereferenceable !6
  %22 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 9, i32 0
  %23 = load ptr, ptr %22, align 8, !invariant.load !3, !dereferenceable !6
  %24 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 10, i32 0
  %25 = load ptr, ptr %24, align 8, !invariant.load !3, !dereferenceable !6
  %26 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 11, i32 0
  %27 = load ptr, ptr %26, align 8, !invariant.load !3, !dereferenceable !6
  %28 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %29 = load ptr, ptr %28, align 8
  %30 = getelementptr inbounds %kernel_dim3, ptr %29, i32 0, i32 0
  %31 = load i64, ptr %30, align 4, !invariant.load !3
  %32 = getelementptr inbounds %kernel_dim3, ptr %29, i32 0, i32 1
  %33 = load i64, ptr %32, align 4, !invariant.load !3
  %34 = getelementptr inbounds %kernel_dim3, ptr %29, i32 0, i32 2
  %35 = load i64, ptr %34, align 4, !invariant.load !3
  call void @wrapped_reduce-window_wrapped(ptr %5, ptr %7, ptr %9, ptr %11, ptr %13, ptr %15, ptr %17, ptr %19, ptr %21, ptr %23, ptr %25, ptr %27, i64 %31, i64 %33, i64 %35)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @wrapped_reduce-window_wrapped(ptr noalias align 64 dereferenceable(2097152) %0, ptr noalias align 64 dereferenceable(2097152) %1, ptr noalias align 64 dereferenceable(2097152) %2, ptr noalias align 64 dereferenceable(2097152) %3, ptr noalias align 64 dereferenceable(2097152) %4, ptr noalias align 64 dereferenceable(4) %5, ptr noalias align 64 dereferenceable(4) %6, ptr noalias align 64 dereferenceable(524288) %7, ptr noalias align 64 dereferenceable(524288) %8, ptr noalias align 64 dereferenceable(524288) %9, ptr noalias align 64 dereferenceable(524288) %10, ptr noalias align 64 dereferenceable(524288) %11, i64 %12, i64 %13, i64 %14) #1 {
  %16 = icmp sge i64 %12, 0
  %17 = icmp sle i64 %12, 1
  %18 = and i1 %16, %17
  br i1 %18, label %19, label %117

19:                                               ; preds = %15
  %20 = getelementptr inbounds [1 x float], ptr %5, i32 0, i32 0
  %21 = load float, ptr %20, align 4, !invariant.load !3
  %22 = getelementptr inbounds [1 x i32], ptr %6, i32 0, i32 0
  %23 = load i32, ptr %22, align 4, !invariant.load !3
  %24 = mul nsw i64 %12, 262144
  %25 = mul nsw i64 %12, 65536
  br label %26

26:                                               ; preds = %114, %19
  %27 = phi i64 [ %115, %114 ], [ 0, %19 ]
  %28 = icmp slt i64 %27, 16
  br i1 %28, label %29, label %116

29:                                               ; preds = %26
  %30 = mul nsw i64 %27, 16384
  %31 = add nsw i64 %24, %30
  %32 = mul nsw i64 %27, 4096
  %33 = add nsw i64 %25, %32
  br label %34

34:                                               ; preds = %112, %29
  %35 = phi i64 [ %113, %112 ], [ 0, %29 ]
  %36 = icmp slt i64 %35, 16
  br i1 %36, label %37, label %114

37:                                               ; preds = %34
  %38 = mul nsw i64 %35, 1024
  %39 = add nsw i64 %31, %38
  %40 = mul nsw i64 %35, 256
  %41 = add nsw i64 %33, %40
  br label %42

42:                                               ; preds = %110, %37
  %43 = phi i64 [ %111, %110 ], [ 0, %37 ]
  %44 = icmp slt i64 %43, 16
  br i1 %44, label %45, label %112

45:                                               ; preds = %42
  %46 = mul nsw i64 %43, 32
  %47 = add nsw i64 %39, %46
  %48 = mul nsw i64 %43, 16
  %49 = add nsw i64 %41, %48
  br label %50

50:                                               ; preds = %102, %45
  %51 = phi i64 [ %109, %102 ], [ 0, %45 ]
  %52 = icmp slt i64 %51, 16
  br i1 %52, label %53, label %110

53:                                               ; preds = %50
  %54 = add nsw i64 %47, %51
  br label %55

55:                                               ; preds = %100, %53
  %56 = phi i64 [ %101, %100 ], [ 0, %53 ]
  %57 = phi float [ %68, %100 ], [ %21, %53 ]
  %58 = phi i32 [ %69, %100 ], [ %23, %53 ]
  %59 = phi i32 [ %70, %100 ], [ %23, %53 ]
  %60 = phi i32 [ %71, %100 ], [ %23, %53 ]
  %61 = phi i32 [ %72, %100 ], [ %23, %53 ]
  %62 = icmp slt i64 %56, 2
  br i1 %62, label %63, label %102

63:                                               ; preds = %55
  %64 = mul nsw i64 %56, 512
  %65 = add nsw i64 %54, %64
  br label %66

66:                                               ; preds = %74, %63
  %67 = phi i64 [ %99, %74 ], [ 0, %63 ]
  %68 = phi float [ %94, %74 ], [ %57, %63 ]
  %69 = phi i32 [ %95, %74 ], [ %58, %63 ]
  %70 = phi i32 [ %96, %74 ], [ %59, %63 ]
  %71 = phi i32 [ %97, %74 ], [ %60, %63 ]
  %72 = phi i32 [ %98, %74 ], [ %61, %63 ]
  %73 = icmp slt i64 %67, 2
  br i1 %73, label %74, label %100

74:                                               ; preds = %66
  %75 = mul nsw i64 %67, 16
  %76 = add nsw i64 %65, %75
  %77 = getelementptr inbounds [524288 x float], ptr %0, i32 0, i64 %76
  %78 = load float, ptr %77, align 4, !invariant.load !3
  %79 = getelementptr inbounds [524288 x i32], ptr %1, i32 0, i64 %76
  %80 = load i32, ptr %79, align 4, !invariant.load !3
  %81 = getelementptr inbounds [524288 x i32], ptr %2, i32 0, i64 %76
  %82 = load i32, ptr %81, align 4, !invariant.load !3
  %83 = getelementptr inbounds [524288 x i32], ptr %3, i32 0, i64 %76
  %84 = load i32, ptr %83, align 4, !invariant.load !3
  %85 = getelementptr inbounds [524288 x i32], ptr %4, i32 0, i64 %76
  %86 = load i32, ptr %85, align 4, !invariant.load !3
  %87 = fcmp reassoc oge float %68, %78
  %88 = icmp ne i32 %69, -1
  %89 = icmp ne i32 %80, -1
  %90 = zext i1 %89 to i8
  %91 = and i1 %87, %88
  %92 = icmp eq i8 %90, 0
  %93 = or i1 %91, %92
  %94 = select i1 %93, float %68, float %78
  %95 = select i1 %93, i32 %69, i32 %80
  %96 = select i1 %93, i32 %70, i32 %82
  %97 = select i1 %93, i32 %71, i32 %84
  %98 = select i1 %93, i32 %72, i32 %86
  %99 = add i64 %67, 1
  br label %66

100:                                              ; preds = %66
  %101 = add i64 %56, 1
  br label %55, !llvm.loop !7

102:                                              ; preds = %55
  %103 = add nsw i64 %49, %51
  %104 = getelementptr inbounds [131072 x float], ptr %7, i32 0, i64 %103
  store float %57, ptr %104, align 4
  %105 = getelementptr inbounds [131072 x i32], ptr %8, i32 0, i64 %103
  store i32 %58, ptr %105, align 4
  %106 = getelementptr inbounds [131072 x i32], ptr %9, i32 0, i64 %103
  store i32 %59, ptr %106, align 4
  %107 = getelementptr inbounds [131072 x i32], ptr %10, i32 0, i64 %103
  store i32 %60, ptr %107, align 4
  %108 = getelementptr inbounds [131072 x i32], ptr %11, i32 0, i64 %103
  store i32 %61, ptr %108, align 4
  %109 = add i64 %51, 1
  br label %50, !llvm.loop !7

110:                                              ; preds = %50
  %111 = add i64 %43, 1
  br label %42, !llvm.loop !7

112:                                              ; preds = %42
  %113 = add i64 %35, 1
  br label %34, !llvm.loop !7

114:                                              ; preds = %34
  %115 = add i64 %27, 1
  br label %26, !llvm.loop !7

116:                                              ; preds = %26
  br label %117

117:                                              ; preds = %116, %15
  ret void
}

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 6}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 2097152}
!5 = !{i64 4}
!6 = !{i64 524288}
!7 = distinct !{!7, !8}
!8 = !{!"llvm.loop.unroll.disable"}
