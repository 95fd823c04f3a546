; ModuleID = '__compute_module___compute_module_transpose_copy_fusion.2'
source_filename = "__compute_module___compute_module_transpose_copy_fusion.2"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

define ptr @transpose_copy_fusion.2(ptr %0) {
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
  %13 = mul nuw nsw i64 %12, 16384
  %14 = call i64 @llvm.smin.i64(i64 %13, i64 32768)
  %15 = add nuw nsw i64 %13, 16384
  %16 = call i64 @llvm.smin.i64(i64 %15, i64 32768)
  br label %17

17:                                               ; preds = %20, %1
  %18 = phi i64 [ %21, %20 ], [ %14, %1 ]
  %19 = icmp slt i64 %18, %16
  br i1 %19, label %20, label %22

20:                                               ; preds = %17
  call void @transpose_copy_fusion.2_impl(ptr %5, ptr %5, i64 0, i64 32, i64 32, i64 32, i64 16, i64 16384, i64 512, i64 16, i64 1, ptr %7, ptr %7, i64 0, i64 32, i64 32, i64 32, i64 16, i64 16384, i64 512, i64 16, i64 1, i64 %18)
  %21 = add i64 %18, 1
  br label %17

22:                                               ; preds = %17
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @transpose_copy_fusion.2_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, i64 %10, ptr %11, ptr %12, i64 %13, i64 %14, i64 %15, i64 %16, i64 %17, i64 %18, i64 %19, i64 %20, i64 %21, i64 %22) #0 {
  %24 = urem i64 %22, 32
  %25 = udiv i64 %22, 1024
  %26 = udiv i64 %22, 32
  %27 = urem i64 %26, 32
  %28 = sub i64 32, %24
  %29 = call i64 @llvm.smin.i64(i64 %28, i64 1)
  %30 = sub i64 32, %25
  %31 = call i64 @llvm.smin.i64(i64 %30, i64 1)
  %32 = sub i64 32, %27
  %33 = call i64 @llvm.smin.i64(i64 %32, i64 1)
  %34 = icmp eq i64 %29, 1
  %35 = icmp eq i64 %31, 1
  %36 = and i1 %34, %35
  %37 = icmp eq i64 %33, 1
  %38 = and i1 %36, %37
  %39 = alloca float, i64 16, align 4
  %40 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } poison, ptr %39, 0
  %41 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %40, ptr %39, 1
  %42 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %41, i64 0, 2
  %43 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %42, i64 1, 3, 0
  %44 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %43, i64 1, 3, 1
  %45 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %44, i64 1, 3, 2
  %46 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %45, i64 16, 3, 3
  %47 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %46, i64 16, 4, 0
  %48 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %47, i64 16, 4, 1
  %49 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %48, i64 16, 4, 2
  %50 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %49, i64 1, 4, 3
  %51 = alloca float, i64 16, align 4
  %52 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } poison, ptr %51, 0
  %53 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %52, ptr %51, 1
  %54 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %53, i64 0, 2
  %55 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %54, i64 1, 3, 0
  %56 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %55, i64 1, 3, 1
  %57 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %56, i64 1, 3, 2
  %58 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %57, i64 16, 3, 3
  %59 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %58, i64 16, 4, 0
  %60 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %59, i64 16, 4, 1
  %61 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %60, i64 16, 4, 2
  %62 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %61, i64 1, 4, 3
  %63 = select i1 %38, { ptr, ptr, i64, [4 x i64], [4 x i64] } %50, { ptr, ptr, i64, [4 x i64], [4 x i64] } %62
  br i1 %38, label %64, label %71

64:                                               ; preds = %23
  %65 = mul nsw i64 %24, 16384
  %66 = mul nsw i64 %25, 512
  %67 = add nsw i64 %65, %66
  %68 = mul nsw i64 %27, 16
  %69 = add nsw i64 %67, %68
  %70 = getelementptr float, ptr %1, i64 %69
  call void @llvm.memcpy.p0.p0.i64(ptr %39, ptr %70, i64 64, i1 false)
  br label %116

71:                                               ; preds = %23
  %72 = mul nsw i64 %24, 16384
  %73 = mul nsw i64 %25, 512
  %74 = add nsw i64 %72, %73
  %75 = mul nsw i64 %27, 16
  %76 = add nsw i64 %74, %75
  br label %77

77:                                               ; preds = %113, %71
  %78 = phi i64 [ %114, %113 ], [ 0, %71 ]
  %79 = icmp slt i64 %78, %29
  br i1 %79, label %80, label %115

80:                                               ; preds = %77
  br label %81

81:                                               ; preds = %111, %80
  %82 = phi i64 [ %112, %111 ], [ 0, %80 ]
  %83 = icmp slt i64 %82, %31
  br i1 %83, label %84, label %113

84:                                               ; preds = %81
  br label %85

85:                                               ; preds = %109, %84
  %86 = phi i64 [ %110, %109 ], [ 0, %84 ]
  %87 = icmp slt i64 %86, %33
  br i1 %87, label %88, label %111

88:                                               ; preds = %85
  br label %89

89:                                               ; preds = %92, %88
  %90 = phi i64 [ %108, %92 ], [ 0, %88 ]
  %91 = icmp slt i64 %90, 16
  br i1 %91, label %92, label %109

92:                                               ; preds = %89
  %93 = getelementptr float, ptr %1, i64 %76
  %94 = mul nuw nsw i64 %78, 16384
  %95 = mul nuw nsw i64 %82, 512
  %96 = add nuw nsw i64 %94, %95
  %97 = mul nuw nsw i64 %86, 16
  %98 = add nuw nsw i64 %96, %97
  %99 = add nuw nsw i64 %98, %90
  %100 = getelementptr inbounds nuw float, ptr %93, i64 %99
  %101 = load float, ptr %100, align 4
  %102 = mul nuw nsw i64 %78, 16
  %103 = mul nuw nsw i64 %82, 16
  %104 = add nuw nsw i64 %102, %103
  %105 = add nuw nsw i64 %104, %97
  %106 = add nuw nsw i64 %105, %90
  %107 = getelementptr inbounds nuw float, ptr %51, i64 %106
  store float %101, ptr %107, align 4
  %108 = add i64 %90, 1
  br label %89

109:                                              ; preds = %89
  %110 = add i64 %86, 1
  br label %85

111:                                              ; preds = %85
  %112 = add i64 %82, 1
  br label %81

113:                                              ; preds = %81
  %114 = add i64 %78, 1
  br label %77

115:                                              ; preds = %77
  br label %116

116:                                              ; preds = %64, %115
  %117 = and i1 %35, %37
  %118 = and i1 %117, %34
  br i1 %118, label %119, label %138

119:                                              ; preds = %116
  %120 = mul nsw i64 %25, 16384
  %121 = mul nsw i64 %27, 512
  %122 = add nsw i64 %120, %121
  %123 = mul nsw i64 %24, 16
  %124 = add nsw i64 %122, %123
  %125 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %63, 3, 0
  %126 = mul i64 %125, 1
  %127 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %63, 3, 1
  %128 = mul i64 %126, %127
  %129 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %63, 3, 2
  %130 = mul i64 %128, %129
  %131 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %63, 3, 3
  %132 = mul i64 %130, %131
  %133 = mul i64 %132, 4
  %134 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %63, 1
  %135 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %63, 2
  %136 = getelementptr float, ptr %134, i64 %135
  %137 = getelementptr float, ptr %12, i64 %124
  call void @llvm.memcpy.p0.p0.i64(ptr %137, ptr %136, i64 %133, i1 false)
  br label %184

138:                                              ; preds = %116
  %139 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %63, 1
  %140 = mul nsw i64 %25, 16384
  %141 = mul nsw i64 %27, 512
  %142 = add nsw i64 %140, %141
  %143 = mul nsw i64 %24, 16
  %144 = add nsw i64 %142, %143
  br label %145

145:                                              ; preds = %181, %138
  %146 = phi i64 [ %182, %181 ], [ 0, %138 ]
  %147 = icmp slt i64 %146, %31
  br i1 %147, label %148, label %183

148:                                              ; preds = %145
  br label %149

149:                                              ; preds = %179, %148
  %150 = phi i64 [ %180, %179 ], [ 0, %148 ]
  %151 = icmp slt i64 %150, %33
  br i1 %151, label %152, label %181

152:                                              ; preds = %149
  br label %153

153:                                              ; preds = %177, %152
  %154 = phi i64 [ %178, %177 ], [ 0, %152 ]
  %155 = icmp slt i64 %154, %29
  br i1 %155, label %156, label %179

156:                                              ; preds = %153
  br label %157

157:                                              ; preds = %160, %156
  %158 = phi i64 [ %176, %160 ], [ 0, %156 ]
  %159 = icmp slt i64 %158, 16
  br i1 %159, label %160, label %177

160:                                              ; preds = %157
  %161 = mul nuw nsw i64 %146, 16
  %162 = mul nuw nsw i64 %150, 16
  %163 = add nuw nsw i64 %161, %162
  %164 = mul nuw nsw i64 %154, 16
  %165 = add nuw nsw i64 %163, %164
  %166 = add nuw nsw i64 %165, %158
  %167 = getelementptr inbounds nuw float, ptr %139, i64 %166
  %168 = load float, ptr %167, align 4
  %169 = getelementptr float, ptr %12, i64 %144
  %170 = mul nuw nsw i64 %146, 16384
  %171 = mul nuw nsw i64 %150, 512
  %172 = add nuw nsw i64 %170, %171
  %173 = add nuw nsw i64 %172, %164
  %174 = add nuw nsw i64 %173, %158
  %175 = getelementptr inbounds nuw float, ptr %169, i64 %174
  store float %168, ptr %175, align 4
  %176 = add i64 %158, 1
  br label %157

177:                                              ; preds = %157
  %178 = add i64 %154, 1
  br label %153

179:                                              ; preds = %153
  %180 = add i64 %150, 1
  br label %149

181:                                              ; preds = %149
  %182 = add i64 %146, 1
  br label %145

183:                                              ; preds = %145
  br label %184

184:                                              ; preds = %119, %183
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
!1 = !{i32 1, !"xla_dylib_index", i64 23}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
