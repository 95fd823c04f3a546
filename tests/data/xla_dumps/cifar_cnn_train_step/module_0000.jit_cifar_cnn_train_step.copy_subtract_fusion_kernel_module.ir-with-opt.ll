; ModuleID = '__compute_module_copy_subtract_fusion_kernel_module'
source_filename = "__compute_module_copy_subtract_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @copy_subtract_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !4
  %7 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %8 = load ptr, ptr %7, align 8, !invariant.load !3, !dereferenceable !4
  tail call void @llvm.experimental.noalias.scope.decl(metadata !5)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !8)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !10)
  br label %9

9:                                                ; preds = %1, %280
  %10 = phi i64 [ 0, %1 ], [ %281, %280 ]
  %11 = mul nuw nsw i64 %10, 1536
  %.idx = mul nuw nsw i64 %10, 384
  %12 = getelementptr i8, ptr %6, i64 %.idx
  br label %13

13:                                               ; preds = %9, %278
  %14 = phi i64 [ 0, %9 ], [ %279, %278 ]
  %15 = shl nuw nsw i64 %14, 9
  %16 = add nuw nsw i64 %15, %11
  %.idx1 = shl nuw nsw i64 %14, 7
  %17 = getelementptr i8, ptr %12, i64 %.idx1
  br label %18

18:                                               ; preds = %13, %18
  %19 = phi i64 [ 0, %13 ], [ %277, %18 ]
  %20 = shl nuw nsw i64 %19, 5
  %21 = add nuw nsw i64 %20, %16
  %.idx2 = mul nuw nsw i64 %19, 1152
  %22 = getelementptr i8, ptr %17, i64 %.idx2
  %23 = load float, ptr %22, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %24 = fmul float %23, f0x3C23D70A
  %25 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %21
  %26 = load float, ptr %25, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %27 = fsub float %26, %24
  %28 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %21
  store float %27, ptr %28, align 4, !alias.scope !10, !noalias !14
  %29 = getelementptr i8, ptr %22, i64 4
  %30 = load float, ptr %29, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %31 = fmul float %30, f0x3C23D70A
  %32 = or disjoint i64 %21, 1
  %33 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %32
  %34 = load float, ptr %33, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %35 = fsub float %34, %31
  %36 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %32
  store float %35, ptr %36, align 4, !alias.scope !10, !noalias !14
  %37 = getelementptr i8, ptr %22, i64 8
  %38 = load float, ptr %37, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %39 = fmul float %38, f0x3C23D70A
  %40 = or disjoint i64 %21, 2
  %41 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %40
  %42 = load float, ptr %41, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %43 = fsub float %42, %39
  %44 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %40
  store float %43, ptr %44, align 4, !alias.scope !10, !noalias !14
  %45 = getelementptr i8, ptr %22, i64 12
  %46 = load float, ptr %45, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %47 = fmul float %46, f0x3C23D70A
  %48 = or disjoint i64 %21, 3
  %49 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %48
  %50 = load float, ptr %49, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %51 = fsub float %50, %47
  %52 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %48
  store float %51, ptr %52, align 4, !alias.scope !10, !noalias !14
  %53 = getelementptr i8, ptr %22, i64 16
  %54 = load float, ptr %53, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %55 = fmul float %54, f0x3C23D70A
  %56 = or disjoint i64 %21, 4
  %57 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %56
  %58 = load float, ptr %57, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %59 = fsub float %58, %55
  %60 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %56
  store float %59, ptr %60, align 4, !alias.scope !10, !noalias !14
  %61 = getelementptr i8, ptr %22, i64 20
  %62 = load float, ptr %61, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %63 = fmul float %62, f0x3C23D70A
  %64 = or disjoint i64 %21, 5
  %65 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %64
  %66 = load float, ptr %65, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %67 = fsub float %66, %63
  %68 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %64
  store float %67, ptr %68, align 4, !alias.scope !10, !noalias !14
  %69 = getelementptr i8, ptr %22, i64 24
  %70 = load float, ptr %69, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %71 = fmul float %70, f0x3C23D70A
  %72 = or disjoint i64 %21, 6
  %73 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %72
  %74 = load float, ptr %73, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %75 = fsub float %74, %71
  %76 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %72
  store float %75, ptr %76, align 4, !alias.scope !10, !noalias !14
  %77 = getelementptr i8, ptr %22, i64 28
  %78 = load float, ptr %77, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %79 = fmul float %78, f0x3C23D70A
  %80 = or disjoint i64 %21, 7
  %81 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %80
  %82 = load float, ptr %81, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %83 = fsub float %82, %79
  %84 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %80
  store float %83, ptr %84, align 4, !alias.scope !10, !noalias !14
  %85 = getelementptr i8, ptr %22, i64 32
  %86 = load float, ptr %85, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %87 = fmul float %86, f0x3C23D70A
  %88 = or disjoint i64 %21, 8
  %89 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %88
  %90 = load float, ptr %89, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %91 = fsub float %90, %87
  %92 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %88
  store float %91, ptr %92, align 4, !alias.scope !10, !noalias !14
  %93 = getelementptr i8, ptr %22, i64 36
  %94 = load float, ptr %93, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %95 = fmul float %94, f0x3C23D70A
  %96 = or disjoint i64 %21, 9
  %97 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %96
  %98 = load float, ptr %97, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %99 = fsub float %98, %95
  %100 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %96
  store float %99, ptr %100, align 4, !alias.scope !10, !noalias !14
  %101 = getelementptr i8, ptr %22, i64 40
  %102 = load float, ptr %101, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %103 = fmul float %102, f0x3C23D70A
  %104 = or disjoint i64 %21, 10
  %105 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %104
  %106 = load float, ptr %105, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %107 = fsub float %106, %103
  %108 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %104
  store float %107, ptr %108, align 4, !alias.scope !10, !noalias !14
  %109 = getelementptr i8, ptr %22, i64 44
  %110 = load float, ptr %109, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %111 = fmul float %110, f0x3C23D70A
  %112 = or disjoint i64 %21, 11
  %113 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %112
  %114 = load float, ptr %113, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %115 = fsub float %114, %111
  %116 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %112
  store float %115, ptr %116, align 4, !alias.scope !10, !noalias !14
  %117 = getelementptr i8, ptr %22, i64 48
  %118 = load float, ptr %117, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %119 = fmul float %118, f0x3C23D70A
  %120 = or disjoint i64 %21, 12
  %121 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %120
  %122 = load float, ptr %121, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %123 = fsub float %122, %119
  %124 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %120
  store float %123, ptr %124, align 4, !alias.scope !10, !noalias !14
  %125 = getelementptr i8, ptr %22, i64 52
  %126 = load float, ptr %125, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %127 = fmul float %126, f0x3C23D70A
  %128 = or disjoint i64 %21, 13
  %129 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %128
  %130 = load float, ptr %129, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %131 = fsub float %130, %127
  %132 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %128
  store float %131, ptr %132, align 4, !alias.scope !10, !noalias !14
  %133 = getelementptr i8, ptr %22, i64 56
  %134 = load float, ptr %133, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %135 = fmul float %134, f0x3C23D70A
  %136 = or disjoint i64 %21, 14
  %137 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %136
  %138 = load float, ptr %137, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %139 = fsub float %138, %135
  %140 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %136
  store float %139, ptr %140, align 4, !alias.scope !10, !noalias !14
  %141 = getelementptr i8, ptr %22, i64 60
  %142 = load float, ptr %141, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %143 = fmul float %142, f0x3C23D70A
  %144 = or disjoint i64 %21, 15
  %145 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %144
  %146 = load float, ptr %145, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %147 = fsub float %146, %143
  %148 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %144
  store float %147, ptr %148, align 4, !alias.scope !10, !noalias !14
  %149 = getelementptr i8, ptr %22, i64 64
  %150 = load float, ptr %149, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %151 = fmul float %150, f0x3C23D70A
  %152 = or disjoint i64 %21, 16
  %153 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %152
  %154 = load float, ptr %153, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %155 = fsub float %154, %151
  %156 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %152
  store float %155, ptr %156, align 4, !alias.scope !10, !noalias !14
  %157 = getelementptr i8, ptr %22, i64 68
  %158 = load float, ptr %157, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %159 = fmul float %158, f0x3C23D70A
  %160 = or disjoint i64 %21, 17
  %161 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %160
  %162 = load float, ptr %161, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %163 = fsub float %162, %159
  %164 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %160
  store float %163, ptr %164, align 4, !alias.scope !10, !noalias !14
  %165 = getelementptr i8, ptr %22, i64 72
  %166 = load float, ptr %165, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %167 = fmul float %166, f0x3C23D70A
  %168 = or disjoint i64 %21, 18
  %169 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %168
  %170 = load float, ptr %169, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %171 = fsub float %170, %167
  %172 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %168
  store float %171, ptr %172, align 4, !alias.scope !10, !noalias !14
  %173 = getelementptr i8, ptr %22, i64 76
  %174 = load float, ptr %173, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %175 = fmul float %174, f0x3C23D70A
  %176 = or disjoint i64 %21, 19
  %177 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %176
  %178 = load float, ptr %177, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %179 = fsub float %178, %175
  %180 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %176
  store float %179, ptr %180, align 4, !alias.scope !10, !noalias !14
  %181 = getelementptr i8, ptr %22, i64 80
  %182 = load float, ptr %181, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %183 = fmul float %182, f0x3C23D70A
  %184 = or disjoint i64 %21, 20
  %185 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %184
  %186 = load float, ptr %185, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %187 = fsub float %186, %183
  %188 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %184
  store float %187, ptr %188, align 4, !alias.scope !10, !noalias !14
  %189 = getelementptr i8, ptr %22, i64 84
  %190 = load float, ptr %189, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %191 = fmul float %190, f0x3C23D70A
  %192 = or disjoint i64 %21, 21
  %193 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %192
  %194 = load float, ptr %193, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %195 = fsub float %194, %191
  %196 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %192
  store float %195, ptr %196, align 4, !alias.scope !10, !noalias !14
  %197 = getelementptr i8, ptr %22, i64 88
  %198 = load float, ptr %197, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %199 = fmul float %198, f0x3C23D70A
  %200 = or disjoint i64 %21, 22
  %201 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %200
  %202 = load float, ptr %201, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %203 = fsub float %202, %199
  %204 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %200
  store float %203, ptr %204, align 4, !alias.scope !10, !noalias !14
  %205 = getelementptr i8, ptr %22, i64 92
  %206 = load float, ptr %205, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %207 = fmul float %206, f0x3C23D70A
  %208 = or disjoint i64 %21, 23
  %209 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %208
  %210 = load float, ptr %209, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %211 = fsub float %210, %207
  %212 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %208
  store float %211, ptr %212, align 4, !alias.scope !10, !noalias !14
  %213 = getelementptr i8, ptr %22, i64 96
  %214 = load float, ptr %213, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %215 = fmul float %214, f0x3C23D70A
  %216 = or disjoint i64 %21, 24
  %217 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %216
  %218 = load float, ptr %217, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %219 = fsub float %218, %215
  %220 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %216
  store float %219, ptr %220, align 4, !alias.scope !10, !noalias !14
  %221 = getelementptr i8, ptr %22, i64 100
  %222 = load float, ptr %221, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %223 = fmul float %222, f0x3C23D70A
  %224 = or disjoint i64 %21, 25
  %225 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %224
  %226 = load float, ptr %225, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %227 = fsub float %226, %223
  %228 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %224
  store float %227, ptr %228, align 4, !alias.scope !10, !noalias !14
  %229 = getelementptr i8, ptr %22, i64 104
  %230 = load float, ptr %229, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %231 = fmul float %230, f0x3C23D70A
  %232 = or disjoint i64 %21, 26
  %233 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %232
  %234 = load float, ptr %233, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %235 = fsub float %234, %231
  %236 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %232
  store float %235, ptr %236, align 4, !alias.scope !10, !noalias !14
  %237 = getelementptr i8, ptr %22, i64 108
  %238 = load float, ptr %237, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %239 = fmul float %238, f0x3C23D70A
  %240 = or disjoint i64 %21, 27
  %241 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %240
  %242 = load float, ptr %241, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %243 = fsub float %242, %239
  %244 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %240
  store float %243, ptr %244, align 4, !alias.scope !10, !noalias !14
  %245 = getelementptr i8, ptr %22, i64 112
  %246 = load float, ptr %245, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %247 = fmul float %246, f0x3C23D70A
  %248 = or disjoint i64 %21, 28
  %249 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %248
  %250 = load float, ptr %249, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %251 = fsub float %250, %247
  %252 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %248
  store float %251, ptr %252, align 4, !alias.scope !10, !noalias !14
  %253 = getelementptr i8, ptr %22, i64 116
  %254 = load float, ptr %253, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %255 = fmul float %254, f0x3C23D70A
  %256 = or disjoint i64 %21, 29
  %257 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %256
  %258 = load float, ptr %257, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %259 = fsub float %258, %255
  %260 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %256
  store float %259, ptr %260, align 4, !alias.scope !10, !noalias !14
  %261 = getelementptr i8, ptr %22, i64 120
  %262 = load float, ptr %261, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %263 = fmul float %262, f0x3C23D70A
  %264 = or disjoint i64 %21, 30
  %265 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %264
  %266 = load float, ptr %265, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %267 = fsub float %266, %263
  %268 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %264
  store float %267, ptr %268, align 4, !alias.scope !10, !noalias !14
  %269 = getelementptr i8, ptr %22, i64 124
  %270 = load float, ptr %269, align 4, !invariant.load !3, !alias.scope !8, !noalias !12
  %271 = fmul float %270, f0x3C23D70A
  %272 = or disjoint i64 %21, 31
  %273 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %272
  %274 = load float, ptr %273, align 4, !invariant.load !3, !alias.scope !5, !noalias !13
  %275 = fsub float %274, %271
  %276 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %272
  store float %275, ptr %276, align 4, !alias.scope !10, !noalias !14
  %277 = add nuw nsw i64 %19, 1
  %exitcond.not = icmp eq i64 %277, 16
  br i1 %exitcond.not, label %278, label %18, !llvm.loop !15

278:                                              ; preds = %18
  %279 = add nuw nsw i64 %14, 1
  %exitcond6.not = icmp eq i64 %279, 3
  br i1 %exitcond6.not, label %280, label %13, !llvm.loop !15

280:                                              ; preds = %278
  %281 = add nuw nsw i64 %10, 1
  %exitcond7.not = icmp eq i64 %281, 3
  br i1 %exitcond7.not, label %copy_subtract_fusion_wrapped.exit, label %9, !llvm.loop !15

copy_subtract_fusion_wrapped.exit:                ; preds = %280
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 11}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 18432}
!5 = !{!6}
!6 = distinct !{!6, !7, !"copy_subtract_fusion_wrapped: argument 0"}
!7 = distinct !{!7, !"copy_subtract_fusion_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"copy_subtract_fusion_wrapped: argument 1"}
!10 = !{!11}
!11 = distinct !{!11, !7, !"copy_subtract_fusion_wrapped: argument 2"}
!12 = !{!6, !11}
!13 = !{!9, !11}
!14 = !{!6, !9}
!15 = distinct !{!15, !16}
!16 = !{!"llvm.loop.unroll.disable"}
