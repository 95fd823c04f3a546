; ModuleID = '__compute_module_broadcast_maximum_fusion_kernel_module'
source_filename = "__compute_module_broadcast_maximum_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @broadcast_maximum_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !4
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  tail call void @llvm.experimental.noalias.scope.decl(metadata !5)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !8)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !10)
  %10 = icmp ult i64 %9, 2
  br i1 %10, label %11, label %broadcast_maximum_fusion_wrapped.exit

11:                                               ; preds = %1
  %12 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %13 = load ptr, ptr %12, align 8, !invariant.load !3, !dereferenceable !12
  %14 = shl nuw nsw i64 %9, 17
  %15 = load float, ptr %13, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %16 = getelementptr inbounds nuw i8, ptr %13, i64 4
  %17 = load float, ptr %16, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %18 = getelementptr inbounds nuw i8, ptr %13, i64 8
  %19 = load float, ptr %18, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %20 = getelementptr inbounds nuw i8, ptr %13, i64 12
  %21 = load float, ptr %20, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %22 = getelementptr inbounds nuw i8, ptr %13, i64 16
  %23 = load float, ptr %22, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %24 = getelementptr inbounds nuw i8, ptr %13, i64 20
  %25 = load float, ptr %24, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %26 = getelementptr inbounds nuw i8, ptr %13, i64 24
  %27 = load float, ptr %26, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %28 = getelementptr inbounds nuw i8, ptr %13, i64 28
  %29 = load float, ptr %28, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %30 = getelementptr inbounds nuw i8, ptr %13, i64 32
  %31 = load float, ptr %30, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %32 = getelementptr inbounds nuw i8, ptr %13, i64 36
  %33 = load float, ptr %32, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %34 = getelementptr inbounds nuw i8, ptr %13, i64 40
  %35 = load float, ptr %34, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %36 = getelementptr inbounds nuw i8, ptr %13, i64 44
  %37 = load float, ptr %36, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %38 = getelementptr inbounds nuw i8, ptr %13, i64 48
  %39 = load float, ptr %38, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %40 = getelementptr inbounds nuw i8, ptr %13, i64 52
  %41 = load float, ptr %40, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %42 = getelementptr inbounds nuw i8, ptr %13, i64 56
  %43 = load float, ptr %42, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %44 = getelementptr inbounds nuw i8, ptr %13, i64 60
  %45 = load float, ptr %44, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %46 = getelementptr inbounds nuw i8, ptr %13, i64 64
  %47 = load float, ptr %46, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %48 = getelementptr inbounds nuw i8, ptr %13, i64 68
  %49 = load float, ptr %48, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %50 = getelementptr inbounds nuw i8, ptr %13, i64 72
  %51 = load float, ptr %50, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %52 = getelementptr inbounds nuw i8, ptr %13, i64 76
  %53 = load float, ptr %52, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %54 = getelementptr inbounds nuw i8, ptr %13, i64 80
  %55 = load float, ptr %54, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %56 = getelementptr inbounds nuw i8, ptr %13, i64 84
  %57 = load float, ptr %56, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %58 = getelementptr inbounds nuw i8, ptr %13, i64 88
  %59 = load float, ptr %58, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %60 = getelementptr inbounds nuw i8, ptr %13, i64 92
  %61 = load float, ptr %60, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %62 = getelementptr inbounds nuw i8, ptr %13, i64 96
  %63 = load float, ptr %62, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %64 = getelementptr inbounds nuw i8, ptr %13, i64 100
  %65 = load float, ptr %64, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %66 = getelementptr inbounds nuw i8, ptr %13, i64 104
  %67 = load float, ptr %66, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %68 = getelementptr inbounds nuw i8, ptr %13, i64 108
  %69 = load float, ptr %68, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %70 = getelementptr inbounds nuw i8, ptr %13, i64 112
  %71 = load float, ptr %70, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %72 = getelementptr inbounds nuw i8, ptr %13, i64 116
  %73 = load float, ptr %72, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %74 = getelementptr inbounds nuw i8, ptr %13, i64 120
  %75 = load float, ptr %74, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  %76 = getelementptr inbounds nuw i8, ptr %13, i64 124
  %77 = load float, ptr %76, align 4, !invariant.load !3, !alias.scope !8, !noalias !13
  br label %78

78:                                               ; preds = %11, %284
  %79 = phi i64 [ 0, %11 ], [ %285, %284 ]
  %80 = shl nuw nsw i64 %79, 13
  %81 = add nuw nsw i64 %80, %14
  br label %82

82:                                               ; preds = %78, %282
  %83 = phi i64 [ 0, %78 ], [ %283, %282 ]
  %84 = shl nuw nsw i64 %83, 9
  %85 = add nuw nsw i64 %84, %81
  br label %86

86:                                               ; preds = %82, %86
  %87 = phi i64 [ 0, %82 ], [ %281, %86 ]
  %88 = shl nuw nsw i64 %87, 5
  %89 = add nuw nsw i64 %88, %85
  %90 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %89
  %91 = load float, ptr %90, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %92 = fadd float %91, %15
  %93 = tail call float @llvm.maximum.f32(float %92, float 0.000000e+00)
  %94 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %89
  store float %93, ptr %94, align 4, !alias.scope !10, !noalias !15
  %95 = or disjoint i64 %89, 1
  %96 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %95
  %97 = load float, ptr %96, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %98 = fadd float %97, %17
  %99 = tail call float @llvm.maximum.f32(float %98, float 0.000000e+00)
  %100 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %95
  store float %99, ptr %100, align 4, !alias.scope !10, !noalias !15
  %101 = or disjoint i64 %89, 2
  %102 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %101
  %103 = load float, ptr %102, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %104 = fadd float %103, %19
  %105 = tail call float @llvm.maximum.f32(float %104, float 0.000000e+00)
  %106 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %101
  store float %105, ptr %106, align 4, !alias.scope !10, !noalias !15
  %107 = or disjoint i64 %89, 3
  %108 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %107
  %109 = load float, ptr %108, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %110 = fadd float %109, %21
  %111 = tail call float @llvm.maximum.f32(float %110, float 0.000000e+00)
  %112 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %107
  store float %111, ptr %112, align 4, !alias.scope !10, !noalias !15
  %113 = or disjoint i64 %89, 4
  %114 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %113
  %115 = load float, ptr %114, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %116 = fadd float %115, %23
  %117 = tail call float @llvm.maximum.f32(float %116, float 0.000000e+00)
  %118 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %113
  store float %117, ptr %118, align 4, !alias.scope !10, !noalias !15
  %119 = or disjoint i64 %89, 5
  %120 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %119
  %121 = load float, ptr %120, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %122 = fadd float %121, %25
  %123 = tail call float @llvm.maximum.f32(float %122, float 0.000000e+00)
  %124 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %119
  store float %123, ptr %124, align 4, !alias.scope !10, !noalias !15
  %125 = or disjoint i64 %89, 6
  %126 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %125
  %127 = load float, ptr %126, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %128 = fadd float %127, %27
  %129 = tail call float @llvm.maximum.f32(float %128, float 0.000000e+00)
  %130 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %125
  store float %129, ptr %130, align 4, !alias.scope !10, !noalias !15
  %131 = or disjoint i64 %89, 7
  %132 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %131
  %133 = load float, ptr %132, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %134 = fadd float %133, %29
  %135 = tail call float @llvm.maximum.f32(float %134, float 0.000000e+00)
  %136 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %131
  store float %135, ptr %136, align 4, !alias.scope !10, !noalias !15
  %137 = or disjoint i64 %89, 8
  %138 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %137
  %139 = load float, ptr %138, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %140 = fadd float %139, %31
  %141 = tail call float @llvm.maximum.f32(float %140, float 0.000000e+00)
  %142 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %137
  store float %141, ptr %142, align 4, !alias.scope !10, !noalias !15
  %143 = or disjoint i64 %89, 9
  %144 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %143
  %145 = load float, ptr %144, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %146 = fadd float %145, %33
  %147 = tail call float @llvm.maximum.f32(float %146, float 0.000000e+00)
  %148 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %143
  store float %147, ptr %148, align 4, !alias.scope !10, !noalias !15
  %149 = or disjoint i64 %89, 10
  %150 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %149
  %151 = load float, ptr %150, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %152 = fadd float %151, %35
  %153 = tail call float @llvm.maximum.f32(float %152, float 0.000000e+00)
  %154 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %149
  store float %153, ptr %154, align 4, !alias.scope !10, !noalias !15
  %155 = or disjoint i64 %89, 11
  %156 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %155
  %157 = load float, ptr %156, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %158 = fadd float %157, %37
  %159 = tail call float @llvm.maximum.f32(float %158, float 0.000000e+00)
  %160 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %155
  store float %159, ptr %160, align 4, !alias.scope !10, !noalias !15
  %161 = or disjoint i64 %89, 12
  %162 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %161
  %163 = load float, ptr %162, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %164 = fadd float %163, %39
  %165 = tail call float @llvm.maximum.f32(float %164, float 0.000000e+00)
  %166 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %161
  store float %165, ptr %166, align 4, !alias.scope !10, !noalias !15
  %167 = or disjoint i64 %89, 13
  %168 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %167
  %169 = load float, ptr %168, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %170 = fadd float %169, %41
  %171 = tail call float @llvm.maximum.f32(float %170, float 0.000000e+00)
  %172 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %167
  store float %171, ptr %172, align 4, !alias.scope !10, !noalias !15
  %173 = or disjoint i64 %89, 14
  %174 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %173
  %175 = load float, ptr %174, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %176 = fadd float %175, %43
  %177 = tail call float @llvm.maximum.f32(float %176, float 0.000000e+00)
  %178 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %173
  store float %177, ptr %178, align 4, !alias.scope !10, !noalias !15
  %179 = or disjoint i64 %89, 15
  %180 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %179
  %181 = load float, ptr %180, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %182 = fadd float %181, %45
  %183 = tail call float @llvm.maximum.f32(float %182, float 0.000000e+00)
  %184 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %179
  store float %183, ptr %184, align 4, !alias.scope !10, !noalias !15
  %185 = or disjoint i64 %89, 16
  %186 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %185
  %187 = load float, ptr %186, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %188 = fadd float %187, %47
  %189 = tail call float @llvm.maximum.f32(float %188, float 0.000000e+00)
  %190 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %185
  store float %189, ptr %190, align 4, !alias.scope !10, !noalias !15
  %191 = or disjoint i64 %89, 17
  %192 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %191
  %193 = load float, ptr %192, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %194 = fadd float %193, %49
  %195 = tail call float @llvm.maximum.f32(float %194, float 0.000000e+00)
  %196 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %191
  store float %195, ptr %196, align 4, !alias.scope !10, !noalias !15
  %197 = or disjoint i64 %89, 18
  %198 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %197
  %199 = load float, ptr %198, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %200 = fadd float %199, %51
  %201 = tail call float @llvm.maximum.f32(float %200, float 0.000000e+00)
  %202 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %197
  store float %201, ptr %202, align 4, !alias.scope !10, !noalias !15
  %203 = or disjoint i64 %89, 19
  %204 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %203
  %205 = load float, ptr %204, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %206 = fadd float %205, %53
  %207 = tail call float @llvm.maximum.f32(float %206, float 0.000000e+00)
  %208 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %203
  store float %207, ptr %208, align 4, !alias.scope !10, !noalias !15
  %209 = or disjoint i64 %89, 20
  %210 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %209
  %211 = load float, ptr %210, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %212 = fadd float %211, %55
  %213 = tail call float @llvm.maximum.f32(float %212, float 0.000000e+00)
  %214 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %209
  store float %213, ptr %214, align 4, !alias.scope !10, !noalias !15
  %215 = or disjoint i64 %89, 21
  %216 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %215
  %217 = load float, ptr %216, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %218 = fadd float %217, %57
  %219 = tail call float @llvm.maximum.f32(float %218, float 0.000000e+00)
  %220 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %215
  store float %219, ptr %220, align 4, !alias.scope !10, !noalias !15
  %221 = or disjoint i64 %89, 22
  %222 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %221
  %223 = load float, ptr %222, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %224 = fadd float %223, %59
  %225 = tail call float @llvm.maximum.f32(float %224, float 0.000000e+00)
  %226 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %221
  store float %225, ptr %226, align 4, !alias.scope !10, !noalias !15
  %227 = or disjoint i64 %89, 23
  %228 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %227
  %229 = load float, ptr %228, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %230 = fadd float %229, %61
  %231 = tail call float @llvm.maximum.f32(float %230, float 0.000000e+00)
  %232 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %227
  store float %231, ptr %232, align 4, !alias.scope !10, !noalias !15
  %233 = or disjoint i64 %89, 24
  %234 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %233
  %235 = load float, ptr %234, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %236 = fadd float %235, %63
  %237 = tail call float @llvm.maximum.f32(float %236, float 0.000000e+00)
  %238 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %233
  store float %237, ptr %238, align 4, !alias.scope !10, !noalias !15
  %239 = or disjoint i64 %89, 25
  %240 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %239
  %241 = load float, ptr %240, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %242 = fadd float %241, %65
  %243 = tail call float @llvm.maximum.f32(float %242, float 0.000000e+00)
  %244 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %239
  store float %243, ptr %244, align 4, !alias.scope !10, !noalias !15
  %245 = or disjoint i64 %89, 26
  %246 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %245
  %247 = load float, ptr %246, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %248 = fadd float %247, %67
  %249 = tail call float @llvm.maximum.f32(float %248, float 0.000000e+00)
  %250 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %245
  store float %249, ptr %250, align 4, !alias.scope !10, !noalias !15
  %251 = or disjoint i64 %89, 27
  %252 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %251
  %253 = load float, ptr %252, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %254 = fadd float %253, %69
  %255 = tail call float @llvm.maximum.f32(float %254, float 0.000000e+00)
  %256 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %251
  store float %255, ptr %256, align 4, !alias.scope !10, !noalias !15
  %257 = or disjoint i64 %89, 28
  %258 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %257
  %259 = load float, ptr %258, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %260 = fadd float %259, %71
  %261 = tail call float @llvm.maximum.f32(float %260, float 0.000000e+00)
  %262 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %257
  store float %261, ptr %262, align 4, !alias.scope !10, !noalias !15
  %263 = or disjoint i64 %89, 29
  %264 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %263
  %265 = load float, ptr %264, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %266 = fadd float %265, %73
  %267 = tail call float @llvm.maximum.f32(float %266, float 0.000000e+00)
  %268 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %263
  store float %267, ptr %268, align 4, !alias.scope !10, !noalias !15
  %269 = or disjoint i64 %89, 30
  %270 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %269
  %271 = load float, ptr %270, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %272 = fadd float %271, %75
  %273 = tail call float @llvm.maximum.f32(float %272, float 0.000000e+00)
  %274 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %269
  store float %273, ptr %274, align 4, !alias.scope !10, !noalias !15
  %275 = or disjoint i64 %89, 31
  %276 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %275
  %277 = load float, ptr %276, align 4, !invariant.load !3, !alias.scope !5, !noalias !14
  %278 = fadd float %277, %77
  %279 = tail call float @llvm.maximum.f32(float %278, float 0.000000e+00)
  %280 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %275
  store float %279, ptr %280, align 4, !alias.scope !10, !noalias !15
  %281 = add nuw nsw i64 %87, 1
  %exitcond.not = icmp eq i64 %281, 16
  br i1 %exitcond.not, label %282, label %86, !llvm.loop !16

282:                                              ; preds = %86
  %283 = add nuw nsw i64 %83, 1
  %exitcond5.not = icmp eq i64 %283, 16
  br i1 %exitcond5.not, label %284, label %82, !llvm.loop !16

284:                                              ; preds = %282
  %285 = add nuw nsw i64 %79, 1
  %exitcond6.not = icmp eq i64 %285, 16
  br i1 %exitcond6.not, label %broadcast_maximum_fusion_wrapped.exit, label %78, !llvm.loop !16

broadcast_maximum_fusion_wrapped.exit:            ; preds = %284, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.maximum.f32(float, float) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #2

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 5}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 1048576}
!5 = !{!6}
!6 = distinct !{!6, !7, !"broadcast_maximum_fusion_wrapped: argument 0"}
!7 = distinct !{!7, !"broadcast_maximum_fusion_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"broadcast_maximum_fusion_wrapped: argument 1"}
!10 = !{!11}
!11 = distinct !{!11, !7, !"broadcast_maximum_fusion_wrapped: argument 2"}
!12 = !{i64 128}
!13 = !{!6, !11}
!14 = !{!9, !11}
!15 = !{!6, !9}
!16 = distinct !{!16, !17}
!17 = !{!"llvm.loop.unroll.disable"}
