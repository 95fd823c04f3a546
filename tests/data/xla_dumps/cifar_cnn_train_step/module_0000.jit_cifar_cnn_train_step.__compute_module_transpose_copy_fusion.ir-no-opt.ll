; ModuleID = '__compute_module___compute_module_transpose_copy_fusion'
source_filename = "__compute_module___compute_module_transpose_copy_fusion"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

define ptr @transpose_copy_fusion(ptr %0) {
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
  %13 = mul nuw nsw i64 %12, 8192
  %14 = call i64 @llvm.smin.i64(i64 %13, i64 16384)
  %15 = add nuw nsw i64 %13, 8192
  %16 = call i64 @llvm.smin.i64(i64 %15, i64 16384)
  br label %17

17:                                               ; preds = %20, %1
  %18 = phi i64 [ %21, %20 ], [ %14, %1 ]
  %19 = icmp slt i64 %18, %16
  br i1 %19, label %20, label %22

20:                                               ; preds = %17
  call void @transpose_copy_fusion_impl(ptr %5, ptr %5, i64 0, i64 32, i64 16, i64 16, i64 32, i64 8192, i64 512, i64 32, i64 1, ptr %7, ptr %7, i64 0, i64 16, i64 16, i64 32, i64 32, i64 16384, i64 1024, i64 32, i64 1, i64 %18)
  %21 = add i64 %18, 1
  br label %17

22:                                               ; preds = %17
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @transpose_copy_fusion_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, i64 %10, ptr %11, ptr %12, i64 %13, i64 %14, i64 %15, i64 %16, i64 %17, i64 %18, i64 %19, i64 %20, i64 %21, i64 %22) #0 {
  %24 = udiv i64 %22, 2
  %25 = urem i64 %24, 32
  %26 = udiv i64 %22, 1024
  %27 = udiv i64 %22, 64
  %28 = urem i64 %27, 16
  %29 = urem i64 %22, 2
  %30 = mul nsw i64 %29, 16
  %31 = sub i64 32, %25
  %32 = call i64 @llvm.smin.i64(i64 %31, i64 1)
  %33 = sub i64 16, %26
  %34 = call i64 @llvm.smin.i64(i64 %33, i64 1)
  %35 = sub i64 16, %28
  %36 = call i64 @llvm.smin.i64(i64 %35, i64 1)
  %37 = sub i64 32, %30
  %38 = call i64 @llvm.smin.i64(i64 %37, i64 16)
  %39 = icmp eq i64 %32, 1
  %40 = icmp eq i64 %34, 1
  %41 = and i1 %39, %40
  %42 = icmp eq i64 %36, 1
  %43 = and i1 %41, %42
  %44 = icmp eq i64 %38, 16
  %45 = and i1 %43, %44
  %46 = alloca float, i64 16, align 4
  %47 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } poison, ptr %46, 0
  %48 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %47, ptr %46, 1
  %49 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %48, i64 0, 2
  %50 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %49, i64 1, 3, 0
  %51 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %50, i64 1, 3, 1
  %52 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %51, i64 1, 3, 2
  %53 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %52, i64 16, 3, 3
  %54 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %53, i64 16, 4, 0
  %55 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %54, i64 16, 4, 1
  %56 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %55, i64 16, 4, 2
  %57 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %56, i64 1, 4, 3
  %58 = alloca float, i64 16, align 4
  %59 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } poison, ptr %58, 0
  %60 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %59, ptr %58, 1
  %61 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %60, i64 0, 2
  %62 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %61, i64 1, 3, 0
  %63 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %62, i64 1, 3, 1
  %64 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %63, i64 1, 3, 2
  %65 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %64, i64 16, 3, 3
  %66 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %65, i64 16, 4, 0
  %67 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %66, i64 16, 4, 1
  %68 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %67, i64 16, 4, 2
  %69 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %68, i64 1, 4, 3
  %70 = select i1 %45, { ptr, ptr, i64, [4 x i64], [4 x i64] } %57, { ptr, ptr, i64, [4 x i64], [4 x i64] } %69
  br i1 %45, label %71, label %79

71:                                               ; preds = %23
  %72 = mul nsw i64 %25, 8192
  %73 = mul nsw i64 %26, 512
  %74 = add nsw i64 %72, %73
  %75 = mul nsw i64 %28, 32
  %76 = add nsw i64 %74, %75
  %77 = add nsw i64 %76, %30
  %78 = getelementptr float, ptr %1, i64 %77
  call void @llvm.memcpy.p0.p0.i64(ptr %46, ptr %78, i64 64, i1 false)
  br label %126

79:                                               ; preds = %23
  %80 = mul nsw i64 %25, 8192
  %81 = mul nsw i64 %26, 512
  %82 = add nsw i64 %80, %81
  %83 = mul nsw i64 %28, 32
  %84 = add nsw i64 %82, %83
  %85 = add nsw i64 %84, %30
  br label %86

86:                                               ; preds = %123, %79
  %87 = phi i64 [ %124, %123 ], [ 0, %79 ]
  %88 = icmp slt i64 %87, %32
  br i1 %88, label %89, label %125

89:                                               ; preds = %86
  br label %90

90:                                               ; preds = %121, %89
  %91 = phi i64 [ %122, %121 ], [ 0, %89 ]
  %92 = icmp slt i64 %91, %34
  br i1 %92, label %93, label %123

93:                                               ; preds = %90
  br label %94

94:                                               ; preds = %119, %93
  %95 = phi i64 [ %120, %119 ], [ 0, %93 ]
  %96 = icmp slt i64 %95, %36
  br i1 %96, label %97, label %121

97:                                               ; preds = %94
  br label %98

98:                                               ; preds = %101, %97
  %99 = phi i64 [ %118, %101 ], [ 0, %97 ]
  %100 = icmp slt i64 %99, %38
  br i1 %100, label %101, label %119

101:                                              ; preds = %98
  %102 = getelementptr float, ptr %1, i64 %85
  %103 = mul nuw nsw i64 %87, 8192
  %104 = mul nuw nsw i64 %91, 512
  %105 = add nuw nsw i64 %103, %104
  %106 = mul nuw nsw i64 %95, 32
  %107 = add nuw nsw i64 %105, %106
  %108 = add nuw nsw i64 %107, %99
  %109 = getelementptr inbounds nuw float, ptr %102, i64 %108
  %110 = load float, ptr %109, align 4
  %111 = mul nuw nsw i64 %87, 16
  %112 = mul nuw nsw i64 %91, 16
  %113 = add nuw nsw i64 %111, %112
  %114 = mul nuw nsw i64 %95, 16
  %115 = add nuw nsw i64 %113, %114
  %116 = add nuw nsw i64 %115, %99
  %117 = getelementptr inbounds nuw float, ptr %58, i64 %116
  store float %110, ptr %117, align 4
  %118 = add i64 %99, 1
  br label %98

119:                                              ; preds = %98
  %120 = add i64 %95, 1
  br label %94

121:                                              ; preds = %94
  %122 = add i64 %91, 1
  br label %90

123:                                              ; preds = %90
  %124 = add i64 %87, 1
  br label %86

125:                                              ; preds = %86
  br label %126

126:                                              ; preds = %71, %125
  %127 = and i1 %40, %42
  %128 = and i1 %127, %39
  %129 = and i1 %128, %44
  br i1 %129, label %130, label %150

130:                                              ; preds = %126
  %131 = mul nsw i64 %26, 16384
  %132 = mul nsw i64 %28, 1024
  %133 = add nsw i64 %131, %132
  %134 = mul nsw i64 %25, 32
  %135 = add nsw i64 %133, %134
  %136 = add nsw i64 %135, %30
  %137 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %70, 3, 0
  %138 = mul i64 %137, 1
  %139 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %70, 3, 1
  %140 = mul i64 %138, %139
  %141 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %70, 3, 2
  %142 = mul i64 %140, %141
  %143 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %70, 3, 3
  %144 = mul i64 %142, %143
  %145 = mul i64 %144, 4
  %146 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %70, 1
  %147 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %70, 2
  %148 = getelementptr float, ptr %146, i64 %147
  %149 = getelementptr float, ptr %12, i64 %136
  call void @llvm.memcpy.p0.p0.i64(ptr %149, ptr %148, i64 %145, i1 false)
  br label %198

150:                                              ; preds = %126
  %151 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %70, 1
  %152 = mul nsw i64 %26, 16384
  %153 = mul nsw i64 %28, 1024
  %154 = add nsw i64 %152, %153
  %155 = mul nsw i64 %25, 32
  %156 = add nsw i64 %154, %155
  %157 = add nsw i64 %156, %30
  br label %158

158:                                              ; preds = %195, %150
  %159 = phi i64 [ %196, %195 ], [ 0, %150 ]
  %160 = icmp slt i64 %159, %34
  br i1 %160, label %161, label %197

161:                                              ; preds = %158
  br label %162

162:                                              ; preds = %193, %161
  %163 = phi i64 [ %194, %193 ], [ 0, %161 ]
  %164 = icmp slt i64 %163, %36
  br i1 %164, label %165, label %195

165:                                              ; preds = %162
  br label %166

166:                                              ; preds = %191, %165
  %167 = phi i64 [ %192, %191 ], [ 0, %165 ]
  %168 = icmp slt i64 %167, %32
  br i1 %168, label %169, label %193

169:                                              ; preds = %166
  br label %170

170:                                              ; preds = %173, %169
  %171 = phi i64 [ %190, %173 ], [ 0, %169 ]
  %172 = icmp slt i64 %171, %38
  br i1 %172, label %173, label %191

173:                                              ; preds = %170
  %174 = mul nuw nsw i64 %159, 16
  %175 = mul nuw nsw i64 %163, 16
  %176 = add nuw nsw i64 %174, %175
  %177 = mul nuw nsw i64 %167, 16
  %178 = add nuw nsw i64 %176, %177
  %179 = add nuw nsw i64 %178, %171
  %180 = getelementptr inbounds nuw float, ptr %151, i64 %179
  %181 = load float, ptr %180, align 4
  %182 = getelementptr float, ptr %12, i64 %157
  %183 = mul nuw nsw i64 %159, 16384
  %184 = mul nuw nsw i64 %163, 1024
  %185 = add nuw nsw i64 %183, %184
  %186 = mul nuw nsw i64 %167, 32
  %187 = add nuw nsw i64 %185, %186
  %188 = add nuw nsw i64 %187, %171
  %189 = getelementptr inbounds nuw float, ptr %182, i64 %188
  store float %181, ptr %189, align 4
  %190 = add i64 %171, 1
  br label %170

191:                                              ; preds = %170
  %192 = add i64 %167, 1
  br label %166

193:                                              ; preds = %166
  %194 = add i64 %163, 1
  br label %162

195:                                              ; preds = %162
  %196 = add i64 %159, 1
  br label %158

197:                                              ; preds = %158
  br label %198

198:                                              ; preds = %130, %197
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
!1 = !{i32 1, !"xla_dylib_index", i64 21}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
