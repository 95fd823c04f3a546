; ModuleID = '__compute_module_concatenate_bitcast_fusion_kernel_module'
source_filename = "__compute_module_concatenate_bitcast_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @concatenate_bitcast_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !4
  %7 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %8 = load ptr, ptr %7, align 8, !invariant.load !3, !dereferenceable !4
  %9 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %10 = load ptr, ptr %9, align 8
  %11 = load i64, ptr %10, align 4, !invariant.load !3
  tail call void @llvm.experimental.noalias.scope.decl(metadata !5)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !8)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !10)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !12)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !14)
  %12 = icmp ult i64 %11, 2
  br i1 %12, label %13, label %concatenate_bitcast_fusion_wrapped.exit

13:                                               ; preds = %1
  %14 = getelementptr inbounds nuw i8, ptr %3, i64 64
  %15 = load ptr, ptr %14, align 8, !invariant.load !3, !dereferenceable !16
  %16 = getelementptr inbounds nuw i8, ptr %3, i64 48
  %17 = load ptr, ptr %16, align 8, !invariant.load !3, !dereferenceable !4
  %18 = shl nuw nsw i64 %11, 15
  %19 = getelementptr [4 x i8], ptr %17, i64 %18
  %.idx68 = shl nuw nsw i64 %11, 19
  %20 = getelementptr i8, ptr %15, i64 %.idx68
  br label %.preheader45

.preheader45:                                     ; preds = %13, %128
  %21 = phi i64 [ 0, %13 ], [ %129, %128 ]
  %.idx21 = shl i64 %21, 13
  %22 = getelementptr i8, ptr %19, i64 %.idx21
  %.idx24 = shl i64 %21, 15
  %23 = getelementptr i8, ptr %20, i64 %.idx24
  br label %.preheader44

.preheader42:                                     ; preds = %128
  %24 = getelementptr [4 x i8], ptr %8, i64 %18
  br label %.preheader41

.preheader44:                                     ; preds = %.preheader45, %126
  %25 = phi i64 [ 0, %.preheader45 ], [ %127, %126 ]
  %.idx22 = shl i64 %25, 10
  %26 = getelementptr i8, ptr %22, i64 %.idx22
  %.idx25 = shl i64 %25, 12
  %27 = getelementptr i8, ptr %23, i64 %.idx25
  br label %.preheader43

.preheader43:                                     ; preds = %.preheader44, %.preheader43
  %28 = phi i64 [ 0, %.preheader44 ], [ %125, %.preheader43 ]
  %.idx23 = shl i64 %28, 7
  %29 = getelementptr i8, ptr %26, i64 %.idx23
  %.idx26 = shl i64 %28, 9
  %30 = getelementptr i8, ptr %27, i64 %.idx26
  %31 = load i32, ptr %29, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  store i32 %31, ptr %30, align 4, !alias.scope !14, !noalias !18
  %32 = getelementptr i8, ptr %29, i64 4
  %33 = load i32, ptr %32, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %34 = getelementptr i8, ptr %30, i64 16
  store i32 %33, ptr %34, align 4, !alias.scope !14, !noalias !18
  %35 = getelementptr i8, ptr %29, i64 8
  %36 = load i32, ptr %35, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %37 = getelementptr i8, ptr %30, i64 32
  store i32 %36, ptr %37, align 4, !alias.scope !14, !noalias !18
  %38 = getelementptr i8, ptr %29, i64 12
  %39 = load i32, ptr %38, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %40 = getelementptr i8, ptr %30, i64 48
  store i32 %39, ptr %40, align 4, !alias.scope !14, !noalias !18
  %41 = getelementptr i8, ptr %29, i64 16
  %42 = load i32, ptr %41, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %43 = getelementptr i8, ptr %30, i64 64
  store i32 %42, ptr %43, align 4, !alias.scope !14, !noalias !18
  %44 = getelementptr i8, ptr %29, i64 20
  %45 = load i32, ptr %44, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %46 = getelementptr i8, ptr %30, i64 80
  store i32 %45, ptr %46, align 4, !alias.scope !14, !noalias !18
  %47 = getelementptr i8, ptr %29, i64 24
  %48 = load i32, ptr %47, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %49 = getelementptr i8, ptr %30, i64 96
  store i32 %48, ptr %49, align 4, !alias.scope !14, !noalias !18
  %50 = getelementptr i8, ptr %29, i64 28
  %51 = load i32, ptr %50, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %52 = getelementptr i8, ptr %30, i64 112
  store i32 %51, ptr %52, align 4, !alias.scope !14, !noalias !18
  %53 = getelementptr i8, ptr %29, i64 32
  %54 = load i32, ptr %53, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %55 = getelementptr i8, ptr %30, i64 128
  store i32 %54, ptr %55, align 4, !alias.scope !14, !noalias !18
  %56 = getelementptr i8, ptr %29, i64 36
  %57 = load i32, ptr %56, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %58 = getelementptr i8, ptr %30, i64 144
  store i32 %57, ptr %58, align 4, !alias.scope !14, !noalias !18
  %59 = getelementptr i8, ptr %29, i64 40
  %60 = load i32, ptr %59, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %61 = getelementptr i8, ptr %30, i64 160
  store i32 %60, ptr %61, align 4, !alias.scope !14, !noalias !18
  %62 = getelementptr i8, ptr %29, i64 44
  %63 = load i32, ptr %62, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %64 = getelementptr i8, ptr %30, i64 176
  store i32 %63, ptr %64, align 4, !alias.scope !14, !noalias !18
  %65 = getelementptr i8, ptr %29, i64 48
  %66 = load i32, ptr %65, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %67 = getelementptr i8, ptr %30, i64 192
  store i32 %66, ptr %67, align 4, !alias.scope !14, !noalias !18
  %68 = getelementptr i8, ptr %29, i64 52
  %69 = load i32, ptr %68, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %70 = getelementptr i8, ptr %30, i64 208
  store i32 %69, ptr %70, align 4, !alias.scope !14, !noalias !18
  %71 = getelementptr i8, ptr %29, i64 56
  %72 = load i32, ptr %71, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %73 = getelementptr i8, ptr %30, i64 224
  store i32 %72, ptr %73, align 4, !alias.scope !14, !noalias !18
  %74 = getelementptr i8, ptr %29, i64 60
  %75 = load i32, ptr %74, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %76 = getelementptr i8, ptr %30, i64 240
  store i32 %75, ptr %76, align 4, !alias.scope !14, !noalias !18
  %77 = getelementptr i8, ptr %29, i64 64
  %78 = load i32, ptr %77, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %79 = getelementptr i8, ptr %30, i64 256
  store i32 %78, ptr %79, align 4, !alias.scope !14, !noalias !18
  %80 = getelementptr i8, ptr %29, i64 68
  %81 = load i32, ptr %80, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %82 = getelementptr i8, ptr %30, i64 272
  store i32 %81, ptr %82, align 4, !alias.scope !14, !noalias !18
  %83 = getelementptr i8, ptr %29, i64 72
  %84 = load i32, ptr %83, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %85 = getelementptr i8, ptr %30, i64 288
  store i32 %84, ptr %85, align 4, !alias.scope !14, !noalias !18
  %86 = getelementptr i8, ptr %29, i64 76
  %87 = load i32, ptr %86, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %88 = getelementptr i8, ptr %30, i64 304
  store i32 %87, ptr %88, align 4, !alias.scope !14, !noalias !18
  %89 = getelementptr i8, ptr %29, i64 80
  %90 = load i32, ptr %89, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %91 = getelementptr i8, ptr %30, i64 320
  store i32 %90, ptr %91, align 4, !alias.scope !14, !noalias !18
  %92 = getelementptr i8, ptr %29, i64 84
  %93 = load i32, ptr %92, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %94 = getelementptr i8, ptr %30, i64 336
  store i32 %93, ptr %94, align 4, !alias.scope !14, !noalias !18
  %95 = getelementptr i8, ptr %29, i64 88
  %96 = load i32, ptr %95, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %97 = getelementptr i8, ptr %30, i64 352
  store i32 %96, ptr %97, align 4, !alias.scope !14, !noalias !18
  %98 = getelementptr i8, ptr %29, i64 92
  %99 = load i32, ptr %98, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %100 = getelementptr i8, ptr %30, i64 368
  store i32 %99, ptr %100, align 4, !alias.scope !14, !noalias !18
  %101 = getelementptr i8, ptr %29, i64 96
  %102 = load i32, ptr %101, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %103 = getelementptr i8, ptr %30, i64 384
  store i32 %102, ptr %103, align 4, !alias.scope !14, !noalias !18
  %104 = getelementptr i8, ptr %29, i64 100
  %105 = load i32, ptr %104, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %106 = getelementptr i8, ptr %30, i64 400
  store i32 %105, ptr %106, align 4, !alias.scope !14, !noalias !18
  %107 = getelementptr i8, ptr %29, i64 104
  %108 = load i32, ptr %107, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %109 = getelementptr i8, ptr %30, i64 416
  store i32 %108, ptr %109, align 4, !alias.scope !14, !noalias !18
  %110 = getelementptr i8, ptr %29, i64 108
  %111 = load i32, ptr %110, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %112 = getelementptr i8, ptr %30, i64 432
  store i32 %111, ptr %112, align 4, !alias.scope !14, !noalias !18
  %113 = getelementptr i8, ptr %29, i64 112
  %114 = load i32, ptr %113, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %115 = getelementptr i8, ptr %30, i64 448
  store i32 %114, ptr %115, align 4, !alias.scope !14, !noalias !18
  %116 = getelementptr i8, ptr %29, i64 116
  %117 = load i32, ptr %116, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %118 = getelementptr i8, ptr %30, i64 464
  store i32 %117, ptr %118, align 4, !alias.scope !14, !noalias !18
  %119 = getelementptr i8, ptr %29, i64 120
  %120 = load i32, ptr %119, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %121 = getelementptr i8, ptr %30, i64 480
  store i32 %120, ptr %121, align 4, !alias.scope !14, !noalias !18
  %122 = getelementptr i8, ptr %29, i64 124
  %123 = load i32, ptr %122, align 4, !invariant.load !3, !alias.scope !12, !noalias !17
  %124 = getelementptr i8, ptr %30, i64 496
  store i32 %123, ptr %124, align 4, !alias.scope !14, !noalias !18
  %125 = add nuw nsw i64 %28, 1
  %exitcond.not = icmp eq i64 %125, 8
  br i1 %exitcond.not, label %126, label %.preheader43, !llvm.loop !19

126:                                              ; preds = %.preheader43
  %127 = add nuw nsw i64 %25, 1
  %exitcond46.not = icmp eq i64 %127, 8
  br i1 %exitcond46.not, label %128, label %.preheader44, !llvm.loop !19

128:                                              ; preds = %126
  %129 = add nuw nsw i64 %21, 1
  %exitcond47.not = icmp eq i64 %129, 16
  br i1 %exitcond47.not, label %.preheader42, label %.preheader45, !llvm.loop !19

.preheader41:                                     ; preds = %.preheader42, %238
  %130 = phi i64 [ 0, %.preheader42 ], [ %239, %238 ]
  %.idx14 = shl i64 %130, 13
  %131 = getelementptr i8, ptr %24, i64 %.idx14
  %.idx17 = shl i64 %130, 15
  %132 = getelementptr i8, ptr %20, i64 %.idx17
  br label %.preheader40

.preheader38:                                     ; preds = %238
  %133 = getelementptr [4 x i8], ptr %6, i64 %18
  br label %.preheader37

.preheader40:                                     ; preds = %.preheader41, %236
  %134 = phi i64 [ 0, %.preheader41 ], [ %237, %236 ]
  %.idx15 = shl i64 %134, 10
  %135 = getelementptr i8, ptr %131, i64 %.idx15
  %.idx18 = shl i64 %134, 12
  %136 = getelementptr i8, ptr %132, i64 %.idx18
  br label %.preheader39

.preheader39:                                     ; preds = %.preheader40, %.preheader39
  %137 = phi i64 [ 0, %.preheader40 ], [ %235, %.preheader39 ]
  %.idx16 = shl i64 %137, 7
  %138 = getelementptr i8, ptr %135, i64 %.idx16
  %.idx19 = shl i64 %137, 9
  %139 = getelementptr i8, ptr %136, i64 %.idx19
  %140 = load i32, ptr %138, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %141 = getelementptr i8, ptr %139, i64 4
  store i32 %140, ptr %141, align 4, !alias.scope !14, !noalias !18
  %142 = getelementptr i8, ptr %138, i64 4
  %143 = load i32, ptr %142, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %144 = getelementptr i8, ptr %139, i64 20
  store i32 %143, ptr %144, align 4, !alias.scope !14, !noalias !18
  %145 = getelementptr i8, ptr %138, i64 8
  %146 = load i32, ptr %145, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %147 = getelementptr i8, ptr %139, i64 36
  store i32 %146, ptr %147, align 4, !alias.scope !14, !noalias !18
  %148 = getelementptr i8, ptr %138, i64 12
  %149 = load i32, ptr %148, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %150 = getelementptr i8, ptr %139, i64 52
  store i32 %149, ptr %150, align 4, !alias.scope !14, !noalias !18
  %151 = getelementptr i8, ptr %138, i64 16
  %152 = load i32, ptr %151, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %153 = getelementptr i8, ptr %139, i64 68
  store i32 %152, ptr %153, align 4, !alias.scope !14, !noalias !18
  %154 = getelementptr i8, ptr %138, i64 20
  %155 = load i32, ptr %154, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %156 = getelementptr i8, ptr %139, i64 84
  store i32 %155, ptr %156, align 4, !alias.scope !14, !noalias !18
  %157 = getelementptr i8, ptr %138, i64 24
  %158 = load i32, ptr %157, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %159 = getelementptr i8, ptr %139, i64 100
  store i32 %158, ptr %159, align 4, !alias.scope !14, !noalias !18
  %160 = getelementptr i8, ptr %138, i64 28
  %161 = load i32, ptr %160, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %162 = getelementptr i8, ptr %139, i64 116
  store i32 %161, ptr %162, align 4, !alias.scope !14, !noalias !18
  %163 = getelementptr i8, ptr %138, i64 32
  %164 = load i32, ptr %163, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %165 = getelementptr i8, ptr %139, i64 132
  store i32 %164, ptr %165, align 4, !alias.scope !14, !noalias !18
  %166 = getelementptr i8, ptr %138, i64 36
  %167 = load i32, ptr %166, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %168 = getelementptr i8, ptr %139, i64 148
  store i32 %167, ptr %168, align 4, !alias.scope !14, !noalias !18
  %169 = getelementptr i8, ptr %138, i64 40
  %170 = load i32, ptr %169, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %171 = getelementptr i8, ptr %139, i64 164
  store i32 %170, ptr %171, align 4, !alias.scope !14, !noalias !18
  %172 = getelementptr i8, ptr %138, i64 44
  %173 = load i32, ptr %172, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %174 = getelementptr i8, ptr %139, i64 180
  store i32 %173, ptr %174, align 4, !alias.scope !14, !noalias !18
  %175 = getelementptr i8, ptr %138, i64 48
  %176 = load i32, ptr %175, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %177 = getelementptr i8, ptr %139, i64 196
  store i32 %176, ptr %177, align 4, !alias.scope !14, !noalias !18
  %178 = getelementptr i8, ptr %138, i64 52
  %179 = load i32, ptr %178, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %180 = getelementptr i8, ptr %139, i64 212
  store i32 %179, ptr %180, align 4, !alias.scope !14, !noalias !18
  %181 = getelementptr i8, ptr %138, i64 56
  %182 = load i32, ptr %181, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %183 = getelementptr i8, ptr %139, i64 228
  store i32 %182, ptr %183, align 4, !alias.scope !14, !noalias !18
  %184 = getelementptr i8, ptr %138, i64 60
  %185 = load i32, ptr %184, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %186 = getelementptr i8, ptr %139, i64 244
  store i32 %185, ptr %186, align 4, !alias.scope !14, !noalias !18
  %187 = getelementptr i8, ptr %138, i64 64
  %188 = load i32, ptr %187, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %189 = getelementptr i8, ptr %139, i64 260
  store i32 %188, ptr %189, align 4, !alias.scope !14, !noalias !18
  %190 = getelementptr i8, ptr %138, i64 68
  %191 = load i32, ptr %190, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %192 = getelementptr i8, ptr %139, i64 276
  store i32 %191, ptr %192, align 4, !alias.scope !14, !noalias !18
  %193 = getelementptr i8, ptr %138, i64 72
  %194 = load i32, ptr %193, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %195 = getelementptr i8, ptr %139, i64 292
  store i32 %194, ptr %195, align 4, !alias.scope !14, !noalias !18
  %196 = getelementptr i8, ptr %138, i64 76
  %197 = load i32, ptr %196, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %198 = getelementptr i8, ptr %139, i64 308
  store i32 %197, ptr %198, align 4, !alias.scope !14, !noalias !18
  %199 = getelementptr i8, ptr %138, i64 80
  %200 = load i32, ptr %199, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %201 = getelementptr i8, ptr %139, i64 324
  store i32 %200, ptr %201, align 4, !alias.scope !14, !noalias !18
  %202 = getelementptr i8, ptr %138, i64 84
  %203 = load i32, ptr %202, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %204 = getelementptr i8, ptr %139, i64 340
  store i32 %203, ptr %204, align 4, !alias.scope !14, !noalias !18
  %205 = getelementptr i8, ptr %138, i64 88
  %206 = load i32, ptr %205, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %207 = getelementptr i8, ptr %139, i64 356
  store i32 %206, ptr %207, align 4, !alias.scope !14, !noalias !18
  %208 = getelementptr i8, ptr %138, i64 92
  %209 = load i32, ptr %208, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %210 = getelementptr i8, ptr %139, i64 372
  store i32 %209, ptr %210, align 4, !alias.scope !14, !noalias !18
  %211 = getelementptr i8, ptr %138, i64 96
  %212 = load i32, ptr %211, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %213 = getelementptr i8, ptr %139, i64 388
  store i32 %212, ptr %213, align 4, !alias.scope !14, !noalias !18
  %214 = getelementptr i8, ptr %138, i64 100
  %215 = load i32, ptr %214, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %216 = getelementptr i8, ptr %139, i64 404
  store i32 %215, ptr %216, align 4, !alias.scope !14, !noalias !18
  %217 = getelementptr i8, ptr %138, i64 104
  %218 = load i32, ptr %217, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %219 = getelementptr i8, ptr %139, i64 420
  store i32 %218, ptr %219, align 4, !alias.scope !14, !noalias !18
  %220 = getelementptr i8, ptr %138, i64 108
  %221 = load i32, ptr %220, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %222 = getelementptr i8, ptr %139, i64 436
  store i32 %221, ptr %222, align 4, !alias.scope !14, !noalias !18
  %223 = getelementptr i8, ptr %138, i64 112
  %224 = load i32, ptr %223, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %225 = getelementptr i8, ptr %139, i64 452
  store i32 %224, ptr %225, align 4, !alias.scope !14, !noalias !18
  %226 = getelementptr i8, ptr %138, i64 116
  %227 = load i32, ptr %226, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %228 = getelementptr i8, ptr %139, i64 468
  store i32 %227, ptr %228, align 4, !alias.scope !14, !noalias !18
  %229 = getelementptr i8, ptr %138, i64 120
  %230 = load i32, ptr %229, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %231 = getelementptr i8, ptr %139, i64 484
  store i32 %230, ptr %231, align 4, !alias.scope !14, !noalias !18
  %232 = getelementptr i8, ptr %138, i64 124
  %233 = load i32, ptr %232, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %234 = getelementptr i8, ptr %139, i64 500
  store i32 %233, ptr %234, align 4, !alias.scope !14, !noalias !18
  %235 = add nuw nsw i64 %137, 1
  %exitcond49.not = icmp eq i64 %235, 8
  br i1 %exitcond49.not, label %236, label %.preheader39, !llvm.loop !19

236:                                              ; preds = %.preheader39
  %237 = add nuw nsw i64 %134, 1
  %exitcond50.not = icmp eq i64 %237, 8
  br i1 %exitcond50.not, label %238, label %.preheader40, !llvm.loop !19

238:                                              ; preds = %236
  %239 = add nuw nsw i64 %130, 1
  %exitcond51.not = icmp eq i64 %239, 16
  br i1 %exitcond51.not, label %.preheader38, label %.preheader41, !llvm.loop !19

.preheader37:                                     ; preds = %.preheader38, %348
  %240 = phi i64 [ 0, %.preheader38 ], [ %349, %348 ]
  %.idx7 = shl i64 %240, 13
  %241 = getelementptr i8, ptr %133, i64 %.idx7
  %.idx10 = shl i64 %240, 15
  %242 = getelementptr i8, ptr %20, i64 %.idx10
  br label %.preheader36

.preheader34:                                     ; preds = %348
  %243 = getelementptr [4 x i8], ptr %4, i64 %18
  br label %.preheader33

.preheader36:                                     ; preds = %.preheader37, %346
  %244 = phi i64 [ 0, %.preheader37 ], [ %347, %346 ]
  %.idx8 = shl i64 %244, 10
  %245 = getelementptr i8, ptr %241, i64 %.idx8
  %.idx11 = shl i64 %244, 12
  %246 = getelementptr i8, ptr %242, i64 %.idx11
  br label %.preheader35

.preheader35:                                     ; preds = %.preheader36, %.preheader35
  %247 = phi i64 [ 0, %.preheader36 ], [ %345, %.preheader35 ]
  %.idx9 = shl i64 %247, 7
  %248 = getelementptr i8, ptr %245, i64 %.idx9
  %.idx12 = shl i64 %247, 9
  %249 = getelementptr i8, ptr %246, i64 %.idx12
  %250 = load i32, ptr %248, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %251 = getelementptr i8, ptr %249, i64 8
  store i32 %250, ptr %251, align 4, !alias.scope !14, !noalias !18
  %252 = getelementptr i8, ptr %248, i64 4
  %253 = load i32, ptr %252, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %254 = getelementptr i8, ptr %249, i64 24
  store i32 %253, ptr %254, align 4, !alias.scope !14, !noalias !18
  %255 = getelementptr i8, ptr %248, i64 8
  %256 = load i32, ptr %255, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %257 = getelementptr i8, ptr %249, i64 40
  store i32 %256, ptr %257, align 4, !alias.scope !14, !noalias !18
  %258 = getelementptr i8, ptr %248, i64 12
  %259 = load i32, ptr %258, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %260 = getelementptr i8, ptr %249, i64 56
  store i32 %259, ptr %260, align 4, !alias.scope !14, !noalias !18
  %261 = getelementptr i8, ptr %248, i64 16
  %262 = load i32, ptr %261, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %263 = getelementptr i8, ptr %249, i64 72
  store i32 %262, ptr %263, align 4, !alias.scope !14, !noalias !18
  %264 = getelementptr i8, ptr %248, i64 20
  %265 = load i32, ptr %264, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %266 = getelementptr i8, ptr %249, i64 88
  store i32 %265, ptr %266, align 4, !alias.scope !14, !noalias !18
  %267 = getelementptr i8, ptr %248, i64 24
  %268 = load i32, ptr %267, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %269 = getelementptr i8, ptr %249, i64 104
  store i32 %268, ptr %269, align 4, !alias.scope !14, !noalias !18
  %270 = getelementptr i8, ptr %248, i64 28
  %271 = load i32, ptr %270, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %272 = getelementptr i8, ptr %249, i64 120
  store i32 %271, ptr %272, align 4, !alias.scope !14, !noalias !18
  %273 = getelementptr i8, ptr %248, i64 32
  %274 = load i32, ptr %273, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %275 = getelementptr i8, ptr %249, i64 136
  store i32 %274, ptr %275, align 4, !alias.scope !14, !noalias !18
  %276 = getelementptr i8, ptr %248, i64 36
  %277 = load i32, ptr %276, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %278 = getelementptr i8, ptr %249, i64 152
  store i32 %277, ptr %278, align 4, !alias.scope !14, !noalias !18
  %279 = getelementptr i8, ptr %248, i64 40
  %280 = load i32, ptr %279, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %281 = getelementptr i8, ptr %249, i64 168
  store i32 %280, ptr %281, align 4, !alias.scope !14, !noalias !18
  %282 = getelementptr i8, ptr %248, i64 44
  %283 = load i32, ptr %282, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %284 = getelementptr i8, ptr %249, i64 184
  store i32 %283, ptr %284, align 4, !alias.scope !14, !noalias !18
  %285 = getelementptr i8, ptr %248, i64 48
  %286 = load i32, ptr %285, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %287 = getelementptr i8, ptr %249, i64 200
  store i32 %286, ptr %287, align 4, !alias.scope !14, !noalias !18
  %288 = getelementptr i8, ptr %248, i64 52
  %289 = load i32, ptr %288, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %290 = getelementptr i8, ptr %249, i64 216
  store i32 %289, ptr %290, align 4, !alias.scope !14, !noalias !18
  %291 = getelementptr i8, ptr %248, i64 56
  %292 = load i32, ptr %291, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %293 = getelementptr i8, ptr %249, i64 232
  store i32 %292, ptr %293, align 4, !alias.scope !14, !noalias !18
  %294 = getelementptr i8, ptr %248, i64 60
  %295 = load i32, ptr %294, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %296 = getelementptr i8, ptr %249, i64 248
  store i32 %295, ptr %296, align 4, !alias.scope !14, !noalias !18
  %297 = getelementptr i8, ptr %248, i64 64
  %298 = load i32, ptr %297, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %299 = getelementptr i8, ptr %249, i64 264
  store i32 %298, ptr %299, align 4, !alias.scope !14, !noalias !18
  %300 = getelementptr i8, ptr %248, i64 68
  %301 = load i32, ptr %300, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %302 = getelementptr i8, ptr %249, i64 280
  store i32 %301, ptr %302, align 4, !alias.scope !14, !noalias !18
  %303 = getelementptr i8, ptr %248, i64 72
  %304 = load i32, ptr %303, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %305 = getelementptr i8, ptr %249, i64 296
  store i32 %304, ptr %305, align 4, !alias.scope !14, !noalias !18
  %306 = getelementptr i8, ptr %248, i64 76
  %307 = load i32, ptr %306, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %308 = getelementptr i8, ptr %249, i64 312
  store i32 %307, ptr %308, align 4, !alias.scope !14, !noalias !18
  %309 = getelementptr i8, ptr %248, i64 80
  %310 = load i32, ptr %309, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %311 = getelementptr i8, ptr %249, i64 328
  store i32 %310, ptr %311, align 4, !alias.scope !14, !noalias !18
  %312 = getelementptr i8, ptr %248, i64 84
  %313 = load i32, ptr %312, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %314 = getelementptr i8, ptr %249, i64 344
  store i32 %313, ptr %314, align 4, !alias.scope !14, !noalias !18
  %315 = getelementptr i8, ptr %248, i64 88
  %316 = load i32, ptr %315, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %317 = getelementptr i8, ptr %249, i64 360
  store i32 %316, ptr %317, align 4, !alias.scope !14, !noalias !18
  %318 = getelementptr i8, ptr %248, i64 92
  %319 = load i32, ptr %318, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %320 = getelementptr i8, ptr %249, i64 376
  store i32 %319, ptr %320, align 4, !alias.scope !14, !noalias !18
  %321 = getelementptr i8, ptr %248, i64 96
  %322 = load i32, ptr %321, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %323 = getelementptr i8, ptr %249, i64 392
  store i32 %322, ptr %323, align 4, !alias.scope !14, !noalias !18
  %324 = getelementptr i8, ptr %248, i64 100
  %325 = load i32, ptr %324, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %326 = getelementptr i8, ptr %249, i64 408
  store i32 %325, ptr %326, align 4, !alias.scope !14, !noalias !18
  %327 = getelementptr i8, ptr %248, i64 104
  %328 = load i32, ptr %327, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %329 = getelementptr i8, ptr %249, i64 424
  store i32 %328, ptr %329, align 4, !alias.scope !14, !noalias !18
  %330 = getelementptr i8, ptr %248, i64 108
  %331 = load i32, ptr %330, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %332 = getelementptr i8, ptr %249, i64 440
  store i32 %331, ptr %332, align 4, !alias.scope !14, !noalias !18
  %333 = getelementptr i8, ptr %248, i64 112
  %334 = load i32, ptr %333, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %335 = getelementptr i8, ptr %249, i64 456
  store i32 %334, ptr %335, align 4, !alias.scope !14, !noalias !18
  %336 = getelementptr i8, ptr %248, i64 116
  %337 = load i32, ptr %336, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %338 = getelementptr i8, ptr %249, i64 472
  store i32 %337, ptr %338, align 4, !alias.scope !14, !noalias !18
  %339 = getelementptr i8, ptr %248, i64 120
  %340 = load i32, ptr %339, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %341 = getelementptr i8, ptr %249, i64 488
  store i32 %340, ptr %341, align 4, !alias.scope !14, !noalias !18
  %342 = getelementptr i8, ptr %248, i64 124
  %343 = load i32, ptr %342, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %344 = getelementptr i8, ptr %249, i64 504
  store i32 %343, ptr %344, align 4, !alias.scope !14, !noalias !18
  %345 = add nuw nsw i64 %247, 1
  %exitcond53.not = icmp eq i64 %345, 8
  br i1 %exitcond53.not, label %346, label %.preheader35, !llvm.loop !19

346:                                              ; preds = %.preheader35
  %347 = add nuw nsw i64 %244, 1
  %exitcond54.not = icmp eq i64 %347, 8
  br i1 %exitcond54.not, label %348, label %.preheader36, !llvm.loop !19

348:                                              ; preds = %346
  %349 = add nuw nsw i64 %240, 1
  %exitcond55.not = icmp eq i64 %349, 16
  br i1 %exitcond55.not, label %.preheader34, label %.preheader37, !llvm.loop !19

.preheader33:                                     ; preds = %.preheader34, %457
  %350 = phi i64 [ 0, %.preheader34 ], [ %458, %457 ]
  %.idx = shl i64 %350, 13
  %351 = getelementptr i8, ptr %243, i64 %.idx
  %.idx3 = shl i64 %350, 15
  %352 = getelementptr i8, ptr %20, i64 %.idx3
  br label %.preheader32

.preheader32:                                     ; preds = %.preheader33, %455
  %353 = phi i64 [ 0, %.preheader33 ], [ %456, %455 ]
  %.idx1 = shl i64 %353, 10
  %354 = getelementptr i8, ptr %351, i64 %.idx1
  %.idx4 = shl i64 %353, 12
  %355 = getelementptr i8, ptr %352, i64 %.idx4
  br label %.preheader

.preheader:                                       ; preds = %.preheader32, %.preheader
  %356 = phi i64 [ 0, %.preheader32 ], [ %454, %.preheader ]
  %.idx2 = shl i64 %356, 7
  %357 = getelementptr i8, ptr %354, i64 %.idx2
  %.idx5 = shl i64 %356, 9
  %358 = getelementptr i8, ptr %355, i64 %.idx5
  %359 = load i32, ptr %357, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %360 = getelementptr i8, ptr %358, i64 12
  store i32 %359, ptr %360, align 4, !alias.scope !14, !noalias !18
  %361 = getelementptr i8, ptr %357, i64 4
  %362 = load i32, ptr %361, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %363 = getelementptr i8, ptr %358, i64 28
  store i32 %362, ptr %363, align 4, !alias.scope !14, !noalias !18
  %364 = getelementptr i8, ptr %357, i64 8
  %365 = load i32, ptr %364, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %366 = getelementptr i8, ptr %358, i64 44
  store i32 %365, ptr %366, align 4, !alias.scope !14, !noalias !18
  %367 = getelementptr i8, ptr %357, i64 12
  %368 = load i32, ptr %367, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %369 = getelementptr i8, ptr %358, i64 60
  store i32 %368, ptr %369, align 4, !alias.scope !14, !noalias !18
  %370 = getelementptr i8, ptr %357, i64 16
  %371 = load i32, ptr %370, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %372 = getelementptr i8, ptr %358, i64 76
  store i32 %371, ptr %372, align 4, !alias.scope !14, !noalias !18
  %373 = getelementptr i8, ptr %357, i64 20
  %374 = load i32, ptr %373, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %375 = getelementptr i8, ptr %358, i64 92
  store i32 %374, ptr %375, align 4, !alias.scope !14, !noalias !18
  %376 = getelementptr i8, ptr %357, i64 24
  %377 = load i32, ptr %376, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %378 = getelementptr i8, ptr %358, i64 108
  store i32 %377, ptr %378, align 4, !alias.scope !14, !noalias !18
  %379 = getelementptr i8, ptr %357, i64 28
  %380 = load i32, ptr %379, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %381 = getelementptr i8, ptr %358, i64 124
  store i32 %380, ptr %381, align 4, !alias.scope !14, !noalias !18
  %382 = getelementptr i8, ptr %357, i64 32
  %383 = load i32, ptr %382, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %384 = getelementptr i8, ptr %358, i64 140
  store i32 %383, ptr %384, align 4, !alias.scope !14, !noalias !18
  %385 = getelementptr i8, ptr %357, i64 36
  %386 = load i32, ptr %385, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %387 = getelementptr i8, ptr %358, i64 156
  store i32 %386, ptr %387, align 4, !alias.scope !14, !noalias !18
  %388 = getelementptr i8, ptr %357, i64 40
  %389 = load i32, ptr %388, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %390 = getelementptr i8, ptr %358, i64 172
  store i32 %389, ptr %390, align 4, !alias.scope !14, !noalias !18
  %391 = getelementptr i8, ptr %357, i64 44
  %392 = load i32, ptr %391, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %393 = getelementptr i8, ptr %358, i64 188
  store i32 %392, ptr %393, align 4, !alias.scope !14, !noalias !18
  %394 = getelementptr i8, ptr %357, i64 48
  %395 = load i32, ptr %394, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %396 = getelementptr i8, ptr %358, i64 204
  store i32 %395, ptr %396, align 4, !alias.scope !14, !noalias !18
  %397 = getelementptr i8, ptr %357, i64 52
  %398 = load i32, ptr %397, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %399 = getelementptr i8, ptr %358, i64 220
  store i32 %398, ptr %399, align 4, !alias.scope !14, !noalias !18
  %400 = getelementptr i8, ptr %357, i64 56
  %401 = load i32, ptr %400, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %402 = getelementptr i8, ptr %358, i64 236
  store i32 %401, ptr %402, align 4, !alias.scope !14, !noalias !18
  %403 = getelementptr i8, ptr %357, i64 60
  %404 = load i32, ptr %403, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %405 = getelementptr i8, ptr %358, i64 252
  store i32 %404, ptr %405, align 4, !alias.scope !14, !noalias !18
  %406 = getelementptr i8, ptr %357, i64 64
  %407 = load i32, ptr %406, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %408 = getelementptr i8, ptr %358, i64 268
  store i32 %407, ptr %408, align 4, !alias.scope !14, !noalias !18
  %409 = getelementptr i8, ptr %357, i64 68
  %410 = load i32, ptr %409, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %411 = getelementptr i8, ptr %358, i64 284
  store i32 %410, ptr %411, align 4, !alias.scope !14, !noalias !18
  %412 = getelementptr i8, ptr %357, i64 72
  %413 = load i32, ptr %412, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %414 = getelementptr i8, ptr %358, i64 300
  store i32 %413, ptr %414, align 4, !alias.scope !14, !noalias !18
  %415 = getelementptr i8, ptr %357, i64 76
  %416 = load i32, ptr %415, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %417 = getelementptr i8, ptr %358, i64 316
  store i32 %416, ptr %417, align 4, !alias.scope !14, !noalias !18
  %418 = getelementptr i8, ptr %357, i64 80
  %419 = load i32, ptr %418, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %420 = getelementptr i8, ptr %358, i64 332
  store i32 %419, ptr %420, align 4, !alias.scope !14, !noalias !18
  %421 = getelementptr i8, ptr %357, i64 84
  %422 = load i32, ptr %421, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %423 = getelementptr i8, ptr %358, i64 348
  store i32 %422, ptr %423, align 4, !alias.scope !14, !noalias !18
  %424 = getelementptr i8, ptr %357, i64 88
  %425 = load i32, ptr %424, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %426 = getelementptr i8, ptr %358, i64 364
  store i32 %425, ptr %426, align 4, !alias.scope !14, !noalias !18
  %427 = getelementptr i8, ptr %357, i64 92
  %428 = load i32, ptr %427, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %429 = getelementptr i8, ptr %358, i64 380
  store i32 %428, ptr %429, align 4, !alias.scope !14, !noalias !18
  %430 = getelementptr i8, ptr %357, i64 96
  %431 = load i32, ptr %430, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %432 = getelementptr i8, ptr %358, i64 396
  store i32 %431, ptr %432, align 4, !alias.scope !14, !noalias !18
  %433 = getelementptr i8, ptr %357, i64 100
  %434 = load i32, ptr %433, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %435 = getelementptr i8, ptr %358, i64 412
  store i32 %434, ptr %435, align 4, !alias.scope !14, !noalias !18
  %436 = getelementptr i8, ptr %357, i64 104
  %437 = load i32, ptr %436, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %438 = getelementptr i8, ptr %358, i64 428
  store i32 %437, ptr %438, align 4, !alias.scope !14, !noalias !18
  %439 = getelementptr i8, ptr %357, i64 108
  %440 = load i32, ptr %439, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %441 = getelementptr i8, ptr %358, i64 444
  store i32 %440, ptr %441, align 4, !alias.scope !14, !noalias !18
  %442 = getelementptr i8, ptr %357, i64 112
  %443 = load i32, ptr %442, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %444 = getelementptr i8, ptr %358, i64 460
  store i32 %443, ptr %444, align 4, !alias.scope !14, !noalias !18
  %445 = getelementptr i8, ptr %357, i64 116
  %446 = load i32, ptr %445, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %447 = getelementptr i8, ptr %358, i64 476
  store i32 %446, ptr %447, align 4, !alias.scope !14, !noalias !18
  %448 = getelementptr i8, ptr %357, i64 120
  %449 = load i32, ptr %448, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %450 = getelementptr i8, ptr %358, i64 492
  store i32 %449, ptr %450, align 4, !alias.scope !14, !noalias !18
  %451 = getelementptr i8, ptr %357, i64 124
  %452 = load i32, ptr %451, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %453 = getelementptr i8, ptr %358, i64 508
  store i32 %452, ptr %453, align 4, !alias.scope !14, !noalias !18
  %454 = add nuw nsw i64 %356, 1
  %exitcond57.not = icmp eq i64 %454, 8
  br i1 %exitcond57.not, label %455, label %.preheader, !llvm.loop !19

455:                                              ; preds = %.preheader
  %456 = add nuw nsw i64 %353, 1
  %exitcond58.not = icmp eq i64 %456, 8
  br i1 %exitcond58.not, label %457, label %.preheader32, !llvm.loop !19

457:                                              ; preds = %455
  %458 = add nuw nsw i64 %350, 1
  %exitcond59.not = icmp eq i64 %458, 16
  br i1 %exitcond59.not, label %concatenate_bitcast_fusion_wrapped.exit, label %.preheader33, !llvm.loop !19

concatenate_bitcast_fusion_wrapped.exit:          ; preds = %457, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 9}
!2 = !{!"xla_cpu_emitter__concatenate_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 262144}
!5 = !{!6}
!6 = distinct !{!6, !7, !"concatenate_bitcast_fusion_wrapped: argument 0"}
!7 = distinct !{!7, !"concatenate_bitcast_fusion_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"concatenate_bitcast_fusion_wrapped: argument 1"}
!10 = !{!11}
!11 = distinct !{!11, !7, !"concatenate_bitcast_fusion_wrapped: argument 2"}
!12 = !{!13}
!13 = distinct !{!13, !7, !"concatenate_bitcast_fusion_wrapped: argument 3"}
!14 = !{!15}
!15 = distinct !{!15, !7, !"concatenate_bitcast_fusion_wrapped: argument 4"}
!16 = !{i64 1048576}
!17 = !{!6, !9, !11, !15}
!18 = !{!6, !9, !11, !13}
!19 = distinct !{!19, !20}
!20 = !{!"llvm.loop.unroll.disable"}
!21 = !{!6, !9, !13, !15}
!22 = !{!6, !11, !13, !15}
!23 = !{!9, !11, !13, !15}
