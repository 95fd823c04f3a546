; ModuleID = '__compute_module___compute_module_transpose_copy_fusion.4'
source_filename = "__compute_module___compute_module_transpose_copy_fusion.4"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

define ptr @transpose_copy_fusion.4(ptr %0) {
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
  %13 = mul nuw nsw i64 %12, 1024
  %14 = call i64 @llvm.smin.i64(i64 %13, i64 2048)
  %15 = add nuw nsw i64 %13, 1024
  %16 = call i64 @llvm.smin.i64(i64 %15, i64 2048)
  br label %17

17:                                               ; preds = %20, %1
  %18 = phi i64 [ %21, %20 ], [ %14, %1 ]
  %19 = icmp slt i64 %18, %16
  br i1 %19, label %20, label %22

20:                                               ; preds = %17
  call void @transpose_copy_fusion.4_impl(ptr %5, ptr %5, i64 0, i64 32, i64 32, i64 32, i64 3, i64 3072, i64 96, i64 3, i64 1, ptr %7, ptr %7, i64 0, i64 3, i64 32, i64 32, i64 32, i64 32768, i64 1024, i64 32, i64 1, i64 %18)
  %21 = add i64 %18, 1
  br label %17

22:                                               ; preds = %17
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @transpose_copy_fusion.4_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, i64 %10, ptr %11, ptr %12, i64 %13, i64 %14, i64 %15, i64 %16, i64 %17, i64 %18, i64 %19, i64 %20, i64 %21, i64 %22) #0 {
  %24 = urem i64 %22, 2
  %25 = mul nsw i64 %24, 16
  %26 = udiv i64 %22, 64
  %27 = udiv i64 %22, 2
  %28 = urem i64 %27, 32
  %29 = sub i64 32, %25
  %30 = call i64 @llvm.smin.i64(i64 %29, i64 16)
  %31 = sub i64 32, %26
  %32 = call i64 @llvm.smin.i64(i64 %31, i64 1)
  %33 = sub i64 32, %28
  %34 = call i64 @llvm.smin.i64(i64 %33, i64 1)
  %35 = mul nsw i64 %24, 49152
  %36 = mul nsw i64 %26, 96
  %37 = add nsw i64 %35, %36
  %38 = mul nsw i64 %28, 3
  %39 = add nsw i64 %37, %38
  %40 = alloca float, i64 64, align 4
  br label %41

41:                                               ; preds = %78, %23
  %42 = phi i64 [ %79, %78 ], [ 0, %23 ]
  %43 = icmp slt i64 %42, %30
  br i1 %43, label %44, label %80

44:                                               ; preds = %41
  br label %45

45:                                               ; preds = %76, %44
  %46 = phi i64 [ %77, %76 ], [ 0, %44 ]
  %47 = icmp slt i64 %46, %32
  br i1 %47, label %48, label %78

48:                                               ; preds = %45
  br label %49

49:                                               ; preds = %74, %48
  %50 = phi i64 [ %75, %74 ], [ 0, %48 ]
  %51 = icmp slt i64 %50, %34
  br i1 %51, label %52, label %76

52:                                               ; preds = %49
  br label %53

53:                                               ; preds = %56, %52
  %54 = phi i64 [ %73, %56 ], [ 0, %52 ]
  %55 = icmp slt i64 %54, 3
  br i1 %55, label %56, label %74

56:                                               ; preds = %53
  %57 = getelementptr float, ptr %1, i64 %39
  %58 = mul nuw nsw i64 %42, 3072
  %59 = mul nuw nsw i64 %46, 96
  %60 = add nuw nsw i64 %58, %59
  %61 = mul nuw nsw i64 %50, 3
  %62 = add nuw nsw i64 %60, %61
  %63 = add nuw nsw i64 %62, %54
  %64 = getelementptr inbounds nuw float, ptr %57, i64 %63
  %65 = load float, ptr %64, align 4
  %66 = mul nuw nsw i64 %42, 4
  %67 = mul nuw nsw i64 %46, 4
  %68 = add nuw nsw i64 %66, %67
  %69 = mul nuw nsw i64 %50, 4
  %70 = add nuw nsw i64 %68, %69
  %71 = add nuw nsw i64 %70, %54
  %72 = getelementptr inbounds nuw float, ptr %40, i64 %71
  store float %65, ptr %72, align 4
  %73 = add i64 %54, 1
  br label %53

74:                                               ; preds = %53
  %75 = add i64 %50, 1
  br label %49

76:                                               ; preds = %49
  %77 = add i64 %46, 1
  br label %45

78:                                               ; preds = %45
  %79 = add i64 %42, 1
  br label %41

80:                                               ; preds = %41
  %81 = alloca float, i64 64, align 64
  br label %82

82:                                               ; preds = %111, %80
  %83 = phi i64 [ %112, %111 ], [ 0, %80 ]
  %84 = icmp slt i64 %83, 4
  br i1 %84, label %85, label %113

85:                                               ; preds = %82
  %86 = mul i64 %83, 16
  %87 = add i64 %86, 0
  %88 = add i64 %87, 0
  br label %89

89:                                               ; preds = %107, %85
  %90 = phi i64 [ %110, %107 ], [ 0, %85 ]
  %91 = icmp slt i64 %90, 16
  br i1 %91, label %92, label %111

92:                                               ; preds = %89
  br label %93

93:                                               ; preds = %97, %92
  %94 = phi i64 [ %106, %97 ], [ 0, %92 ]
  %95 = phi <8 x float> [ %105, %97 ], [ poison, %92 ]
  %96 = icmp slt i64 %94, 8
  br i1 %96, label %97, label %107

97:                                               ; preds = %93
  %98 = add nsw i64 %90, %94
  %99 = mul nuw nsw i64 %98, 4
  %100 = add nuw nsw i64 %99, 0
  %101 = add nuw nsw i64 %100, 0
  %102 = add nuw nsw i64 %101, %83
  %103 = getelementptr inbounds nuw float, ptr %40, i64 %102
  %104 = load float, ptr %103, align 4
  %105 = insertelement <8 x float> %95, float %104, i64 %94
  %106 = add i64 %94, 1
  br label %93

107:                                              ; preds = %93
  %108 = add i64 %88, %90
  %109 = getelementptr float, ptr %81, i64 %108
  store <8 x float> %95, ptr %109, align 4
  %110 = add i64 %90, 8
  br label %89

111:                                              ; preds = %89
  %112 = add i64 %83, 1
  br label %82

113:                                              ; preds = %82
  %114 = mul nsw i64 %26, 1024
  %115 = mul nsw i64 %28, 32
  %116 = add nsw i64 %114, %115
  %117 = add nsw i64 %116, %25
  br label %118

118:                                              ; preds = %155, %113
  %119 = phi i64 [ %156, %155 ], [ 0, %113 ]
  %120 = icmp slt i64 %119, 3
  br i1 %120, label %121, label %157

121:                                              ; preds = %118
  br label %122

122:                                              ; preds = %153, %121
  %123 = phi i64 [ %154, %153 ], [ 0, %121 ]
  %124 = icmp slt i64 %123, %32
  br i1 %124, label %125, label %155

125:                                              ; preds = %122
  br label %126

126:                                              ; preds = %151, %125
  %127 = phi i64 [ %152, %151 ], [ 0, %125 ]
  %128 = icmp slt i64 %127, %34
  br i1 %128, label %129, label %153

129:                                              ; preds = %126
  br label %130

130:                                              ; preds = %133, %129
  %131 = phi i64 [ %150, %133 ], [ 0, %129 ]
  %132 = icmp slt i64 %131, %30
  br i1 %132, label %133, label %151

133:                                              ; preds = %130
  %134 = mul nuw nsw i64 %119, 16
  %135 = mul nuw nsw i64 %123, 16
  %136 = add nuw nsw i64 %134, %135
  %137 = mul nuw nsw i64 %127, 16
  %138 = add nuw nsw i64 %136, %137
  %139 = add nuw nsw i64 %138, %131
  %140 = getelementptr inbounds nuw float, ptr %81, i64 %139
  %141 = load float, ptr %140, align 4
  %142 = getelementptr float, ptr %12, i64 %117
  %143 = mul nuw nsw i64 %119, 32768
  %144 = mul nuw nsw i64 %123, 1024
  %145 = add nuw nsw i64 %143, %144
  %146 = mul nuw nsw i64 %127, 32
  %147 = add nuw nsw i64 %145, %146
  %148 = add nuw nsw i64 %147, %131
  %149 = getelementptr inbounds nuw float, ptr %142, i64 %148
  store float %141, ptr %149, align 4
  %150 = add i64 %131, 1
  br label %130

151:                                              ; preds = %130
  %152 = add i64 %127, 1
  br label %126

153:                                              ; preds = %126
  %154 = add i64 %123, 1
  br label %122

155:                                              ; preds = %122
  %156 = add i64 %119, 1
  br label %118

157:                                              ; preds = %118
  ret void
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smin.i64(i64, i64) #1

attributes #0 = { alwaysinline }
attributes #1 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 25}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
