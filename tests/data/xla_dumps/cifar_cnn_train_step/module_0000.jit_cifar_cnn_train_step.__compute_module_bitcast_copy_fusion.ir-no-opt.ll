; ModuleID = '__compute_module___compute_module_bitcast_copy_fusion'
source_filename = "__compute_module___compute_module_bitcast_copy_fusion"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

define ptr @bitcast_copy_fusion(ptr %0) {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3
  %8 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %9 = load ptr, ptr %8, align 8
  %10 = getelementptr inbounds %kernel_dim3, ptr %9, i32 0, i32 0
  %11 = load i64, ptr %10, align 4, !invariant.load !3
  %12 = call i64 @llvm.smax.i64(i64 %11, i64 0)
  %13 = mul nuw nsw i64 %12, 4096
  %14 = call i64 @llvm.smin.i64(i64 %13, i64 8192)
  %15 = add nuw nsw i64 %13, 4096
  %16 = call i64 @llvm.smin.i64(i64 %15, i64 8192)
  br label %17

17:                                               ; preds = %20, %1
  %18 = phi i64 [ %21, %20 ], [ %14, %1 ]
  %19 = icmp slt i64 %18, %16
  br i1 %19, label %20, label %22

20:                                               ; preds = %17
  call void @bitcast_copy_fusion_impl(ptr %5, ptr %5, i64 0, i64 32, i64 16, i64 16, i64 16, i64 4096, i64 256, i64 16, i64 1, ptr %7, ptr %7, i64 0, i64 131072, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1, i64 %18)
  %21 = add i64 %18, 1
  br label %17

22:                                               ; preds = %17
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @bitcast_copy_fusion_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, i64 %10, ptr %11, ptr %12, i64 %13, i64 %14, i64 %15, i64 %16, i64 %17, i64 %18, i64 %19, i64 %20, i64 %21, i64 %22, i64 %23, i64 %24) #0 {
  %26 = udiv i64 %24, 256
  %27 = udiv i64 %24, 16
  %28 = urem i64 %27, 16
  %29 = urem i64 %24, 16
  %30 = sub i64 32, %26
  %31 = call i64 @llvm.smin.i64(i64 %30, i64 1)
  %32 = sub i64 16, %28
  %33 = call i64 @llvm.smin.i64(i64 %32, i64 1)
  %34 = sub i64 16, %29
  %35 = call i64 @llvm.smin.i64(i64 %34, i64 1)
  %36 = icmp eq i64 %31, 1
  %37 = icmp eq i64 %33, 1
  %38 = and i1 %36, %37
  %39 = icmp eq i64 %35, 1
  %40 = and i1 %38, %39
  %41 = alloca float, i64 16, align 4
  %42 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } poison, ptr %41, 0
  %43 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %42, ptr %41, 1
  %44 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %43, i64 0, 2
  %45 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %44, i64 1, 3, 0
  %46 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %45, i64 1, 3, 1
  %47 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %46, i64 1, 3, 2
  %48 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %47, i64 16, 3, 3
  %49 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %48, i64 16, 4, 0
  %50 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %49, i64 16, 4, 1
  %51 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %50, i64 16, 4, 2
  %52 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %51, i64 1, 4, 3
  %53 = alloca float, i64 16, align 4
  %54 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } poison, ptr %53, 0
  %55 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %54, ptr %53, 1
  %56 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %55, i64 0, 2
  %57 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %56, i64 1, 3, 0
  %58 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %57, i64 1, 3, 1
  %59 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %58, i64 1, 3, 2
  %60 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %59, i64 16, 3, 3
  %61 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %60, i64 16, 4, 0
  %62 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %61, i64 16, 4, 1
  %63 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %62, i64 16, 4, 2
  %64 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %63, i64 1, 4, 3
  %65 = select i1 %40, { ptr, ptr, i64, [4 x i64], [4 x i64] } %52, { ptr, ptr, i64, [4 x i64], [4 x i64] } %64
  br i1 %40, label %66, label %73

66:                                               ; preds = %25
  %67 = mul nsw i64 %26, 4096
  %68 = mul nsw i64 %28, 256
  %69 = add nsw i64 %67, %68
  %70 = mul nsw i64 %29, 16
  %71 = add nsw i64 %69, %70
  %72 = getelementptr float, ptr %1, i64 %71
  call void @llvm.memcpy.p0.p0.i64(ptr %41, ptr %72, i64 64, i1 false)
  br label %118

73:                                               ; preds = %25
  %74 = mul nsw i64 %26, 4096
  %75 = mul nsw i64 %28, 256
  %76 = add nsw i64 %74, %75
  %77 = mul nsw i64 %29, 16
  %78 = add nsw i64 %76, %77
  br label %79

79:                                               ; preds = %115, %73
  %80 = phi i64 [ %116, %115 ], [ 0, %73 ]
  %81 = icmp slt i64 %80, %31
  br i1 %81, label %82, label %117

82:                                               ; preds = %79
  br label %83

83:                                               ; preds = %113, %82
  %84 = phi i64 [ %114, %113 ], [ 0, %82 ]
  %85 = icmp slt i64 %84, %33
  br i1 %85, label %86, label %115

86:                                               ; preds = %83
  br label %87

87:                                               ; preds = %111, %86
  %88 = phi i64 [ %112, %111 ], [ 0, %86 ]
  %89 = icmp slt i64 %88, %35
  br i1 %89, label %90, label %113

90:                                               ; preds = %87
  br label %91

91:                                               ; preds = %94, %90
  %92 = phi i64 [ %110, %94 ], [ 0, %90 ]
  %93 = icmp slt i64 %92, 16
  br i1 %93, label %94, label %111

94:                                               ; preds = %91
  %95 = getelementptr float, ptr %1, i64 %78
  %96 = mul nuw nsw i64 %80, 4096
  %97 = mul nuw nsw i64 %84, 256
  %98 = add nuw nsw i64 %96, %97
  %99 = mul nuw nsw i64 %88, 16
  %100 = add nuw nsw i64 %98, %99
  %101 = add nuw nsw i64 %100, %92
  %102 = getelementptr inbounds nuw float, ptr %95, i64 %101
  %103 = load float, ptr %102, align 4
  %104 = mul nuw nsw i64 %80, 16
  %105 = mul nuw nsw i64 %84, 16
  %106 = add nuw nsw i64 %104, %105
  %107 = add nuw nsw i64 %106, %99
  %108 = add nuw nsw i64 %107, %92
  %109 = getelementptr inbounds nuw float, ptr %53, i64 %108
  store float %103, ptr %109, align 4
  %110 = add i64 %92, 1
  br label %91

111:                                              ; preds = %91
  %112 = add i64 %88, 1
  br label %87

113:                                              ; preds = %87
  %114 = add i64 %84, 1
  br label %83

115:                                              ; preds = %83
  %116 = add i64 %80, 1
  br label %79

117:                                              ; preds = %79
  br label %118

118:                                              ; preds = %66, %117
  %119 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %65, 1
  %120 = mul nsw i64 %24, 16
  %121 = sub i64 131072, %120
  %122 = call i64 @llvm.smin.i64(i64 %121, i64 16)
  %123 = icmp eq i64 %122, 16
  br i1 %123, label %124, label %126

124:                                              ; preds = %118
  %125 = getelementptr float, ptr %12, i64 %120
  call void @llvm.memcpy.p0.p0.i64(ptr %125, ptr %119, i64 64, i1 false)
  br label %141

126:                                              ; preds = %118
  br label %127

127:                                              ; preds = %130, %126
  %128 = phi i64 [ %139, %130 ], [ 0, %126 ]
  %129 = icmp slt i64 %128, %122
  br i1 %129, label %130, label %140

130:                                              ; preds = %127
  %131 = add nuw nsw i64 %128, 0
  %132 = add nuw nsw i64 %131, 0
  %133 = add nuw nsw i64 %132, 0
  %134 = add nuw nsw i64 %133, 0
  %135 = getelementptr inbounds nuw float, ptr %119, i64 %134
  %136 = load float, ptr %135, align 4
  %137 = getelementptr float, ptr %12, i64 %120
  %138 = getelementptr inbounds nuw float, ptr %137, i64 %134
  store float %136, ptr %138, align 4
  %139 = add i64 %128, 1
  br label %127

140:                                              ; preds = %127
  br label %141

141:                                              ; preds = %124, %140
  ret void
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smin.i64(i64, i64) #1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #2

attributes #0 = { alwaysinline }
attributes #1 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 3}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
