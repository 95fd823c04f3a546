; ModuleID = '__compute_module_subtract_exponential_fusion_kernel_module'
source_filename = "__compute_module_subtract_exponential_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @subtract_exponential_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
vector.ph:
  %1 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %2 = load ptr, ptr %1, align 8, !invariant.load !3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3, !dereferenceable !4
  %4 = getelementptr inbounds nuw i8, ptr %2, i64 16
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !5
  %6 = getelementptr inbounds nuw i8, ptr %2, i64 48
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !5
  tail call void @llvm.experimental.noalias.scope.decl(metadata !6)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !9)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !11)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !13)
  %8 = getelementptr inbounds nuw i8, ptr %2, i64 32
  %9 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !15
  %.phi.trans.insert17 = getelementptr inbounds nuw i8, ptr %9, i64 36
  %.pre18 = load float, ptr %.phi.trans.insert17, align 4, !invariant.load !3, !alias.scope !11, !noalias !16
  %.phi.trans.insert15 = getelementptr inbounds nuw i8, ptr %9, i64 32
  %.pre16 = load float, ptr %.phi.trans.insert15, align 4, !invariant.load !3, !alias.scope !11, !noalias !16
  %.phi.trans.insert13 = getelementptr inbounds nuw i8, ptr %9, i64 28
  %.pre14 = load float, ptr %.phi.trans.insert13, align 4, !invariant.load !3, !alias.scope !11, !noalias !16
  %.phi.trans.insert11 = getelementptr inbounds nuw i8, ptr %9, i64 24
  %10 = load <4 x float>, ptr %.phi.trans.insert11, align 4
  %.phi.trans.insert9 = getelementptr inbounds nuw i8, ptr %9, i64 20
  %11 = load <4 x float>, ptr %.phi.trans.insert9, align 4
  %.phi.trans.insert7 = getelementptr inbounds nuw i8, ptr %9, i64 16
  %12 = load <4 x float>, ptr %.phi.trans.insert7, align 4
  %.phi.trans.insert5 = getelementptr inbounds nuw i8, ptr %9, i64 12
  %13 = load <4 x float>, ptr %.phi.trans.insert5, align 4
  %.phi.trans.insert3 = getelementptr inbounds nuw i8, ptr %9, i64 8
  %14 = load <4 x float>, ptr %.phi.trans.insert3, align 4
  %.phi.trans.insert = getelementptr inbounds nuw i8, ptr %9, i64 4
  %15 = load <4 x float>, ptr %.phi.trans.insert, align 4
  %16 = load <4 x float>, ptr %9, align 4
  %broadcast.splat = shufflevector <4 x float> %16, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splat20 = shufflevector <4 x float> %15, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splat22 = shufflevector <4 x float> %14, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splat24 = shufflevector <4 x float> %13, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splat26 = shufflevector <4 x float> %12, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splat28 = shufflevector <4 x float> %11, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splat30 = shufflevector <4 x float> %10, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splatinsert31 = insertelement <8 x float> poison, float %.pre14, i64 0
  %broadcast.splat32 = shufflevector <8 x float> %broadcast.splatinsert31, <8 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splatinsert33 = insertelement <8 x float> poison, float %.pre16, i64 0
  %broadcast.splat34 = shufflevector <8 x float> %broadcast.splatinsert33, <8 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splatinsert35 = insertelement <8 x float> poison, float %.pre18, i64 0
  %broadcast.splat36 = shufflevector <8 x float> %broadcast.splatinsert35, <8 x float> poison, <8 x i32> zeroinitializer
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %vector.ph
  %index = phi i64 [ 0, %vector.ph ], [ %index.next, %vector.body ]
  %vec.ind = phi <8 x i64> [ <i64 0, i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7>, %vector.ph ], [ %vec.ind.next, %vector.body ]
  %17 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %index
  %wide.load = load <8 x float>, ptr %17, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %18 = mul nuw nsw <8 x i64> %vec.ind, splat (i64 10)
  %19 = extractelement <8 x i64> %18, i64 0
  %20 = extractelement <8 x i64> %18, i64 1
  %21 = extractelement <8 x i64> %18, i64 2
  %22 = extractelement <8 x i64> %18, i64 3
  %23 = extractelement <8 x i64> %18, i64 4
  %24 = extractelement <8 x i64> %18, i64 5
  %25 = extractelement <8 x i64> %18, i64 6
  %26 = extractelement <8 x i64> %18, i64 7
  %27 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %19
  %28 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %20
  %29 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %21
  %30 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %22
  %31 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %23
  %32 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %24
  %33 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %25
  %34 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %26
  %35 = load float, ptr %27, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %36 = load float, ptr %28, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %37 = load float, ptr %29, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %38 = load float, ptr %30, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %39 = load float, ptr %31, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %40 = load float, ptr %32, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %41 = load float, ptr %33, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %42 = load float, ptr %34, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %43 = insertelement <8 x float> poison, float %35, i64 0
  %44 = insertelement <8 x float> %43, float %36, i64 1
  %45 = insertelement <8 x float> %44, float %37, i64 2
  %46 = insertelement <8 x float> %45, float %38, i64 3
  %47 = insertelement <8 x float> %46, float %39, i64 4
  %48 = insertelement <8 x float> %47, float %40, i64 5
  %49 = insertelement <8 x float> %48, float %41, i64 6
  %50 = insertelement <8 x float> %49, float %42, i64 7
  %51 = fadd <8 x float> %50, %broadcast.splat
  %52 = fsub <8 x float> %51, %wide.load
  %53 = fcmp uge <8 x float> %52, splat (float -8.780000e+01)
  %54 = select <8 x i1> %53, <8 x float> %52, <8 x float> splat (float -8.780000e+01)
  %55 = fcmp ule <8 x float> %54, splat (float 8.880000e+01)
  %56 = select <8 x i1> %55, <8 x float> %54, <8 x float> splat (float 8.880000e+01)
  %exp_f32.i189 = fmul <8 x float> %56, splat (float f0x3FB8AA3B)
  %exp_f321.i190 = fadd <8 x float> splat (float 5.000000e-01), %exp_f32.i189
  %57 = call <8 x float> @llvm.floor.v8f32(<8 x float> %exp_f321.i190)
  %58 = fcmp uge <8 x float> %57, splat (float -1.270000e+02)
  %59 = select <8 x i1> %58, <8 x float> %57, <8 x float> splat (float -1.270000e+02)
  %60 = fcmp ule <8 x float> %59, splat (float 1.270000e+02)
  %61 = select <8 x i1> %60, <8 x float> %59, <8 x float> splat (float 1.270000e+02)
  %exp_f322.i191 = fmul <8 x float> splat (float f0x3F318000), %61
  %62 = fsub <8 x float> %56, %exp_f322.i191
  %exp_f323.i192 = fmul <8 x float> splat (float f0xB95E8083), %61
  %63 = fsub <8 x float> %62, %exp_f323.i192
  %exp_f324.i193 = fmul <8 x float> %63, splat (float f0x39506967)
  %exp_f325.i194 = fadd <8 x float> splat (float f0x3AB743CE), %exp_f324.i193
  %exp_f326.i195 = fmul <8 x float> %exp_f325.i194, %63
  %exp_f327.i196 = fadd <8 x float> splat (float f0x3C088908), %exp_f326.i195
  %exp_f328.i197 = fmul <8 x float> %exp_f327.i196, %63
  %exp_f329.i198 = fadd <8 x float> splat (float f0x3D2AA9C1), %exp_f328.i197
  %exp_f3210.i199 = fmul <8 x float> %exp_f329.i198, %63
  %exp_f3211.i200 = fadd <8 x float> splat (float f0x3E2AAAAA), %exp_f3210.i199
  %exp_f3212.i201 = fmul <8 x float> %exp_f3211.i200, %63
  %exp_f3213.i202 = fadd <8 x float> splat (float 5.000000e-01), %exp_f3212.i201
  %exp_f3214.i203 = fmul <8 x float> %63, %63
  %exp_f3215.i204 = fmul <8 x float> %exp_f3213.i202, %exp_f3214.i203
  %exp_f3216.i205 = fadd <8 x float> %63, %exp_f3215.i204
  %exp_f3217.i206 = fadd <8 x float> splat (float 1.000000e+00), %exp_f3216.i205
  %64 = fptosi <8 x float> %61 to <8 x i32>
  %65 = add <8 x i32> %64, splat (i32 127)
  %66 = shl <8 x i32> %65, splat (i32 23)
  %67 = bitcast <8 x i32> %66 to <8 x float>
  %exp_f3218.i207 = fmul <8 x float> %exp_f3217.i206, %67
  %68 = extractelement <8 x float> %exp_f3218.i207, i64 0
  %69 = extractelement <8 x float> %exp_f3218.i207, i64 1
  %70 = extractelement <8 x float> %exp_f3218.i207, i64 2
  %71 = extractelement <8 x float> %exp_f3218.i207, i64 3
  %72 = extractelement <8 x float> %exp_f3218.i207, i64 4
  %73 = extractelement <8 x float> %exp_f3218.i207, i64 5
  %74 = extractelement <8 x float> %exp_f3218.i207, i64 6
  %75 = extractelement <8 x float> %exp_f3218.i207, i64 7
  %76 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %19
  %77 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %20
  %78 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %21
  %79 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %22
  %80 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %23
  %81 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %24
  %82 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %25
  %83 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %26
  store float %68, ptr %76, align 4, !alias.scope !13, !noalias !19
  store float %69, ptr %77, align 4, !alias.scope !13, !noalias !19
  store float %70, ptr %78, align 4, !alias.scope !13, !noalias !19
  store float %71, ptr %79, align 4, !alias.scope !13, !noalias !19
  store float %72, ptr %80, align 4, !alias.scope !13, !noalias !19
  store float %73, ptr %81, align 4, !alias.scope !13, !noalias !19
  store float %74, ptr %82, align 4, !alias.scope !13, !noalias !19
  store float %75, ptr %83, align 4, !alias.scope !13, !noalias !19
  %84 = or disjoint <8 x i64> %18, splat (i64 1)
  %85 = extractelement <8 x i64> %84, i64 0
  %86 = extractelement <8 x i64> %84, i64 1
  %87 = extractelement <8 x i64> %84, i64 2
  %88 = extractelement <8 x i64> %84, i64 3
  %89 = extractelement <8 x i64> %84, i64 4
  %90 = extractelement <8 x i64> %84, i64 5
  %91 = extractelement <8 x i64> %84, i64 6
  %92 = extractelement <8 x i64> %84, i64 7
  %93 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %85
  %94 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %86
  %95 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %87
  %96 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %88
  %97 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %89
  %98 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %90
  %99 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %91
  %100 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %92
  %101 = load float, ptr %93, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %102 = load float, ptr %94, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %103 = load float, ptr %95, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %104 = load float, ptr %96, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %105 = load float, ptr %97, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %106 = load float, ptr %98, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %107 = load float, ptr %99, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %108 = load float, ptr %100, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %109 = insertelement <8 x float> poison, float %101, i64 0
  %110 = insertelement <8 x float> %109, float %102, i64 1
  %111 = insertelement <8 x float> %110, float %103, i64 2
  %112 = insertelement <8 x float> %111, float %104, i64 3
  %113 = insertelement <8 x float> %112, float %105, i64 4
  %114 = insertelement <8 x float> %113, float %106, i64 5
  %115 = insertelement <8 x float> %114, float %107, i64 6
  %116 = insertelement <8 x float> %115, float %108, i64 7
  %117 = fadd <8 x float> %116, %broadcast.splat20
  %118 = fsub <8 x float> %117, %wide.load
  %119 = fcmp uge <8 x float> %118, splat (float -8.780000e+01)
  %120 = select <8 x i1> %119, <8 x float> %118, <8 x float> splat (float -8.780000e+01)
  %121 = fcmp ule <8 x float> %120, splat (float 8.880000e+01)
  %122 = select <8 x i1> %121, <8 x float> %120, <8 x float> splat (float 8.880000e+01)
  %exp_f32.i170 = fmul <8 x float> %122, splat (float f0x3FB8AA3B)
  %exp_f321.i171 = fadd <8 x float> splat (float 5.000000e-01), %exp_f32.i170
  %123 = call <8 x float> @llvm.floor.v8f32(<8 x float> %exp_f321.i171)
  %124 = fcmp uge <8 x float> %123, splat (float -1.270000e+02)
  %125 = select <8 x i1> %124, <8 x float> %123, <8 x float> splat (float -1.270000e+02)
  %126 = fcmp ule <8 x float> %125, splat (float 1.270000e+02)
  %127 = select <8 x i1> %126, <8 x float> %125, <8 x float> splat (float 1.270000e+02)
  %exp_f322.i172 = fmul <8 x float> splat (float f0x3F318000), %127
  %128 = fsub <8 x float> %122, %exp_f322.i172
  %exp_f323.i173 = fmul <8 x float> splat (float f0xB95E8083), %127
  %129 = fsub <8 x float> %128, %exp_f323.i173
  %exp_f324.i174 = fmul <8 x float> %129, splat (float f0x39506967)
  %exp_f325.i175 = fadd <8 x float> splat (float f0x3AB743CE), %exp_f324.i174
  %exp_f326.i176 = fmul <8 x float> %exp_f325.i175, %129
  %exp_f327.i177 = fadd <8 x float> splat (float f0x3C088908), %exp_f326.i176
  %exp_f328.i178 = fmul <8 x float> %exp_f327.i177, %129
  %exp_f329.i179 = fadd <8 x float> splat (float f0x3D2AA9C1), %exp_f328.i178
  %exp_f3210.i180 = fmul <8 x float> %exp_f329.i179, %129
  %exp_f3211.i181 = fadd <8 x float> splat (float f0x3E2AAAAA), %exp_f3210.i180
  %exp_f3212.i182 = fmul <8 x float> %exp_f3211.i181, %129
  %exp_f3213.i183 = fadd <8 x float> splat (float 5.000000e-01), %exp_f3212.i182
  %exp_f3214.i184 = fmul <8 x float> %129, %129
  %exp_f3215.i185 = fmul <8 x float> %exp_f3213.i183, %exp_f3214.i184
  %exp_f3216.i186 = fadd <8 x float> %129, %exp_f3215.i185
  %exp_f3217.i187 = fadd <8 x float> splat (float 1.000000e+00), %exp_f3216.i186
  %130 = fptosi <8 x float> %127 to <8 x i32>
  %131 = add <8 x i32> %130, splat (i32 127)
  %132 = shl <8 x i32> %131, splat (i32 23)
  %133 = bitcast <8 x i32> %132 to <8 x float>
  %exp_f3218.i188 = fmul <8 x float> %exp_f3217.i187, %133
  %134 = extractelement <8 x float> %exp_f3218.i188, i64 0
  %135 = extractelement <8 x float> %exp_f3218.i188, i64 1
  %136 = extractelement <8 x float> %exp_f3218.i188, i64 2
  %137 = extractelement <8 x float> %exp_f3218.i188, i64 3
  %138 = extractelement <8 x float> %exp_f3218.i188, i64 4
  %139 = extractelement <8 x float> %exp_f3218.i188, i64 5
  %140 = extractelement <8 x float> %exp_f3218.i188, i64 6
  %141 = extractelement <8 x float> %exp_f3218.i188, i64 7
  %142 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %85
  %143 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %86
  %144 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %87
  %145 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %88
  %146 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %89
  %147 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %90
  %148 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %91
  %149 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %92
  store float %134, ptr %142, align 4, !alias.scope !13, !noalias !19
  store float %135, ptr %143, align 4, !alias.scope !13, !noalias !19
  store float %136, ptr %144, align 4, !alias.scope !13, !noalias !19
  store float %137, ptr %145, align 4, !alias.scope !13, !noalias !19
  store float %138, ptr %146, align 4, !alias.scope !13, !noalias !19
  store float %139, ptr %147, align 4, !alias.scope !13, !noalias !19
  store float %140, ptr %148, align 4, !alias.scope !13, !noalias !19
  store float %141, ptr %149, align 4, !alias.scope !13, !noalias !19
  %150 = add nuw nsw <8 x i64> %18, splat (i64 2)
  %151 = extractelement <8 x i64> %150, i64 0
  %152 = extractelement <8 x i64> %150, i64 1
  %153 = extractelement <8 x i64> %150, i64 2
  %154 = extractelement <8 x i64> %150, i64 3
  %155 = extractelement <8 x i64> %150, i64 4
  %156 = extractelement <8 x i64> %150, i64 5
  %157 = extractelement <8 x i64> %150, i64 6
  %158 = extractelement <8 x i64> %150, i64 7
  %159 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %151
  %160 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %152
  %161 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %153
  %162 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %154
  %163 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %155
  %164 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %156
  %165 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %157
  %166 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %158
  %167 = load float, ptr %159, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %168 = load float, ptr %160, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %169 = load float, ptr %161, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %170 = load float, ptr %162, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %171 = load float, ptr %163, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %172 = load float, ptr %164, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %173 = load float, ptr %165, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %174 = load float, ptr %166, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %175 = insertelement <8 x float> poison, float %167, i64 0
  %176 = insertelement <8 x float> %175, float %168, i64 1
  %177 = insertelement <8 x float> %176, float %169, i64 2
  %178 = insertelement <8 x float> %177, float %170, i64 3
  %179 = insertelement <8 x float> %178, float %171, i64 4
  %180 = insertelement <8 x float> %179, float %172, i64 5
  %181 = insertelement <8 x float> %180, float %173, i64 6
  %182 = insertelement <8 x float> %181, float %174, i64 7
  %183 = fadd <8 x float> %182, %broadcast.splat22
  %184 = fsub <8 x float> %183, %wide.load
  %185 = fcmp uge <8 x float> %184, splat (float -8.780000e+01)
  %186 = select <8 x i1> %185, <8 x float> %184, <8 x float> splat (float -8.780000e+01)
  %187 = fcmp ule <8 x float> %186, splat (float 8.880000e+01)
  %188 = select <8 x i1> %187, <8 x float> %186, <8 x float> splat (float 8.880000e+01)
  %exp_f32.i151 = fmul <8 x float> %188, splat (float f0x3FB8AA3B)
  %exp_f321.i152 = fadd <8 x float> splat (float 5.000000e-01), %exp_f32.i151
  %189 = call <8 x float> @llvm.floor.v8f32(<8 x float> %exp_f321.i152)
  %190 = fcmp uge <8 x float> %189, splat (float -1.270000e+02)
  %191 = select <8 x i1> %190, <8 x float> %189, <8 x float> splat (float -1.270000e+02)
  %192 = fcmp ule <8 x float> %191, splat (float 1.270000e+02)
  %193 = select <8 x i1> %192, <8 x float> %191, <8 x float> splat (float 1.270000e+02)
  %exp_f322.i153 = fmul <8 x float> splat (float f0x3F318000), %193
  %194 = fsub <8 x float> %188, %exp_f322.i153
  %exp_f323.i154 = fmul <8 x float> splat (float f0xB95E8083), %193
  %195 = fsub <8 x float> %194, %exp_f323.i154
  %exp_f324.i155 = fmul <8 x float> %195, splat (float f0x39506967)
  %exp_f325.i156 = fadd <8 x float> splat (float f0x3AB743CE), %exp_f324.i155
  %exp_f326.i157 = fmul <8 x float> %exp_f325.i156, %195
  %exp_f327.i158 = fadd <8 x float> splat (float f0x3C088908), %exp_f326.i157
  %exp_f328.i159 = fmul <8 x float> %exp_f327.i158, %195
  %exp_f329.i160 = fadd <8 x float> splat (float f0x3D2AA9C1), %exp_f328.i159
  %exp_f3210.i161 = fmul <8 x float> %exp_f329.i160, %195
  %exp_f3211.i162 = fadd <8 x float> splat (float f0x3E2AAAAA), %exp_f3210.i161
  %exp_f3212.i163 = fmul <8 x float> %exp_f3211.i162, %195
  %exp_f3213.i164 = fadd <8 x float> splat (float 5.000000e-01), %exp_f3212.i163
  %exp_f3214.i165 = fmul <8 x float> %195, %195
  %exp_f3215.i166 = fmul <8 x float> %exp_f3213.i164, %exp_f3214.i165
  %exp_f3216.i167 = fadd <8 x float> %195, %exp_f3215.i166
  %exp_f3217.i168 = fadd <8 x float> splat (float 1.000000e+00), %exp_f3216.i167
  %196 = fptosi <8 x float> %193 to <8 x i32>
  %197 = add <8 x i32> %196, splat (i32 127)
  %198 = shl <8 x i32> %197, splat (i32 23)
  %199 = bitcast <8 x i32> %198 to <8 x float>
  %exp_f3218.i169 = fmul <8 x float> %exp_f3217.i168, %199
  %200 = extractelement <8 x float> %exp_f3218.i169, i64 0
  %201 = extractelement <8 x float> %exp_f3218.i169, i64 1
  %202 = extractelement <8 x float> %exp_f3218.i169, i64 2
  %203 = extractelement <8 x float> %exp_f3218.i169, i64 3
  %204 = extractelement <8 x float> %exp_f3218.i169, i64 4
  %205 = extractelement <8 x float> %exp_f3218.i169, i64 5
  %206 = extractelement <8 x float> %exp_f3218.i169, i64 6
  %207 = extractelement <8 x float> %exp_f3218.i169, i64 7
  %208 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %151
  %209 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %152
  %210 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %153
  %211 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %154
  %212 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %155
  %213 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %156
  %214 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %157
  %215 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %158
  store float %200, ptr %208, align 4, !alias.scope !13, !noalias !19
  store float %201, ptr %209, align 4, !alias.scope !13, !noalias !19
  store float %202, ptr %210, align 4, !alias.scope !13, !noalias !19
  store float %203, ptr %211, align 4, !alias.scope !13, !noalias !19
  store float %204, ptr %212, align 4, !alias.scope !13, !noalias !19
  store float %205, ptr %213, align 4, !alias.scope !13, !noalias !19
  store float %206, ptr %214, align 4, !alias.scope !13, !noalias !19
  store float %207, ptr %215, align 4, !alias.scope !13, !noalias !19
  %216 = add nuw nsw <8 x i64> %18, splat (i64 3)
  %217 = extractelement <8 x i64> %216, i64 0
  %218 = extractelement <8 x i64> %216, i64 1
  %219 = extractelement <8 x i64> %216, i64 2
  %220 = extractelement <8 x i64> %216, i64 3
  %221 = extractelement <8 x i64> %216, i64 4
  %222 = extractelement <8 x i64> %216, i64 5
  %223 = extractelement <8 x i64> %216, i64 6
  %224 = extractelement <8 x i64> %216, i64 7
  %225 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %217
  %226 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %218
  %227 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %219
  %228 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %220
  %229 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %221
  %230 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %222
  %231 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %223
  %232 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %224
  %233 = load float, ptr %225, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %234 = load float, ptr %226, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %235 = load float, ptr %227, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %236 = load float, ptr %228, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %237 = load float, ptr %229, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %238 = load float, ptr %230, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %239 = load float, ptr %231, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %240 = load float, ptr %232, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %241 = insertelement <8 x float> poison, float %233, i64 0
  %242 = insertelement <8 x float> %241, float %234, i64 1
  %243 = insertelement <8 x float> %242, float %235, i64 2
  %244 = insertelement <8 x float> %243, float %236, i64 3
  %245 = insertelement <8 x float> %244, float %237, i64 4
  %246 = insertelement <8 x float> %245, float %238, i64 5
  %247 = insertelement <8 x float> %246, float %239, i64 6
  %248 = insertelement <8 x float> %247, float %240, i64 7
  %249 = fadd <8 x float> %248, %broadcast.splat24
  %250 = fsub <8 x float> %249, %wide.load
  %251 = fcmp uge <8 x float> %250, splat (float -8.780000e+01)
  %252 = select <8 x i1> %251, <8 x float> %250, <8 x float> splat (float -8.780000e+01)
  %253 = fcmp ule <8 x float> %252, splat (float 8.880000e+01)
  %254 = select <8 x i1> %253, <8 x float> %252, <8 x float> splat (float 8.880000e+01)
  %exp_f32.i132 = fmul <8 x float> %254, splat (float f0x3FB8AA3B)
  %exp_f321.i133 = fadd <8 x float> splat (float 5.000000e-01), %exp_f32.i132
  %255 = call <8 x float> @llvm.floor.v8f32(<8 x float> %exp_f321.i133)
  %256 = fcmp uge <8 x float> %255, splat (float -1.270000e+02)
  %257 = select <8 x i1> %256, <8 x float> %255, <8 x float> splat (float -1.270000e+02)
  %258 = fcmp ule <8 x float> %257, splat (float 1.270000e+02)
  %259 = select <8 x i1> %258, <8 x float> %257, <8 x float> splat (float 1.270000e+02)
  %exp_f322.i134 = fmul <8 x float> splat (float f0x3F318000), %259
  %260 = fsub <8 x float> %254, %exp_f322.i134
  %exp_f323.i135 = fmul <8 x float> splat (float f0xB95E8083), %259
  %261 = fsub <8 x float> %260, %exp_f323.i135
  %exp_f324.i136 = fmul <8 x float> %261, splat (float f0x39506967)
  %exp_f325.i137 = fadd <8 x float> splat (float f0x3AB743CE), %exp_f324.i136
  %exp_f326.i138 = fmul <8 x float> %exp_f325.i137, %261
  %exp_f327.i139 = fadd <8 x float> splat (float f0x3C088908), %exp_f326.i138
  %exp_f328.i140 = fmul <8 x float> %exp_f327.i139, %261
  %exp_f329.i141 = fadd <8 x float> splat (float f0x3D2AA9C1), %exp_f328.i140
  %exp_f3210.i142 = fmul <8 x float> %exp_f329.i141, %261
  %exp_f3211.i143 = fadd <8 x float> splat (float f0x3E2AAAAA), %exp_f3210.i142
  %exp_f3212.i144 = fmul <8 x float> %exp_f3211.i143, %261
  %exp_f3213.i145 = fadd <8 x float> splat (float 5.000000e-01), %exp_f3212.i144
  %exp_f3214.i146 = fmul <8 x float> %261, %261
  %exp_f3215.i147 = fmul <8 x float> %exp_f3213.i145, %exp_f3214.i146
  %exp_f3216.i148 = fadd <8 x float> %261, %exp_f3215.i147
  %exp_f3217.i149 = fadd <8 x float> splat (float 1.000000e+00), %exp_f3216.i148
  %262 = fptosi <8 x float> %259 to <8 x i32>
  %263 = add <8 x i32> %262, splat (i32 127)
  %264 = shl <8 x i32> %263, splat (i32 23)
  %265 = bitcast <8 x i32> %264 to <8 x float>
  %exp_f3218.i150 = fmul <8 x float> %exp_f3217.i149, %265
  %266 = extractelement <8 x float> %exp_f3218.i150, i64 0
  %267 = extractelement <8 x float> %exp_f3218.i150, i64 1
  %268 = extractelement <8 x float> %exp_f3218.i150, i64 2
  %269 = extractelement <8 x float> %exp_f3218.i150, i64 3
  %270 = extractelement <8 x float> %exp_f3218.i150, i64 4
  %271 = extractelement <8 x float> %exp_f3218.i150, i64 5
  %272 = extractelement <8 x float> %exp_f3218.i150, i64 6
  %273 = extractelement <8 x float> %exp_f3218.i150, i64 7
  %274 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %217
  %275 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %218
  %276 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %219
  %277 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %220
  %278 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %221
  %279 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %222
  %280 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %223
  %281 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %224
  store float %266, ptr %274, align 4, !alias.scope !13, !noalias !19
  store float %267, ptr %275, align 4, !alias.scope !13, !noalias !19
  store float %268, ptr %276, align 4, !alias.scope !13, !noalias !19
  store float %269, ptr %277, align 4, !alias.scope !13, !noalias !19
  store float %270, ptr %278, align 4, !alias.scope !13, !noalias !19
  store float %271, ptr %279, align 4, !alias.scope !13, !noalias !19
  store float %272, ptr %280, align 4, !alias.scope !13, !noalias !19
  store float %273, ptr %281, align 4, !alias.scope !13, !noalias !19
  %282 = add nuw nsw <8 x i64> %18, splat (i64 4)
  %283 = extractelement <8 x i64> %282, i64 0
  %284 = extractelement <8 x i64> %282, i64 1
  %285 = extractelement <8 x i64> %282, i64 2
  %286 = extractelement <8 x i64> %282, i64 3
  %287 = extractelement <8 x i64> %282, i64 4
  %288 = extractelement <8 x i64> %282, i64 5
  %289 = extractelement <8 x i64> %282, i64 6
  %290 = extractelement <8 x i64> %282, i64 7
  %291 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %283
  %292 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %284
  %293 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %285
  %294 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %286
  %295 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %287
  %296 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %288
  %297 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %289
  %298 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %290
  %299 = load float, ptr %291, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %300 = load float, ptr %292, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %301 = load float, ptr %293, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %302 = load float, ptr %294, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %303 = load float, ptr %295, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %304 = load float, ptr %296, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %305 = load float, ptr %297, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %306 = load float, ptr %298, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %307 = insertelement <8 x float> poison, float %299, i64 0
  %308 = insertelement <8 x float> %307, float %300, i64 1
  %309 = insertelement <8 x float> %308, float %301, i64 2
  %310 = insertelement <8 x float> %309, float %302, i64 3
  %311 = insertelement <8 x float> %310, float %303, i64 4
  %312 = insertelement <8 x float> %311, float %304, i64 5
  %313 = insertelement <8 x float> %312, float %305, i64 6
  %314 = insertelement <8 x float> %313, float %306, i64 7
  %315 = fadd <8 x float> %314, %broadcast.splat26
  %316 = fsub <8 x float> %315, %wide.load
  %317 = fcmp uge <8 x float> %316, splat (float -8.780000e+01)
  %318 = select <8 x i1> %317, <8 x float> %316, <8 x float> splat (float -8.780000e+01)
  %319 = fcmp ule <8 x float> %318, splat (float 8.880000e+01)
  %320 = select <8 x i1> %319, <8 x float> %318, <8 x float> splat (float 8.880000e+01)
  %exp_f32.i113 = fmul <8 x float> %320, splat (float f0x3FB8AA3B)
  %exp_f321.i114 = fadd <8 x float> splat (float 5.000000e-01), %exp_f32.i113
  %321 = call <8 x float> @llvm.floor.v8f32(<8 x float> %exp_f321.i114)
  %322 = fcmp uge <8 x float> %321, splat (float -1.270000e+02)
  %323 = select <8 x i1> %322, <8 x float> %321, <8 x float> splat (float -1.270000e+02)
  %324 = fcmp ule <8 x float> %323, splat (float 1.270000e+02)
  %325 = select <8 x i1> %324, <8 x float> %323, <8 x float> splat (float 1.270000e+02)
  %exp_f322.i115 = fmul <8 x float> splat (float f0x3F318000), %325
  %326 = fsub <8 x float> %320, %exp_f322.i115
  %exp_f323.i116 = fmul <8 x float> splat (float f0xB95E8083), %325
  %327 = fsub <8 x float> %326, %exp_f323.i116
  %exp_f324.i117 = fmul <8 x float> %327, splat (float f0x39506967)
  %exp_f325.i118 = fadd <8 x float> splat (float f0x3AB743CE), %exp_f324.i117
  %exp_f326.i119 = fmul <8 x float> %exp_f325.i118, %327
  %exp_f327.i120 = fadd <8 x float> splat (float f0x3C088908), %exp_f326.i119
  %exp_f328.i121 = fmul <8 x float> %exp_f327.i120, %327
  %exp_f329.i122 = fadd <8 x float> splat (float f0x3D2AA9C1), %exp_f328.i121
  %exp_f3210.i123 = fmul <8 x float> %exp_f329.i122, %327
  %exp_f3211.i124 = fadd <8 x float> splat (float f0x3E2AAAAA), %exp_f3210.i123
  %exp_f3212.i125 = fmul <8 x float> %exp_f3211.i124, %327
  %exp_f3213.i126 = fadd <8 x float> splat (float 5.000000e-01), %exp_f3212.i125
  %exp_f3214.i127 = fmul <8 x float> %327, %327
  %exp_f3215.i128 = fmul <8 x float> %exp_f3213.i126, %exp_f3214.i127
  %exp_f3216.i129 = fadd <8 x float> %327, %exp_f3215.i128
  %exp_f3217.i130 = fadd <8 x float> splat (float 1.000000e+00), %exp_f3216.i129
  %328 = fptosi <8 x float> %325 to <8 x i32>
  %329 = add <8 x i32> %328, splat (i32 127)
  %330 = shl <8 x i32> %329, splat (i32 23)
  %331 = bitcast <8 x i32> %330 to <8 x float>
  %exp_f3218.i131 = fmul <8 x float> %exp_f3217.i130, %331
  %332 = extractelement <8 x float> %exp_f3218.i131, i64 0
  %333 = extractelement <8 x float> %exp_f3218.i131, i64 1
  %334 = extractelement <8 x float> %exp_f3218.i131, i64 2
  %335 = extractelement <8 x float> %exp_f3218.i131, i64 3
  %336 = extractelement <8 x float> %exp_f3218.i131, i64 4
  %337 = extractelement <8 x float> %exp_f3218.i131, i64 5
  %338 = extractelement <8 x float> %exp_f3218.i131, i64 6
  %339 = extractelement <8 x float> %exp_f3218.i131, i64 7
  %340 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %283
  %341 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %284
  %342 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %285
  %343 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %286
  %344 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %287
  %345 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %288
  %346 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %289
  %347 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %290
  store float %332, ptr %340, align 4, !alias.scope !13, !noalias !19
  store float %333, ptr %341, align 4, !alias.scope !13, !noalias !19
  store float %334, ptr %342, align 4, !alias.scope !13, !noalias !19
  store float %335, ptr %343, align 4, !alias.scope !13, !noalias !19
  store float %336, ptr %344, align 4, !alias.scope !13, !noalias !19
  store float %337, ptr %345, align 4, !alias.scope !13, !noalias !19
  store float %338, ptr %346, align 4, !alias.scope !13, !noalias !19
  store float %339, ptr %347, align 4, !alias.scope !13, !noalias !19
  %348 = add nuw nsw <8 x i64> %18, splat (i64 5)
  %349 = extractelement <8 x i64> %348, i64 0
  %350 = extractelement <8 x i64> %348, i64 1
  %351 = extractelement <8 x i64> %348, i64 2
  %352 = extractelement <8 x i64> %348, i64 3
  %353 = extractelement <8 x i64> %348, i64 4
  %354 = extractelement <8 x i64> %348, i64 5
  %355 = extractelement <8 x i64> %348, i64 6
  %356 = extractelement <8 x i64> %348, i64 7
  %357 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %349
  %358 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %350
  %359 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %351
  %360 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %352
  %361 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %353
  %362 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %354
  %363 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %355
  %364 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %356
  %365 = load float, ptr %357, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %366 = load float, ptr %358, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %367 = load float, ptr %359, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %368 = load float, ptr %360, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %369 = load float, ptr %361, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %370 = load float, ptr %362, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %371 = load float, ptr %363, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %372 = load float, ptr %364, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %373 = insertelement <8 x float> poison, float %365, i64 0
  %374 = insertelement <8 x float> %373, float %366, i64 1
  %375 = insertelement <8 x float> %374, float %367, i64 2
  %376 = insertelement <8 x float> %375, float %368, i64 3
  %377 = insertelement <8 x float> %376, float %369, i64 4
  %378 = insertelement <8 x float> %377, float %370, i64 5
  %379 = insertelement <8 x float> %378, float %371, i64 6
  %380 = insertelement <8 x float> %379, float %372, i64 7
  %381 = fadd <8 x float> %380, %broadcast.splat28
  %382 = fsub <8 x float> %381, %wide.load
  %383 = fcmp uge <8 x float> %382, splat (float -8.780000e+01)
  %384 = select <8 x i1> %383, <8 x float> %382, <8 x float> splat (float -8.780000e+01)
  %385 = fcmp ule <8 x float> %384, splat (float 8.880000e+01)
  %386 = select <8 x i1> %385, <8 x float> %384, <8 x float> splat (float 8.880000e+01)
  %exp_f32.i94 = fmul <8 x float> %386, splat (float f0x3FB8AA3B)
  %exp_f321.i95 = fadd <8 x float> splat (float 5.000000e-01), %exp_f32.i94
  %387 = call <8 x float> @llvm.floor.v8f32(<8 x float> %exp_f321.i95)
  %388 = fcmp uge <8 x float> %387, splat (float -1.270000e+02)
  %389 = select <8 x i1> %388, <8 x float> %387, <8 x float> splat (float -1.270000e+02)
  %390 = fcmp ule <8 x float> %389, splat (float 1.270000e+02)
  %391 = select <8 x i1> %390, <8 x float> %389, <8 x float> splat (float 1.270000e+02)
  %exp_f322.i96 = fmul <8 x float> splat (float f0x3F318000), %391
  %392 = fsub <8 x float> %386, %exp_f322.i96
  %exp_f323.i97 = fmul <8 x float> splat (float f0xB95E8083), %391
  %393 = fsub <8 x float> %392, %exp_f323.i97
  %exp_f324.i98 = fmul <8 x float> %393, splat (float f0x39506967)
  %exp_f325.i99 = fadd <8 x float> splat (float f0x3AB743CE), %exp_f324.i98
  %exp_f326.i100 = fmul <8 x float> %exp_f325.i99, %393
  %exp_f327.i101 = fadd <8 x float> splat (float f0x3C088908), %exp_f326.i100
  %exp_f328.i102 = fmul <8 x float> %exp_f327.i101, %393
  %exp_f329.i103 = fadd <8 x float> splat (float f0x3D2AA9C1), %exp_f328.i102
  %exp_f3210.i104 = fmul <8 x float> %exp_f329.i103, %393
  %exp_f3211.i105 = fadd <8 x float> splat (float f0x3E2AAAAA), %exp_f3210.i104
  %exp_f3212.i106 = fmul <8 x float> %exp_f3211.i105, %393
  %exp_f3213.i107 = fadd <8 x float> splat (float 5.000000e-01), %exp_f3212.i106
  %exp_f3214.i108 = fmul <8 x float> %393, %393
  %exp_f3215.i109 = fmul <8 x float> %exp_f3213.i107, %exp_f3214.i108
  %exp_f3216.i110 = fadd <8 x float> %393, %exp_f3215.i109
  %exp_f3217.i111 = fadd <8 x float> splat (float 1.000000e+00), %exp_f3216.i110
  %394 = fptosi <8 x float> %391 to <8 x i32>
  %395 = add <8 x i32> %394, splat (i32 127)
  %396 = shl <8 x i32> %395, splat (i32 23)
  %397 = bitcast <8 x i32> %396 to <8 x float>
  %exp_f3218.i112 = fmul <8 x float> %exp_f3217.i111, %397
  %398 = extractelement <8 x float> %exp_f3218.i112, i64 0
  %399 = extractelement <8 x float> %exp_f3218.i112, i64 1
  %400 = extractelement <8 x float> %exp_f3218.i112, i64 2
  %401 = extractelement <8 x float> %exp_f3218.i112, i64 3
  %402 = extractelement <8 x float> %exp_f3218.i112, i64 4
  %403 = extractelement <8 x float> %exp_f3218.i112, i64 5
  %404 = extractelement <8 x float> %exp_f3218.i112, i64 6
  %405 = extractelement <8 x float> %exp_f3218.i112, i64 7
  %406 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %349
  %407 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %350
  %408 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %351
  %409 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %352
  %410 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %353
  %411 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %354
  %412 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %355
  %413 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %356
  store float %398, ptr %406, align 4, !alias.scope !13, !noalias !19
  store float %399, ptr %407, align 4, !alias.scope !13, !noalias !19
  store float %400, ptr %408, align 4, !alias.scope !13, !noalias !19
  store float %401, ptr %409, align 4, !alias.scope !13, !noalias !19
  store float %402, ptr %410, align 4, !alias.scope !13, !noalias !19
  store float %403, ptr %411, align 4, !alias.scope !13, !noalias !19
  store float %404, ptr %412, align 4, !alias.scope !13, !noalias !19
  store float %405, ptr %413, align 4, !alias.scope !13, !noalias !19
  %414 = add nuw nsw <8 x i64> %18, splat (i64 6)
  %415 = extractelement <8 x i64> %414, i64 0
  %416 = extractelement <8 x i64> %414, i64 1
  %417 = extractelement <8 x i64> %414, i64 2
  %418 = extractelement <8 x i64> %414, i64 3
  %419 = extractelement <8 x i64> %414, i64 4
  %420 = extractelement <8 x i64> %414, i64 5
  %421 = extractelement <8 x i64> %414, i64 6
  %422 = extractelement <8 x i64> %414, i64 7
  %423 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %415
  %424 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %416
  %425 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %417
  %426 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %418
  %427 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %419
  %428 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %420
  %429 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %421
  %430 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %422
  %431 = load float, ptr %423, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %432 = load float, ptr %424, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %433 = load float, ptr %425, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %434 = load float, ptr %426, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %435 = load float, ptr %427, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %436 = load float, ptr %428, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %437 = load float, ptr %429, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %438 = load float, ptr %430, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %439 = insertelement <8 x float> poison, float %431, i64 0
  %440 = insertelement <8 x float> %439, float %432, i64 1
  %441 = insertelement <8 x float> %440, float %433, i64 2
  %442 = insertelement <8 x float> %441, float %434, i64 3
  %443 = insertelement <8 x float> %442, float %435, i64 4
  %444 = insertelement <8 x float> %443, float %436, i64 5
  %445 = insertelement <8 x float> %444, float %437, i64 6
  %446 = insertelement <8 x float> %445, float %438, i64 7
  %447 = fadd <8 x float> %446, %broadcast.splat30
  %448 = fsub <8 x float> %447, %wide.load
  %449 = fcmp uge <8 x float> %448, splat (float -8.780000e+01)
  %450 = select <8 x i1> %449, <8 x float> %448, <8 x float> splat (float -8.780000e+01)
  %451 = fcmp ule <8 x float> %450, splat (float 8.880000e+01)
  %452 = select <8 x i1> %451, <8 x float> %450, <8 x float> splat (float 8.880000e+01)
  %exp_f32.i75 = fmul <8 x float> %452, splat (float f0x3FB8AA3B)
  %exp_f321.i76 = fadd <8 x float> splat (float 5.000000e-01), %exp_f32.i75
  %453 = call <8 x float> @llvm.floor.v8f32(<8 x float> %exp_f321.i76)
  %454 = fcmp uge <8 x float> %453, splat (float -1.270000e+02)
  %455 = select <8 x i1> %454, <8 x float> %453, <8 x float> splat (float -1.270000e+02)
  %456 = fcmp ule <8 x float> %455, splat (float 1.270000e+02)
  %457 = select <8 x i1> %456, <8 x float> %455, <8 x float> splat (float 1.270000e+02)
  %exp_f322.i77 = fmul <8 x float> splat (float f0x3F318000), %457
  %458 = fsub <8 x float> %452, %exp_f322.i77
  %exp_f323.i78 = fmul <8 x float> splat (float f0xB95E8083), %457
  %459 = fsub <8 x float> %458, %exp_f323.i78
  %exp_f324.i79 = fmul <8 x float> %459, splat (float f0x39506967)
  %exp_f325.i80 = fadd <8 x float> splat (float f0x3AB743CE), %exp_f324.i79
  %exp_f326.i81 = fmul <8 x float> %exp_f325.i80, %459
  %exp_f327.i82 = fadd <8 x float> splat (float f0x3C088908), %exp_f326.i81
  %exp_f328.i83 = fmul <8 x float> %exp_f327.i82, %459
  %exp_f329.i84 = fadd <8 x float> splat (float f0x3D2AA9C1), %exp_f328.i83
  %exp_f3210.i85 = fmul <8 x float> %exp_f329.i84, %459
  %exp_f3211.i86 = fadd <8 x float> splat (float f0x3E2AAAAA), %exp_f3210.i85
  %exp_f3212.i87 = fmul <8 x float> %exp_f3211.i86, %459
  %exp_f3213.i88 = fadd <8 x float> splat (float 5.000000e-01), %exp_f3212.i87
  %exp_f3214.i89 = fmul <8 x float> %459, %459
  %exp_f3215.i90 = fmul <8 x float> %exp_f3213.i88, %exp_f3214.i89
  %exp_f3216.i91 = fadd <8 x float> %459, %exp_f3215.i90
  %exp_f3217.i92 = fadd <8 x float> splat (float 1.000000e+00), %exp_f3216.i91
  %460 = fptosi <8 x float> %457 to <8 x i32>
  %461 = add <8 x i32> %460, splat (i32 127)
  %462 = shl <8 x i32> %461, splat (i32 23)
  %463 = bitcast <8 x i32> %462 to <8 x float>
  %exp_f3218.i93 = fmul <8 x float> %exp_f3217.i92, %463
  %464 = extractelement <8 x float> %exp_f3218.i93, i64 0
  %465 = extractelement <8 x float> %exp_f3218.i93, i64 1
  %466 = extractelement <8 x float> %exp_f3218.i93, i64 2
  %467 = extractelement <8 x float> %exp_f3218.i93, i64 3
  %468 = extractelement <8 x float> %exp_f3218.i93, i64 4
  %469 = extractelement <8 x float> %exp_f3218.i93, i64 5
  %470 = extractelement <8 x float> %exp_f3218.i93, i64 6
  %471 = extractelement <8 x float> %exp_f3218.i93, i64 7
  %472 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %415
  %473 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %416
  %474 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %417
  %475 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %418
  %476 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %419
  %477 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %420
  %478 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %421
  %479 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %422
  store float %464, ptr %472, align 4, !alias.scope !13, !noalias !19
  store float %465, ptr %473, align 4, !alias.scope !13, !noalias !19
  store float %466, ptr %474, align 4, !alias.scope !13, !noalias !19
  store float %467, ptr %475, align 4, !alias.scope !13, !noalias !19
  store float %468, ptr %476, align 4, !alias.scope !13, !noalias !19
  store float %469, ptr %477, align 4, !alias.scope !13, !noalias !19
  store float %470, ptr %478, align 4, !alias.scope !13, !noalias !19
  store float %471, ptr %479, align 4, !alias.scope !13, !noalias !19
  %480 = add nuw nsw <8 x i64> %18, splat (i64 7)
  %481 = extractelement <8 x i64> %480, i64 0
  %482 = extractelement <8 x i64> %480, i64 1
  %483 = extractelement <8 x i64> %480, i64 2
  %484 = extractelement <8 x i64> %480, i64 3
  %485 = extractelement <8 x i64> %480, i64 4
  %486 = extractelement <8 x i64> %480, i64 5
  %487 = extractelement <8 x i64> %480, i64 6
  %488 = extractelement <8 x i64> %480, i64 7
  %489 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %481
  %490 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %482
  %491 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %483
  %492 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %484
  %493 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %485
  %494 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %486
  %495 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %487
  %496 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %488
  %497 = load float, ptr %489, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %498 = load float, ptr %490, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %499 = load float, ptr %491, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %500 = load float, ptr %492, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %501 = load float, ptr %493, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %502 = load float, ptr %494, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %503 = load float, ptr %495, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %504 = load float, ptr %496, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %505 = insertelement <8 x float> poison, float %497, i64 0
  %506 = insertelement <8 x float> %505, float %498, i64 1
  %507 = insertelement <8 x float> %506, float %499, i64 2
  %508 = insertelement <8 x float> %507, float %500, i64 3
  %509 = insertelement <8 x float> %508, float %501, i64 4
  %510 = insertelement <8 x float> %509, float %502, i64 5
  %511 = insertelement <8 x float> %510, float %503, i64 6
  %512 = insertelement <8 x float> %511, float %504, i64 7
  %513 = fadd <8 x float> %512, %broadcast.splat32
  %514 = fsub <8 x float> %513, %wide.load
  %515 = fcmp uge <8 x float> %514, splat (float -8.780000e+01)
  %516 = select <8 x i1> %515, <8 x float> %514, <8 x float> splat (float -8.780000e+01)
  %517 = fcmp ule <8 x float> %516, splat (float 8.880000e+01)
  %518 = select <8 x i1> %517, <8 x float> %516, <8 x float> splat (float 8.880000e+01)
  %exp_f32.i56 = fmul <8 x float> %518, splat (float f0x3FB8AA3B)
  %exp_f321.i57 = fadd <8 x float> splat (float 5.000000e-01), %exp_f32.i56
  %519 = call <8 x float> @llvm.floor.v8f32(<8 x float> %exp_f321.i57)
  %520 = fcmp uge <8 x float> %519, splat (float -1.270000e+02)
  %521 = select <8 x i1> %520, <8 x float> %519, <8 x float> splat (float -1.270000e+02)
  %522 = fcmp ule <8 x float> %521, splat (float 1.270000e+02)
  %523 = select <8 x i1> %522, <8 x float> %521, <8 x float> splat (float 1.270000e+02)
  %exp_f322.i58 = fmul <8 x float> splat (float f0x3F318000), %523
  %524 = fsub <8 x float> %518, %exp_f322.i58
  %exp_f323.i59 = fmul <8 x float> splat (float f0xB95E8083), %523
  %525 = fsub <8 x float> %524, %exp_f323.i59
  %exp_f324.i60 = fmul <8 x float> %525, splat (float f0x39506967)
  %exp_f325.i61 = fadd <8 x float> splat (float f0x3AB743CE), %exp_f324.i60
  %exp_f326.i62 = fmul <8 x float> %exp_f325.i61, %525
  %exp_f327.i63 = fadd <8 x float> splat (float f0x3C088908), %exp_f326.i62
  %exp_f328.i64 = fmul <8 x float> %exp_f327.i63, %525
  %exp_f329.i65 = fadd <8 x float> splat (float f0x3D2AA9C1), %exp_f328.i64
  %exp_f3210.i66 = fmul <8 x float> %exp_f329.i65, %525
  %exp_f3211.i67 = fadd <8 x float> splat (float f0x3E2AAAAA), %exp_f3210.i66
  %exp_f3212.i68 = fmul <8 x float> %exp_f3211.i67, %525
  %exp_f3213.i69 = fadd <8 x float> splat (float 5.000000e-01), %exp_f3212.i68
  %exp_f3214.i70 = fmul <8 x float> %525, %525
  %exp_f3215.i71 = fmul <8 x float> %exp_f3213.i69, %exp_f3214.i70
  %exp_f3216.i72 = fadd <8 x float> %525, %exp_f3215.i71
  %exp_f3217.i73 = fadd <8 x float> splat (float 1.000000e+00), %exp_f3216.i72
  %526 = fptosi <8 x float> %523 to <8 x i32>
  %527 = add <8 x i32> %526, splat (i32 127)
  %528 = shl <8 x i32> %527, splat (i32 23)
  %529 = bitcast <8 x i32> %528 to <8 x float>
  %exp_f3218.i74 = fmul <8 x float> %exp_f3217.i73, %529
  %530 = extractelement <8 x float> %exp_f3218.i74, i64 0
  %531 = extractelement <8 x float> %exp_f3218.i74, i64 1
  %532 = extractelement <8 x float> %exp_f3218.i74, i64 2
  %533 = extractelement <8 x float> %exp_f3218.i74, i64 3
  %534 = extractelement <8 x float> %exp_f3218.i74, i64 4
  %535 = extractelement <8 x float> %exp_f3218.i74, i64 5
  %536 = extractelement <8 x float> %exp_f3218.i74, i64 6
  %537 = extractelement <8 x float> %exp_f3218.i74, i64 7
  %538 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %481
  %539 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %482
  %540 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %483
  %541 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %484
  %542 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %485
  %543 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %486
  %544 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %487
  %545 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %488
  store float %530, ptr %538, align 4, !alias.scope !13, !noalias !19
  store float %531, ptr %539, align 4, !alias.scope !13, !noalias !19
  store float %532, ptr %540, align 4, !alias.scope !13, !noalias !19
  store float %533, ptr %541, align 4, !alias.scope !13, !noalias !19
  store float %534, ptr %542, align 4, !alias.scope !13, !noalias !19
  store float %535, ptr %543, align 4, !alias.scope !13, !noalias !19
  store float %536, ptr %544, align 4, !alias.scope !13, !noalias !19
  store float %537, ptr %545, align 4, !alias.scope !13, !noalias !19
  %546 = add nuw nsw <8 x i64> %18, splat (i64 8)
  %547 = extractelement <8 x i64> %546, i64 0
  %548 = extractelement <8 x i64> %546, i64 1
  %549 = extractelement <8 x i64> %546, i64 2
  %550 = extractelement <8 x i64> %546, i64 3
  %551 = extractelement <8 x i64> %546, i64 4
  %552 = extractelement <8 x i64> %546, i64 5
  %553 = extractelement <8 x i64> %546, i64 6
  %554 = extractelement <8 x i64> %546, i64 7
  %555 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %547
  %556 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %548
  %557 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %549
  %558 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %550
  %559 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %551
  %560 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %552
  %561 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %553
  %562 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %554
  %563 = load float, ptr %555, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %564 = load float, ptr %556, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %565 = load float, ptr %557, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %566 = load float, ptr %558, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %567 = load float, ptr %559, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %568 = load float, ptr %560, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %569 = load float, ptr %561, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %570 = load float, ptr %562, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %571 = insertelement <8 x float> poison, float %563, i64 0
  %572 = insertelement <8 x float> %571, float %564, i64 1
  %573 = insertelement <8 x float> %572, float %565, i64 2
  %574 = insertelement <8 x float> %573, float %566, i64 3
  %575 = insertelement <8 x float> %574, float %567, i64 4
  %576 = insertelement <8 x float> %575, float %568, i64 5
  %577 = insertelement <8 x float> %576, float %569, i64 6
  %578 = insertelement <8 x float> %577, float %570, i64 7
  %579 = fadd <8 x float> %578, %broadcast.splat34
  %580 = fsub <8 x float> %579, %wide.load
  %581 = fcmp uge <8 x float> %580, splat (float -8.780000e+01)
  %582 = select <8 x i1> %581, <8 x float> %580, <8 x float> splat (float -8.780000e+01)
  %583 = fcmp ule <8 x float> %582, splat (float 8.880000e+01)
  %584 = select <8 x i1> %583, <8 x float> %582, <8 x float> splat (float 8.880000e+01)
  %exp_f32.i37 = fmul <8 x float> %584, splat (float f0x3FB8AA3B)
  %exp_f321.i38 = fadd <8 x float> splat (float 5.000000e-01), %exp_f32.i37
  %585 = call <8 x float> @llvm.floor.v8f32(<8 x float> %exp_f321.i38)
  %586 = fcmp uge <8 x float> %585, splat (float -1.270000e+02)
  %587 = select <8 x i1> %586, <8 x float> %585, <8 x float> splat (float -1.270000e+02)
  %588 = fcmp ule <8 x float> %587, splat (float 1.270000e+02)
  %589 = select <8 x i1> %588, <8 x float> %587, <8 x float> splat (float 1.270000e+02)
  %exp_f322.i39 = fmul <8 x float> splat (float f0x3F318000), %589
  %590 = fsub <8 x float> %584, %exp_f322.i39
  %exp_f323.i40 = fmul <8 x float> splat (float f0xB95E8083), %589
  %591 = fsub <8 x float> %590, %exp_f323.i40
  %exp_f324.i41 = fmul <8 x float> %591, splat (float f0x39506967)
  %exp_f325.i42 = fadd <8 x float> splat (float f0x3AB743CE), %exp_f324.i41
  %exp_f326.i43 = fmul <8 x float> %exp_f325.i42, %591
  %exp_f327.i44 = fadd <8 x float> splat (float f0x3C088908), %exp_f326.i43
  %exp_f328.i45 = fmul <8 x float> %exp_f327.i44, %591
  %exp_f329.i46 = fadd <8 x float> splat (float f0x3D2AA9C1), %exp_f328.i45
  %exp_f3210.i47 = fmul <8 x float> %exp_f329.i46, %591
  %exp_f3211.i48 = fadd <8 x float> splat (float f0x3E2AAAAA), %exp_f3210.i47
  %exp_f3212.i49 = fmul <8 x float> %exp_f3211.i48, %591
  %exp_f3213.i50 = fadd <8 x float> splat (float 5.000000e-01), %exp_f3212.i49
  %exp_f3214.i51 = fmul <8 x float> %591, %591
  %exp_f3215.i52 = fmul <8 x float> %exp_f3213.i50, %exp_f3214.i51
  %exp_f3216.i53 = fadd <8 x float> %591, %exp_f3215.i52
  %exp_f3217.i54 = fadd <8 x float> splat (float 1.000000e+00), %exp_f3216.i53
  %592 = fptosi <8 x float> %589 to <8 x i32>
  %593 = add <8 x i32> %592, splat (i32 127)
  %594 = shl <8 x i32> %593, splat (i32 23)
  %595 = bitcast <8 x i32> %594 to <8 x float>
  %exp_f3218.i55 = fmul <8 x float> %exp_f3217.i54, %595
  %596 = extractelement <8 x float> %exp_f3218.i55, i64 0
  %597 = extractelement <8 x float> %exp_f3218.i55, i64 1
  %598 = extractelement <8 x float> %exp_f3218.i55, i64 2
  %599 = extractelement <8 x float> %exp_f3218.i55, i64 3
  %600 = extractelement <8 x float> %exp_f3218.i55, i64 4
  %601 = extractelement <8 x float> %exp_f3218.i55, i64 5
  %602 = extractelement <8 x float> %exp_f3218.i55, i64 6
  %603 = extractelement <8 x float> %exp_f3218.i55, i64 7
  %604 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %547
  %605 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %548
  %606 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %549
  %607 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %550
  %608 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %551
  %609 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %552
  %610 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %553
  %611 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %554
  store float %596, ptr %604, align 4, !alias.scope !13, !noalias !19
  store float %597, ptr %605, align 4, !alias.scope !13, !noalias !19
  store float %598, ptr %606, align 4, !alias.scope !13, !noalias !19
  store float %599, ptr %607, align 4, !alias.scope !13, !noalias !19
  store float %600, ptr %608, align 4, !alias.scope !13, !noalias !19
  store float %601, ptr %609, align 4, !alias.scope !13, !noalias !19
  store float %602, ptr %610, align 4, !alias.scope !13, !noalias !19
  store float %603, ptr %611, align 4, !alias.scope !13, !noalias !19
  %612 = add nuw nsw <8 x i64> %18, splat (i64 9)
  %613 = extractelement <8 x i64> %612, i64 0
  %614 = extractelement <8 x i64> %612, i64 1
  %615 = extractelement <8 x i64> %612, i64 2
  %616 = extractelement <8 x i64> %612, i64 3
  %617 = extractelement <8 x i64> %612, i64 4
  %618 = extractelement <8 x i64> %612, i64 5
  %619 = extractelement <8 x i64> %612, i64 6
  %620 = extractelement <8 x i64> %612, i64 7
  %621 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %613
  %622 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %614
  %623 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %615
  %624 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %616
  %625 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %617
  %626 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %618
  %627 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %619
  %628 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %620
  %629 = load float, ptr %621, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %630 = load float, ptr %622, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %631 = load float, ptr %623, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %632 = load float, ptr %624, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %633 = load float, ptr %625, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %634 = load float, ptr %626, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %635 = load float, ptr %627, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %636 = load float, ptr %628, align 4, !invariant.load !3, !alias.scope !9, !noalias !18
  %637 = insertelement <8 x float> poison, float %629, i64 0
  %638 = insertelement <8 x float> %637, float %630, i64 1
  %639 = insertelement <8 x float> %638, float %631, i64 2
  %640 = insertelement <8 x float> %639, float %632, i64 3
  %641 = insertelement <8 x float> %640, float %633, i64 4
  %642 = insertelement <8 x float> %641, float %634, i64 5
  %643 = insertelement <8 x float> %642, float %635, i64 6
  %644 = insertelement <8 x float> %643, float %636, i64 7
  %645 = fadd <8 x float> %644, %broadcast.splat36
  %646 = fsub <8 x float> %645, %wide.load
  %647 = fcmp uge <8 x float> %646, splat (float -8.780000e+01)
  %648 = select <8 x i1> %647, <8 x float> %646, <8 x float> splat (float -8.780000e+01)
  %649 = fcmp ule <8 x float> %648, splat (float 8.880000e+01)
  %650 = select <8 x i1> %649, <8 x float> %648, <8 x float> splat (float 8.880000e+01)
  %exp_f32.i = fmul <8 x float> %650, splat (float f0x3FB8AA3B)
  %exp_f321.i = fadd <8 x float> splat (float 5.000000e-01), %exp_f32.i
  %651 = call <8 x float> @llvm.floor.v8f32(<8 x float> %exp_f321.i)
  %652 = fcmp uge <8 x float> %651, splat (float -1.270000e+02)
  %653 = select <8 x i1> %652, <8 x float> %651, <8 x float> splat (float -1.270000e+02)
  %654 = fcmp ule <8 x float> %653, splat (float 1.270000e+02)
  %655 = select <8 x i1> %654, <8 x float> %653, <8 x float> splat (float 1.270000e+02)
  %exp_f322.i = fmul <8 x float> splat (float f0x3F318000), %655
  %656 = fsub <8 x float> %650, %exp_f322.i
  %exp_f323.i = fmul <8 x float> splat (float f0xB95E8083), %655
  %657 = fsub <8 x float> %656, %exp_f323.i
  %exp_f324.i = fmul <8 x float> %657, splat (float f0x39506967)
  %exp_f325.i = fadd <8 x float> splat (float f0x3AB743CE), %exp_f324.i
  %exp_f326.i = fmul <8 x float> %exp_f325.i, %657
  %exp_f327.i = fadd <8 x float> splat (float f0x3C088908), %exp_f326.i
  %exp_f328.i = fmul <8 x float> %exp_f327.i, %657
  %exp_f329.i = fadd <8 x float> splat (float f0x3D2AA9C1), %exp_f328.i
  %exp_f3210.i = fmul <8 x float> %exp_f329.i, %657
  %exp_f3211.i = fadd <8 x float> splat (float f0x3E2AAAAA), %exp_f3210.i
  %exp_f3212.i = fmul <8 x float> %exp_f3211.i, %657
  %exp_f3213.i = fadd <8 x float> splat (float 5.000000e-01), %exp_f3212.i
  %exp_f3214.i = fmul <8 x float> %657, %657
  %exp_f3215.i = fmul <8 x float> %exp_f3213.i, %exp_f3214.i
  %exp_f3216.i = fadd <8 x float> %657, %exp_f3215.i
  %exp_f3217.i = fadd <8 x float> splat (float 1.000000e+00), %exp_f3216.i
  %658 = fptosi <8 x float> %655 to <8 x i32>
  %659 = add <8 x i32> %658, splat (i32 127)
  %660 = shl <8 x i32> %659, splat (i32 23)
  %661 = bitcast <8 x i32> %660 to <8 x float>
  %exp_f3218.i = fmul <8 x float> %exp_f3217.i, %661
  %662 = extractelement <8 x float> %exp_f3218.i, i64 0
  %663 = extractelement <8 x float> %exp_f3218.i, i64 1
  %664 = extractelement <8 x float> %exp_f3218.i, i64 2
  %665 = extractelement <8 x float> %exp_f3218.i, i64 3
  %666 = extractelement <8 x float> %exp_f3218.i, i64 4
  %667 = extractelement <8 x float> %exp_f3218.i, i64 5
  %668 = extractelement <8 x float> %exp_f3218.i, i64 6
  %669 = extractelement <8 x float> %exp_f3218.i, i64 7
  %670 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %613
  %671 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %614
  %672 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %615
  %673 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %616
  %674 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %617
  %675 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %618
  %676 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %619
  %677 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %620
  store float %662, ptr %670, align 4, !alias.scope !13, !noalias !19
  store float %663, ptr %671, align 4, !alias.scope !13, !noalias !19
  store float %664, ptr %672, align 4, !alias.scope !13, !noalias !19
  store float %665, ptr %673, align 4, !alias.scope !13, !noalias !19
  store float %666, ptr %674, align 4, !alias.scope !13, !noalias !19
  store float %667, ptr %675, align 4, !alias.scope !13, !noalias !19
  store float %668, ptr %676, align 4, !alias.scope !13, !noalias !19
  store float %669, ptr %677, align 4, !alias.scope !13, !noalias !19
  %index.next = add nuw i64 %index, 8
  %vec.ind.next = add nuw nsw <8 x i64> %vec.ind, splat (i64 8)
  %678 = icmp eq i64 %index.next, 32
  br i1 %678, label %subtract_exponential_fusion_wrapped.exit, label %vector.body, !llvm.loop !20

subtract_exponential_fusion_wrapped.exit:         ; preds = %vector.body
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare <4 x float> @llvm.floor.v4f32(<4 x float>) #2

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare <8 x float> @llvm.floor.v8f32(<8 x float>) #2

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare <16 x float> @llvm.floor.v16f32(<16 x float>) #2

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }
attributes #2 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 20}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 128}
!5 = !{i64 1280}
!6 = !{!7}
!7 = distinct !{!7, !8, !"subtract_exponential_fusion_wrapped: argument 0"}
!8 = distinct !{!8, !"subtract_exponential_fusion_wrapped"}
!9 = !{!10}
!10 = distinct !{!10, !8, !"subtract_exponential_fusion_wrapped: argument 1"}
!11 = !{!12}
!12 = distinct !{!12, !8, !"subtract_exponential_fusion_wrapped: argument 2"}
!13 = !{!14}
!14 = distinct !{!14, !8, !"subtract_exponential_fusion_wrapped: argument 3"}
!15 = !{i64 40}
!16 = !{!7, !10, !14}
!17 = !{!10, !12, !14}
!18 = !{!7, !12, !14}
!19 = !{!7, !10, !12}
!20 = distinct !{!20, !21, !22, !23}
!21 = !{!"llvm.loop.unroll.disable"}
!22 = !{!"llvm.loop.isvectorized", i32 1}
!23 = !{!"llvm.loop.unroll.runtime.disable"}
