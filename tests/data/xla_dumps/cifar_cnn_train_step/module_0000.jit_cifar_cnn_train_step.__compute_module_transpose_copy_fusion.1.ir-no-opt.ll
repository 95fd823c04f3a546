; ModuleID = '__compute_module___compute_module_transpose_copy_fusion.1'
source_filename = "__compute_module___compute_module_transpose_copy_fusion.1"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

define ptr @transpose_copy_fusion.1(ptr %0) {
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
  %13 = mul nuw nsw i64 %12, 256
  %14 = call i64 @llvm.smin.i64(i64 %13, i64 512)
  %15 = add nuw nsw i64 %13, 256
  %16 = call i64 @llvm.smin.i64(i64 %15, i64 512)
  br label %17

17:                                               ; preds = %20, %1
  %18 = phi i64 [ %21, %20 ], [ %14, %1 ]
  %19 = icmp slt i64 %18, %16
  br i1 %19, label %20, label %22

20:                                               ; preds = %17
  call void @transpose_copy_fusion.1_impl(ptr %5, ptr %5, i64 0, i64 32, i64 16, i64 16, i64 16, i64 4096, i64 256, i64 16, i64 1, ptr %7, ptr %7, i64 0, i64 16, i64 16, i64 16, i64 32, i64 8192, i64 512, i64 32, i64 1, i64 %18)
  %21 = add i64 %18, 1
  br label %17

22:                                               ; preds = %17
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @transpose_copy_fusion.1_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, i64 %10, ptr %11, ptr %12, i64 %13, i64 %14, i64 %15, i64 %16, i64 %17, i64 %18, i64 %19, i64 %20, i64 %21, i64 %22) #0 {
  %24 = urem i64 %22, 2
  %25 = mul nsw i64 %24, 16
  %26 = udiv i64 %22, 32
  %27 = udiv i64 %22, 2
  %28 = urem i64 %27, 16
  %29 = sub i64 32, %25
  %30 = call i64 @llvm.smin.i64(i64 %29, i64 16)
  %31 = sub i64 16, %26
  %32 = call i64 @llvm.smin.i64(i64 %31, i64 1)
  %33 = sub i64 16, %28
  %34 = call i64 @llvm.smin.i64(i64 %33, i64 1)
  %35 = icmp eq i64 %30, 16
  %36 = icmp eq i64 %32, 1
  %37 = and i1 %35, %36
  %38 = icmp eq i64 %34, 1
  %39 = and i1 %37, %38
  %40 = alloca float, i64 256, align 4
  %41 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } poison, ptr %40, 0
  %42 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %41, ptr %40, 1
  %43 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %42, i64 0, 2
  %44 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %43, i64 16, 3, 0
  %45 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %44, i64 1, 3, 1
  %46 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %45, i64 1, 3, 2
  %47 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %46, i64 16, 3, 3
  %48 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %47, i64 16, 4, 0
  %49 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %48, i64 16, 4, 1
  %50 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %49, i64 16, 4, 2
  %51 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %50, i64 1, 4, 3
  %52 = alloca float, i64 256, align 4
  %53 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } poison, ptr %52, 0
  %54 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %53, ptr %52, 1
  %55 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %54, i64 0, 2
  %56 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %55, i64 16, 3, 0
  %57 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %56, i64 1, 3, 1
  %58 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %57, i64 1, 3, 2
  %59 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %58, i64 16, 3, 3
  %60 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %59, i64 16, 4, 0
  %61 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %60, i64 16, 4, 1
  %62 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %61, i64 16, 4, 2
  %63 = insertvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %62, i64 1, 4, 3
  %64 = select i1 %39, { ptr, ptr, i64, [4 x i64], [4 x i64] } %51, { ptr, ptr, i64, [4 x i64], [4 x i64] } %63
  br i1 %39, label %65, label %95

65:                                               ; preds = %23
  %66 = mul nsw i64 %24, 65536
  %67 = mul nsw i64 %26, 256
  %68 = add nsw i64 %66, %67
  %69 = mul nsw i64 %28, 16
  %70 = add nsw i64 %68, %69
  br label %71

71:                                               ; preds = %92, %65
  %72 = phi i64 [ %93, %92 ], [ 0, %65 ]
  %73 = icmp slt i64 %72, 16
  br i1 %73, label %74, label %94

74:                                               ; preds = %71
  br label %75

75:                                               ; preds = %78, %74
  %76 = phi i64 [ %91, %78 ], [ 0, %74 ]
  %77 = icmp slt i64 %76, 16
  br i1 %77, label %78, label %92

78:                                               ; preds = %75
  %79 = getelementptr float, ptr %1, i64 %70
  %80 = mul nuw nsw i64 %72, 4096
  %81 = add nuw nsw i64 %80, 0
  %82 = add nuw nsw i64 %81, 0
  %83 = add nuw nsw i64 %82, %76
  %84 = getelementptr inbounds nuw float, ptr %79, i64 %83
  %85 = load float, ptr %84, align 4
  %86 = mul nuw nsw i64 %72, 16
  %87 = add nuw nsw i64 %86, 0
  %88 = add nuw nsw i64 %87, 0
  %89 = add nuw nsw i64 %88, %76
  %90 = getelementptr inbounds nuw float, ptr %40, i64 %89
  store float %85, ptr %90, align 4
  %91 = add i64 %76, 1
  br label %75

92:                                               ; preds = %75
  %93 = add i64 %72, 1
  br label %71

94:                                               ; preds = %71, %101
  br label %139

95:                                               ; preds = %23
  %96 = mul nsw i64 %24, 65536
  %97 = mul nsw i64 %26, 256
  %98 = add nsw i64 %96, %97
  %99 = mul nsw i64 %28, 16
  %100 = add nsw i64 %98, %99
  br label %101

101:                                              ; preds = %137, %95
  %102 = phi i64 [ %138, %137 ], [ 0, %95 ]
  %103 = icmp slt i64 %102, %30
  br i1 %103, label %104, label %94

104:                                              ; preds = %101
  br label %105

105:                                              ; preds = %135, %104
  %106 = phi i64 [ %136, %135 ], [ 0, %104 ]
  %107 = icmp slt i64 %106, %32
  br i1 %107, label %108, label %137

108:                                              ; preds = %105
  br label %109

109:                                              ; preds = %133, %108
  %110 = phi i64 [ %134, %133 ], [ 0, %108 ]
  %111 = icmp slt i64 %110, %34
  br i1 %111, label %112, label %135

112:                                              ; preds = %109
  br label %113

113:                                              ; preds = %116, %112
  %114 = phi i64 [ %132, %116 ], [ 0, %112 ]
  %115 = icmp slt i64 %114, 16
  br i1 %115, label %116, label %133

116:                                              ; preds = %113
  %117 = getelementptr float, ptr %1, i64 %100
  %118 = mul nuw nsw i64 %102, 4096
  %119 = mul nuw nsw i64 %106, 256
  %120 = add nuw nsw i64 %118, %119
  %121 = mul nuw nsw i64 %110, 16
  %122 = add nuw nsw i64 %120, %121
  %123 = add nuw nsw i64 %122, %114
  %124 = getelementptr inbounds nuw float, ptr %117, i64 %123
  %125 = load float, ptr %124, align 4
  %126 = mul nuw nsw i64 %102, 16
  %127 = mul nuw nsw i64 %106, 16
  %128 = add nuw nsw i64 %126, %127
  %129 = add nuw nsw i64 %128, %121
  %130 = add nuw nsw i64 %129, %114
  %131 = getelementptr inbounds nuw float, ptr %52, i64 %130
  store float %125, ptr %131, align 4
  %132 = add i64 %114, 1
  br label %113

133:                                              ; preds = %113
  %134 = add i64 %110, 1
  br label %109

135:                                              ; preds = %109
  %136 = add i64 %106, 1
  br label %105

137:                                              ; preds = %105
  %138 = add i64 %102, 1
  br label %101

139:                                              ; preds = %94
  %140 = alloca float, i64 256, align 64
  br label %141

141:                                              ; preds = %171, %139
  %142 = phi i64 [ %172, %171 ], [ 0, %139 ]
  %143 = icmp slt i64 %142, 16
  br i1 %143, label %144, label %173

144:                                              ; preds = %141
  %145 = mul i64 %142, 16
  %146 = add i64 %145, 0
  %147 = add i64 %146, 0
  br label %148

148:                                              ; preds = %167, %144
  %149 = phi i64 [ %170, %167 ], [ 0, %144 ]
  %150 = icmp slt i64 %149, 16
  br i1 %150, label %151, label %171

151:                                              ; preds = %148
  br label %152

152:                                              ; preds = %156, %151
  %153 = phi i64 [ %166, %156 ], [ 0, %151 ]
  %154 = phi <8 x float> [ %165, %156 ], [ poison, %151 ]
  %155 = icmp slt i64 %153, 8
  br i1 %155, label %156, label %167

156:                                              ; preds = %152
  %157 = add nsw i64 %149, %153
  %158 = extractvalue { ptr, ptr, i64, [4 x i64], [4 x i64] } %64, 1
  %159 = mul nuw nsw i64 %157, 16
  %160 = add nuw nsw i64 %159, 0
  %161 = add nuw nsw i64 %160, 0
  %162 = add nuw nsw i64 %161, %142
  %163 = getelementptr inbounds nuw float, ptr %158, i64 %162
  %164 = load float, ptr %163, align 4
  %165 = insertelement <8 x float> %154, float %164, i64 %153
  %166 = add i64 %153, 1
  br label %152

167:                                              ; preds = %152
  %168 = add i64 %147, %149
  %169 = getelementptr float, ptr %140, i64 %168
  store <8 x float> %154, ptr %169, align 4
  %170 = add i64 %149, 8
  br label %148

171:                                              ; preds = %148
  %172 = add i64 %142, 1
  br label %141

173:                                              ; preds = %141
  %174 = and i1 %36, %38
  %175 = and i1 %174, %35
  br i1 %175, label %176, label %205

176:                                              ; preds = %173
  %177 = mul nsw i64 %26, 512
  %178 = mul nsw i64 %28, 32
  %179 = add nsw i64 %177, %178
  %180 = add nsw i64 %179, %25
  br label %181

181:                                              ; preds = %202, %176
  %182 = phi i64 [ %203, %202 ], [ 0, %176 ]
  %183 = icmp slt i64 %182, 16
  br i1 %183, label %184, label %204

184:                                              ; preds = %181
  br label %185

185:                                              ; preds = %188, %184
  %186 = phi i64 [ %201, %188 ], [ 0, %184 ]
  %187 = icmp slt i64 %186, 16
  br i1 %187, label %188, label %202

188:                                              ; preds = %185
  %189 = mul nuw nsw i64 %182, 16
  %190 = add nuw nsw i64 %189, 0
  %191 = add nuw nsw i64 %190, 0
  %192 = add nuw nsw i64 %191, %186
  %193 = getelementptr inbounds nuw float, ptr %140, i64 %192
  %194 = load float, ptr %193, align 4
  %195 = getelementptr float, ptr %12, i64 %180
  %196 = mul nuw nsw i64 %182, 8192
  %197 = add nuw nsw i64 %196, 0
  %198 = add nuw nsw i64 %197, 0
  %199 = add nuw nsw i64 %198, %186
  %200 = getelementptr inbounds nuw float, ptr %195, i64 %199
  store float %194, ptr %200, align 4
  %201 = add i64 %186, 1
  br label %185

202:                                              ; preds = %185
  %203 = add i64 %182, 1
  br label %181

204:                                              ; preds = %181, %210
  br label %249

205:                                              ; preds = %173
  %206 = mul nsw i64 %26, 512
  %207 = mul nsw i64 %28, 32
  %208 = add nsw i64 %206, %207
  %209 = add nsw i64 %208, %25
  br label %210

210:                                              ; preds = %247, %205
  %211 = phi i64 [ %248, %247 ], [ 0, %205 ]
  %212 = icmp slt i64 %211, 16
  br i1 %212, label %213, label %204

213:                                              ; preds = %210
  br label %214

214:                                              ; preds = %245, %213
  %215 = phi i64 [ %246, %245 ], [ 0, %213 ]
  %216 = icmp slt i64 %215, %32
  br i1 %216, label %217, label %247

217:                                              ; preds = %214
  br label %218

218:                                              ; preds = %243, %217
  %219 = phi i64 [ %244, %243 ], [ 0, %217 ]
  %220 = icmp slt i64 %219, %34
  br i1 %220, label %221, label %245

221:                                              ; preds = %218
  br label %222

222:                                              ; preds = %225, %221
  %223 = phi i64 [ %242, %225 ], [ 0, %221 ]
  %224 = icmp slt i64 %223, %30
  br i1 %224, label %225, label %243

225:                                              ; preds = %222
  %226 = mul nuw nsw i64 %211, 16
  %227 = mul nuw nsw i64 %215, 16
  %228 = add nuw nsw i64 %226, %227
  %229 = mul nuw nsw i64 %219, 16
  %230 = add nuw nsw i64 %228, %229
  %231 = add nuw nsw i64 %230, %223
  %232 = getelementptr inbounds nuw float, ptr %140, i64 %231
  %233 = load float, ptr %232, align 4
  %234 = getelementptr float, ptr %12, i64 %209
  %235 = mul nuw nsw i64 %211, 8192
  %236 = mul nuw nsw i64 %215, 512
  %237 = add nuw nsw i64 %235, %236
  %238 = mul nuw nsw i64 %219, 32
  %239 = add nuw nsw i64 %237, %238
  %240 = add nuw nsw i64 %239, %223
  %241 = getelementptr inbounds nuw float, ptr %234, i64 %240
  store float %233, ptr %241, align 4
  %242 = add i64 %223, 1
  br label %222

243:                                              ; preds = %222
  %244 = add i64 %219, 1
  br label %218

245:                                              ; preds = %218
  %246 = add i64 %215, 1
  br label %214

247:                                              ; preds = %214
  %248 = add i64 %211, 1
  br label %210

249:                                              ; preds = %204
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
!1 = !{i32 1, !"xla_dylib_index", i64 22}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
