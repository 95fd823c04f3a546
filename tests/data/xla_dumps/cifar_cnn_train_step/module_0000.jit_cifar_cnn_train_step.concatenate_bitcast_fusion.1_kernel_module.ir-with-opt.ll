; ModuleID = '__compute_module_concatenate_bitcast_fusion.1_kernel_module'
source_filename = "__compute_module_concatenate_bitcast_fusion.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @concatenate_bitcast_fusion.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
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
  br i1 %12, label %13, label %concatenate_bitcast_fusion.1_wrapped.exit

13:                                               ; preds = %1
  %14 = getelementptr inbounds nuw i8, ptr %3, i64 64
  %15 = load ptr, ptr %14, align 8, !invariant.load !3, !dereferenceable !16
  %16 = getelementptr inbounds nuw i8, ptr %3, i64 48
  %17 = load ptr, ptr %16, align 8, !invariant.load !3, !dereferenceable !4
  %18 = shl nuw nsw i64 %11, 16
  %19 = getelementptr [4 x i8], ptr %17, i64 %18
  %.idx68 = shl nuw nsw i64 %11, 20
  %20 = getelementptr i8, ptr %15, i64 %.idx68
  br label %.preheader45

.preheader45:                                     ; preds = %13, %80
  %21 = phi i64 [ 0, %13 ], [ %81, %80 ]
  %.idx21 = shl i64 %21, 14
  %22 = getelementptr i8, ptr %19, i64 %.idx21
  %.idx24 = shl i64 %21, 16
  %23 = getelementptr i8, ptr %20, i64 %.idx24
  br label %.preheader44

.preheader42:                                     ; preds = %80
  %24 = getelementptr [4 x i8], ptr %8, i64 %18
  br label %.preheader41

.preheader44:                                     ; preds = %.preheader45, %78
  %25 = phi i64 [ 0, %.preheader45 ], [ %79, %78 ]
  %.idx22 = shl i64 %25, 10
  %26 = getelementptr i8, ptr %22, i64 %.idx22
  %.idx25 = shl i64 %25, 12
  %27 = getelementptr i8, ptr %23, i64 %.idx25
  br label %.preheader43

.preheader43:                                     ; preds = %.preheader44, %.preheader43
  %28 = phi i64 [ 0, %.preheader44 ], [ %77, %.preheader43 ]
  %.idx23 = shl i64 %28, 6
  %29 = getelementptr i8, ptr %26, i64 %.idx23
  %.idx26 = shl i64 %28, 8
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
  %77 = add nuw nsw i64 %28, 1
  %exitcond.not = icmp eq i64 %77, 16
  br i1 %exitcond.not, label %78, label %.preheader43, !llvm.loop !19

78:                                               ; preds = %.preheader43
  %79 = add nuw nsw i64 %25, 1
  %exitcond46.not = icmp eq i64 %79, 16
  br i1 %exitcond46.not, label %80, label %.preheader44, !llvm.loop !19

80:                                               ; preds = %78
  %81 = add nuw nsw i64 %21, 1
  %exitcond47.not = icmp eq i64 %81, 16
  br i1 %exitcond47.not, label %.preheader42, label %.preheader45, !llvm.loop !19

.preheader41:                                     ; preds = %.preheader42, %142
  %82 = phi i64 [ 0, %.preheader42 ], [ %143, %142 ]
  %.idx14 = shl i64 %82, 14
  %83 = getelementptr i8, ptr %24, i64 %.idx14
  %.idx17 = shl i64 %82, 16
  %84 = getelementptr i8, ptr %20, i64 %.idx17
  br label %.preheader40

.preheader38:                                     ; preds = %142
  %85 = getelementptr [4 x i8], ptr %6, i64 %18
  br label %.preheader37

.preheader40:                                     ; preds = %.preheader41, %140
  %86 = phi i64 [ 0, %.preheader41 ], [ %141, %140 ]
  %.idx15 = shl i64 %86, 10
  %87 = getelementptr i8, ptr %83, i64 %.idx15
  %.idx18 = shl i64 %86, 12
  %88 = getelementptr i8, ptr %84, i64 %.idx18
  br label %.preheader39

.preheader39:                                     ; preds = %.preheader40, %.preheader39
  %89 = phi i64 [ 0, %.preheader40 ], [ %139, %.preheader39 ]
  %.idx16 = shl i64 %89, 6
  %90 = getelementptr i8, ptr %87, i64 %.idx16
  %.idx19 = shl i64 %89, 8
  %91 = getelementptr i8, ptr %88, i64 %.idx19
  %92 = load i32, ptr %90, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %93 = getelementptr i8, ptr %91, i64 4
  store i32 %92, ptr %93, align 4, !alias.scope !14, !noalias !18
  %94 = getelementptr i8, ptr %90, i64 4
  %95 = load i32, ptr %94, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %96 = getelementptr i8, ptr %91, i64 20
  store i32 %95, ptr %96, align 4, !alias.scope !14, !noalias !18
  %97 = getelementptr i8, ptr %90, i64 8
  %98 = load i32, ptr %97, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %99 = getelementptr i8, ptr %91, i64 36
  store i32 %98, ptr %99, align 4, !alias.scope !14, !noalias !18
  %100 = getelementptr i8, ptr %90, i64 12
  %101 = load i32, ptr %100, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %102 = getelementptr i8, ptr %91, i64 52
  store i32 %101, ptr %102, align 4, !alias.scope !14, !noalias !18
  %103 = getelementptr i8, ptr %90, i64 16
  %104 = load i32, ptr %103, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %105 = getelementptr i8, ptr %91, i64 68
  store i32 %104, ptr %105, align 4, !alias.scope !14, !noalias !18
  %106 = getelementptr i8, ptr %90, i64 20
  %107 = load i32, ptr %106, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %108 = getelementptr i8, ptr %91, i64 84
  store i32 %107, ptr %108, align 4, !alias.scope !14, !noalias !18
  %109 = getelementptr i8, ptr %90, i64 24
  %110 = load i32, ptr %109, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %111 = getelementptr i8, ptr %91, i64 100
  store i32 %110, ptr %111, align 4, !alias.scope !14, !noalias !18
  %112 = getelementptr i8, ptr %90, i64 28
  %113 = load i32, ptr %112, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %114 = getelementptr i8, ptr %91, i64 116
  store i32 %113, ptr %114, align 4, !alias.scope !14, !noalias !18
  %115 = getelementptr i8, ptr %90, i64 32
  %116 = load i32, ptr %115, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %117 = getelementptr i8, ptr %91, i64 132
  store i32 %116, ptr %117, align 4, !alias.scope !14, !noalias !18
  %118 = getelementptr i8, ptr %90, i64 36
  %119 = load i32, ptr %118, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %120 = getelementptr i8, ptr %91, i64 148
  store i32 %119, ptr %120, align 4, !alias.scope !14, !noalias !18
  %121 = getelementptr i8, ptr %90, i64 40
  %122 = load i32, ptr %121, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %123 = getelementptr i8, ptr %91, i64 164
  store i32 %122, ptr %123, align 4, !alias.scope !14, !noalias !18
  %124 = getelementptr i8, ptr %90, i64 44
  %125 = load i32, ptr %124, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %126 = getelementptr i8, ptr %91, i64 180
  store i32 %125, ptr %126, align 4, !alias.scope !14, !noalias !18
  %127 = getelementptr i8, ptr %90, i64 48
  %128 = load i32, ptr %127, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %129 = getelementptr i8, ptr %91, i64 196
  store i32 %128, ptr %129, align 4, !alias.scope !14, !noalias !18
  %130 = getelementptr i8, ptr %90, i64 52
  %131 = load i32, ptr %130, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %132 = getelementptr i8, ptr %91, i64 212
  store i32 %131, ptr %132, align 4, !alias.scope !14, !noalias !18
  %133 = getelementptr i8, ptr %90, i64 56
  %134 = load i32, ptr %133, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %135 = getelementptr i8, ptr %91, i64 228
  store i32 %134, ptr %135, align 4, !alias.scope !14, !noalias !18
  %136 = getelementptr i8, ptr %90, i64 60
  %137 = load i32, ptr %136, align 4, !invariant.load !3, !alias.scope !10, !noalias !21
  %138 = getelementptr i8, ptr %91, i64 244
  store i32 %137, ptr %138, align 4, !alias.scope !14, !noalias !18
  %139 = add nuw nsw i64 %89, 1
  %exitcond49.not = icmp eq i64 %139, 16
  br i1 %exitcond49.not, label %140, label %.preheader39, !llvm.loop !19

140:                                              ; preds = %.preheader39
  %141 = add nuw nsw i64 %86, 1
  %exitcond50.not = icmp eq i64 %141, 16
  br i1 %exitcond50.not, label %142, label %.preheader40, !llvm.loop !19

142:                                              ; preds = %140
  %143 = add nuw nsw i64 %82, 1
  %exitcond51.not = icmp eq i64 %143, 16
  br i1 %exitcond51.not, label %.preheader38, label %.preheader41, !llvm.loop !19

.preheader37:                                     ; preds = %.preheader38, %204
  %144 = phi i64 [ 0, %.preheader38 ], [ %205, %204 ]
  %.idx7 = shl i64 %144, 14
  %145 = getelementptr i8, ptr %85, i64 %.idx7
  %.idx10 = shl i64 %144, 16
  %146 = getelementptr i8, ptr %20, i64 %.idx10
  br label %.preheader36

.preheader34:                                     ; preds = %204
  %147 = getelementptr [4 x i8], ptr %4, i64 %18
  br label %.preheader33

.preheader36:                                     ; preds = %.preheader37, %202
  %148 = phi i64 [ 0, %.preheader37 ], [ %203, %202 ]
  %.idx8 = shl i64 %148, 10
  %149 = getelementptr i8, ptr %145, i64 %.idx8
  %.idx11 = shl i64 %148, 12
  %150 = getelementptr i8, ptr %146, i64 %.idx11
  br label %.preheader35

.preheader35:                                     ; preds = %.preheader36, %.preheader35
  %151 = phi i64 [ 0, %.preheader36 ], [ %201, %.preheader35 ]
  %.idx9 = shl i64 %151, 6
  %152 = getelementptr i8, ptr %149, i64 %.idx9
  %.idx12 = shl i64 %151, 8
  %153 = getelementptr i8, ptr %150, i64 %.idx12
  %154 = load i32, ptr %152, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %155 = getelementptr i8, ptr %153, i64 8
  store i32 %154, ptr %155, align 4, !alias.scope !14, !noalias !18
  %156 = getelementptr i8, ptr %152, i64 4
  %157 = load i32, ptr %156, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %158 = getelementptr i8, ptr %153, i64 24
  store i32 %157, ptr %158, align 4, !alias.scope !14, !noalias !18
  %159 = getelementptr i8, ptr %152, i64 8
  %160 = load i32, ptr %159, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %161 = getelementptr i8, ptr %153, i64 40
  store i32 %160, ptr %161, align 4, !alias.scope !14, !noalias !18
  %162 = getelementptr i8, ptr %152, i64 12
  %163 = load i32, ptr %162, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %164 = getelementptr i8, ptr %153, i64 56
  store i32 %163, ptr %164, align 4, !alias.scope !14, !noalias !18
  %165 = getelementptr i8, ptr %152, i64 16
  %166 = load i32, ptr %165, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %167 = getelementptr i8, ptr %153, i64 72
  store i32 %166, ptr %167, align 4, !alias.scope !14, !noalias !18
  %168 = getelementptr i8, ptr %152, i64 20
  %169 = load i32, ptr %168, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %170 = getelementptr i8, ptr %153, i64 88
  store i32 %169, ptr %170, align 4, !alias.scope !14, !noalias !18
  %171 = getelementptr i8, ptr %152, i64 24
  %172 = load i32, ptr %171, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %173 = getelementptr i8, ptr %153, i64 104
  store i32 %172, ptr %173, align 4, !alias.scope !14, !noalias !18
  %174 = getelementptr i8, ptr %152, i64 28
  %175 = load i32, ptr %174, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %176 = getelementptr i8, ptr %153, i64 120
  store i32 %175, ptr %176, align 4, !alias.scope !14, !noalias !18
  %177 = getelementptr i8, ptr %152, i64 32
  %178 = load i32, ptr %177, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %179 = getelementptr i8, ptr %153, i64 136
  store i32 %178, ptr %179, align 4, !alias.scope !14, !noalias !18
  %180 = getelementptr i8, ptr %152, i64 36
  %181 = load i32, ptr %180, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %182 = getelementptr i8, ptr %153, i64 152
  store i32 %181, ptr %182, align 4, !alias.scope !14, !noalias !18
  %183 = getelementptr i8, ptr %152, i64 40
  %184 = load i32, ptr %183, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %185 = getelementptr i8, ptr %153, i64 168
  store i32 %184, ptr %185, align 4, !alias.scope !14, !noalias !18
  %186 = getelementptr i8, ptr %152, i64 44
  %187 = load i32, ptr %186, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %188 = getelementptr i8, ptr %153, i64 184
  store i32 %187, ptr %188, align 4, !alias.scope !14, !noalias !18
  %189 = getelementptr i8, ptr %152, i64 48
  %190 = load i32, ptr %189, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %191 = getelementptr i8, ptr %153, i64 200
  store i32 %190, ptr %191, align 4, !alias.scope !14, !noalias !18
  %192 = getelementptr i8, ptr %152, i64 52
  %193 = load i32, ptr %192, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %194 = getelementptr i8, ptr %153, i64 216
  store i32 %193, ptr %194, align 4, !alias.scope !14, !noalias !18
  %195 = getelementptr i8, ptr %152, i64 56
  %196 = load i32, ptr %195, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %197 = getelementptr i8, ptr %153, i64 232
  store i32 %196, ptr %197, align 4, !alias.scope !14, !noalias !18
  %198 = getelementptr i8, ptr %152, i64 60
  %199 = load i32, ptr %198, align 4, !invariant.load !3, !alias.scope !8, !noalias !22
  %200 = getelementptr i8, ptr %153, i64 248
  store i32 %199, ptr %200, align 4, !alias.scope !14, !noalias !18
  %201 = add nuw nsw i64 %151, 1
  %exitcond53.not = icmp eq i64 %201, 16
  br i1 %exitcond53.not, label %202, label %.preheader35, !llvm.loop !19

202:                                              ; preds = %.preheader35
  %203 = add nuw nsw i64 %148, 1
  %exitcond54.not = icmp eq i64 %203, 16
  br i1 %exitcond54.not, label %204, label %.preheader36, !llvm.loop !19

204:                                              ; preds = %202
  %205 = add nuw nsw i64 %144, 1
  %exitcond55.not = icmp eq i64 %205, 16
  br i1 %exitcond55.not, label %.preheader34, label %.preheader37, !llvm.loop !19

.preheader33:                                     ; preds = %.preheader34, %265
  %206 = phi i64 [ 0, %.preheader34 ], [ %266, %265 ]
  %.idx = shl i64 %206, 14
  %207 = getelementptr i8, ptr %147, i64 %.idx
  %.idx3 = shl i64 %206, 16
  %208 = getelementptr i8, ptr %20, i64 %.idx3
  br label %.preheader32

.preheader32:                                     ; preds = %.preheader33, %263
  %209 = phi i64 [ 0, %.preheader33 ], [ %264, %263 ]
  %.idx1 = shl i64 %209, 10
  %210 = getelementptr i8, ptr %207, i64 %.idx1
  %.idx4 = shl i64 %209, 12
  %211 = getelementptr i8, ptr %208, i64 %.idx4
  br label %.preheader

.preheader:                                       ; preds = %.preheader32, %.preheader
  %212 = phi i64 [ 0, %.preheader32 ], [ %262, %.preheader ]
  %.idx2 = shl i64 %212, 6
  %213 = getelementptr i8, ptr %210, i64 %.idx2
  %.idx5 = shl i64 %212, 8
  %214 = getelementptr i8, ptr %211, i64 %.idx5
  %215 = load i32, ptr %213, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %216 = getelementptr i8, ptr %214, i64 12
  store i32 %215, ptr %216, align 4, !alias.scope !14, !noalias !18
  %217 = getelementptr i8, ptr %213, i64 4
  %218 = load i32, ptr %217, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %219 = getelementptr i8, ptr %214, i64 28
  store i32 %218, ptr %219, align 4, !alias.scope !14, !noalias !18
  %220 = getelementptr i8, ptr %213, i64 8
  %221 = load i32, ptr %220, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %222 = getelementptr i8, ptr %214, i64 44
  store i32 %221, ptr %222, align 4, !alias.scope !14, !noalias !18
  %223 = getelementptr i8, ptr %213, i64 12
  %224 = load i32, ptr %223, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %225 = getelementptr i8, ptr %214, i64 60
  store i32 %224, ptr %225, align 4, !alias.scope !14, !noalias !18
  %226 = getelementptr i8, ptr %213, i64 16
  %227 = load i32, ptr %226, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %228 = getelementptr i8, ptr %214, i64 76
  store i32 %227, ptr %228, align 4, !alias.scope !14, !noalias !18
  %229 = getelementptr i8, ptr %213, i64 20
  %230 = load i32, ptr %229, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %231 = getelementptr i8, ptr %214, i64 92
  store i32 %230, ptr %231, align 4, !alias.scope !14, !noalias !18
  %232 = getelementptr i8, ptr %213, i64 24
  %233 = load i32, ptr %232, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %234 = getelementptr i8, ptr %214, i64 108
  store i32 %233, ptr %234, align 4, !alias.scope !14, !noalias !18
  %235 = getelementptr i8, ptr %213, i64 28
  %236 = load i32, ptr %235, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %237 = getelementptr i8, ptr %214, i64 124
  store i32 %236, ptr %237, align 4, !alias.scope !14, !noalias !18
  %238 = getelementptr i8, ptr %213, i64 32
  %239 = load i32, ptr %238, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %240 = getelementptr i8, ptr %214, i64 140
  store i32 %239, ptr %240, align 4, !alias.scope !14, !noalias !18
  %241 = getelementptr i8, ptr %213, i64 36
  %242 = load i32, ptr %241, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %243 = getelementptr i8, ptr %214, i64 156
  store i32 %242, ptr %243, align 4, !alias.scope !14, !noalias !18
  %244 = getelementptr i8, ptr %213, i64 40
  %245 = load i32, ptr %244, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %246 = getelementptr i8, ptr %214, i64 172
  store i32 %245, ptr %246, align 4, !alias.scope !14, !noalias !18
  %247 = getelementptr i8, ptr %213, i64 44
  %248 = load i32, ptr %247, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %249 = getelementptr i8, ptr %214, i64 188
  store i32 %248, ptr %249, align 4, !alias.scope !14, !noalias !18
  %250 = getelementptr i8, ptr %213, i64 48
  %251 = load i32, ptr %250, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %252 = getelementptr i8, ptr %214, i64 204
  store i32 %251, ptr %252, align 4, !alias.scope !14, !noalias !18
  %253 = getelementptr i8, ptr %213, i64 52
  %254 = load i32, ptr %253, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %255 = getelementptr i8, ptr %214, i64 220
  store i32 %254, ptr %255, align 4, !alias.scope !14, !noalias !18
  %256 = getelementptr i8, ptr %213, i64 56
  %257 = load i32, ptr %256, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %258 = getelementptr i8, ptr %214, i64 236
  store i32 %257, ptr %258, align 4, !alias.scope !14, !noalias !18
  %259 = getelementptr i8, ptr %213, i64 60
  %260 = load i32, ptr %259, align 4, !invariant.load !3, !alias.scope !5, !noalias !23
  %261 = getelementptr i8, ptr %214, i64 252
  store i32 %260, ptr %261, align 4, !alias.scope !14, !noalias !18
  %262 = add nuw nsw i64 %212, 1
  %exitcond57.not = icmp eq i64 %262, 16
  br i1 %exitcond57.not, label %263, label %.preheader, !llvm.loop !19

263:                                              ; preds = %.preheader
  %264 = add nuw nsw i64 %209, 1
  %exitcond58.not = icmp eq i64 %264, 16
  br i1 %exitcond58.not, label %265, label %.preheader32, !llvm.loop !19

265:                                              ; preds = %263
  %266 = add nuw nsw i64 %206, 1
  %exitcond59.not = icmp eq i64 %266, 16
  br i1 %exitcond59.not, label %concatenate_bitcast_fusion.1_wrapped.exit, label %.preheader33, !llvm.loop !19

concatenate_bitcast_fusion.1_wrapped.exit:        ; preds = %265, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 10}
!2 = !{!"xla_cpu_emitter__concatenate_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 524288}
!5 = !{!6}
!6 = distinct !{!6, !7, !"concatenate_bitcast_fusion.1_wrapped: argument 0"}
!7 = distinct !{!7, !"concatenate_bitcast_fusion.1_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"concatenate_bitcast_fusion.1_wrapped: argument 1"}
!10 = !{!11}
!11 = distinct !{!11, !7, !"concatenate_bitcast_fusion.1_wrapped: argument 2"}
!12 = !{!13}
!13 = distinct !{!13, !7, !"concatenate_bitcast_fusion.1_wrapped: argument 3"}
!14 = !{!15}
!15 = distinct !{!15, !7, !"concatenate_bitcast_fusion.1_wrapped: argument 4"}
!16 = !{i64 2097152}
!17 = !{!6, !9, !11, !15}
!18 = !{!6, !9, !11, !13}
!19 = distinct !{!19, !20}
!20 = !{!"llvm.loop.unroll.disable"}
!21 = !{!6, !9, !13, !15}
!22 = !{!6, !11, !13, !15}
!23 = !{!9, !11, !13, !15}
