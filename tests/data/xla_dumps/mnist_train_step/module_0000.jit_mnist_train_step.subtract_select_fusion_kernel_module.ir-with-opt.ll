; ModuleID = '__compute_module_subtract_select_fusion_kernel_module'
source_filename = "__compute_module_subtract_select_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @subtract_select_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
vector.ph:
  %1 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %2 = load ptr, ptr %1, align 8, !invariant.load !3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3, !dereferenceable !4
  %4 = getelementptr inbounds nuw i8, ptr %2, i64 16
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds nuw i8, ptr %2, i64 32
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !5
  %8 = getelementptr inbounds nuw i8, ptr %2, i64 64
  %9 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !4
  %10 = getelementptr inbounds nuw i8, ptr %2, i64 80
  %11 = load ptr, ptr %10, align 8, !invariant.load !3, !dereferenceable !5
  tail call void @llvm.experimental.noalias.scope.decl(metadata !6)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !9)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !11)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !13)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !15)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !17)
  %12 = getelementptr inbounds nuw i8, ptr %2, i64 48
  %13 = load ptr, ptr %12, align 8, !invariant.load !3, !dereferenceable !19
  %14 = getelementptr inbounds nuw i8, ptr %13, i64 36
  %15 = load float, ptr %14, align 4, !invariant.load !3, !alias.scope !13, !noalias !20
  %16 = getelementptr inbounds nuw i8, ptr %13, i64 32
  %17 = load float, ptr %16, align 4, !invariant.load !3, !alias.scope !13, !noalias !20
  %18 = load <4 x float>, ptr %13, align 4
  %.phi.trans.insert12 = getelementptr inbounds nuw i8, ptr %13, i64 4
  %19 = load <4 x float>, ptr %.phi.trans.insert12, align 4
  %.phi.trans.insert10 = getelementptr inbounds nuw i8, ptr %13, i64 28
  %.pre11 = load float, ptr %.phi.trans.insert10, align 4, !invariant.load !3, !alias.scope !13, !noalias !20
  %.phi.trans.insert8 = getelementptr inbounds nuw i8, ptr %13, i64 24
  %20 = load <4 x float>, ptr %.phi.trans.insert8, align 4
  %.phi.trans.insert6 = getelementptr inbounds nuw i8, ptr %13, i64 20
  %21 = load <4 x float>, ptr %.phi.trans.insert6, align 4
  %.phi.trans.insert4 = getelementptr inbounds nuw i8, ptr %13, i64 16
  %22 = load <4 x float>, ptr %.phi.trans.insert4, align 4
  %.phi.trans.insert2 = getelementptr inbounds nuw i8, ptr %13, i64 12
  %23 = load <4 x float>, ptr %.phi.trans.insert2, align 4
  %.phi.trans.insert = getelementptr inbounds nuw i8, ptr %13, i64 8
  %24 = load <4 x float>, ptr %.phi.trans.insert, align 4
  %broadcast.splat = shufflevector <4 x float> %24, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splat15 = shufflevector <4 x float> %23, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splat17 = shufflevector <4 x float> %22, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splat19 = shufflevector <4 x float> %21, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splat21 = shufflevector <4 x float> %20, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splatinsert22 = insertelement <8 x float> poison, float %.pre11, i64 0
  %broadcast.splat23 = shufflevector <8 x float> %broadcast.splatinsert22, <8 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splat25 = shufflevector <4 x float> %19, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splat27 = shufflevector <4 x float> %18, <4 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splatinsert28 = insertelement <8 x float> poison, float %17, i64 0
  %broadcast.splat29 = shufflevector <8 x float> %broadcast.splatinsert28, <8 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splatinsert30 = insertelement <8 x float> poison, float %15, i64 0
  %broadcast.splat31 = shufflevector <8 x float> %broadcast.splatinsert30, <8 x float> poison, <8 x i32> zeroinitializer
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %vector.ph
  %index = phi i64 [ 0, %vector.ph ], [ %index.next, %vector.body ]
  %vec.ind = phi <8 x i64> [ <i64 0, i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7>, %vector.ph ], [ %vec.ind.next, %vector.body ]
  %25 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %index
  %wide.load = load <8 x float>, ptr %25, align 4, !invariant.load !3, !alias.scope !9, !noalias !21
  %26 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %index
  %wide.load32 = load <8 x i32>, ptr %26, align 4, !invariant.load !3, !alias.scope !15, !noalias !22
  %27 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %index
  %wide.load33 = load <8 x float>, ptr %27, align 4, !invariant.load !3, !alias.scope !6, !noalias !23
  %28 = mul nuw nsw <8 x i64> %vec.ind, splat (i64 10)
  %29 = extractelement <8 x i64> %28, i64 0
  %30 = extractelement <8 x i64> %28, i64 1
  %31 = extractelement <8 x i64> %28, i64 2
  %32 = extractelement <8 x i64> %28, i64 3
  %33 = extractelement <8 x i64> %28, i64 4
  %34 = extractelement <8 x i64> %28, i64 5
  %35 = extractelement <8 x i64> %28, i64 6
  %36 = extractelement <8 x i64> %28, i64 7
  %37 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %29
  %38 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %30
  %39 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %31
  %40 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %32
  %41 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %33
  %42 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %34
  %43 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %35
  %44 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %36
  %45 = load float, ptr %37, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %46 = load float, ptr %38, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %47 = load float, ptr %39, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %48 = load float, ptr %40, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %49 = load float, ptr %41, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %50 = load float, ptr %42, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %51 = load float, ptr %43, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %52 = load float, ptr %44, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %53 = insertelement <8 x float> poison, float %45, i64 0
  %54 = insertelement <8 x float> %53, float %46, i64 1
  %55 = insertelement <8 x float> %54, float %47, i64 2
  %56 = insertelement <8 x float> %55, float %48, i64 3
  %57 = insertelement <8 x float> %56, float %49, i64 4
  %58 = insertelement <8 x float> %57, float %50, i64 5
  %59 = insertelement <8 x float> %58, float %51, i64 6
  %60 = insertelement <8 x float> %59, float %52, i64 7
  %61 = fadd <8 x float> %60, %broadcast.splat27
  %62 = fsub <8 x float> %61, %wide.load
  %63 = icmp eq <8 x i32> %wide.load32, zeroinitializer
  %64 = fsub <8 x float> %62, %wide.load33
  %65 = select <8 x i1> %63, <8 x float> %64, <8 x float> zeroinitializer
  %66 = extractelement <8 x float> %65, i64 0
  %67 = extractelement <8 x float> %65, i64 1
  %68 = extractelement <8 x float> %65, i64 2
  %69 = extractelement <8 x float> %65, i64 3
  %70 = extractelement <8 x float> %65, i64 4
  %71 = extractelement <8 x float> %65, i64 5
  %72 = extractelement <8 x float> %65, i64 6
  %73 = extractelement <8 x float> %65, i64 7
  %74 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %29
  %75 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %30
  %76 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %31
  %77 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %32
  %78 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %33
  %79 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %34
  %80 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %35
  %81 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %36
  store float %66, ptr %74, align 4, !alias.scope !17, !noalias !25
  store float %67, ptr %75, align 4, !alias.scope !17, !noalias !25
  store float %68, ptr %76, align 4, !alias.scope !17, !noalias !25
  store float %69, ptr %77, align 4, !alias.scope !17, !noalias !25
  store float %70, ptr %78, align 4, !alias.scope !17, !noalias !25
  store float %71, ptr %79, align 4, !alias.scope !17, !noalias !25
  store float %72, ptr %80, align 4, !alias.scope !17, !noalias !25
  store float %73, ptr %81, align 4, !alias.scope !17, !noalias !25
  %82 = or disjoint <8 x i64> %28, splat (i64 1)
  %83 = extractelement <8 x i64> %82, i64 0
  %84 = extractelement <8 x i64> %82, i64 1
  %85 = extractelement <8 x i64> %82, i64 2
  %86 = extractelement <8 x i64> %82, i64 3
  %87 = extractelement <8 x i64> %82, i64 4
  %88 = extractelement <8 x i64> %82, i64 5
  %89 = extractelement <8 x i64> %82, i64 6
  %90 = extractelement <8 x i64> %82, i64 7
  %91 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %83
  %92 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %84
  %93 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %85
  %94 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %86
  %95 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %87
  %96 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %88
  %97 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %89
  %98 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %90
  %99 = load float, ptr %91, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %100 = load float, ptr %92, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %101 = load float, ptr %93, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %102 = load float, ptr %94, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %103 = load float, ptr %95, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %104 = load float, ptr %96, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %105 = load float, ptr %97, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %106 = load float, ptr %98, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %107 = insertelement <8 x float> poison, float %99, i64 0
  %108 = insertelement <8 x float> %107, float %100, i64 1
  %109 = insertelement <8 x float> %108, float %101, i64 2
  %110 = insertelement <8 x float> %109, float %102, i64 3
  %111 = insertelement <8 x float> %110, float %103, i64 4
  %112 = insertelement <8 x float> %111, float %104, i64 5
  %113 = insertelement <8 x float> %112, float %105, i64 6
  %114 = insertelement <8 x float> %113, float %106, i64 7
  %115 = fadd <8 x float> %114, %broadcast.splat25
  %116 = fsub <8 x float> %115, %wide.load
  %117 = icmp eq <8 x i32> %wide.load32, splat (i32 1)
  %118 = fsub <8 x float> %116, %wide.load33
  %119 = select <8 x i1> %117, <8 x float> %118, <8 x float> zeroinitializer
  %120 = extractelement <8 x float> %119, i64 0
  %121 = extractelement <8 x float> %119, i64 1
  %122 = extractelement <8 x float> %119, i64 2
  %123 = extractelement <8 x float> %119, i64 3
  %124 = extractelement <8 x float> %119, i64 4
  %125 = extractelement <8 x float> %119, i64 5
  %126 = extractelement <8 x float> %119, i64 6
  %127 = extractelement <8 x float> %119, i64 7
  %128 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %83
  %129 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %84
  %130 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %85
  %131 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %86
  %132 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %87
  %133 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %88
  %134 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %89
  %135 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %90
  store float %120, ptr %128, align 4, !alias.scope !17, !noalias !25
  store float %121, ptr %129, align 4, !alias.scope !17, !noalias !25
  store float %122, ptr %130, align 4, !alias.scope !17, !noalias !25
  store float %123, ptr %131, align 4, !alias.scope !17, !noalias !25
  store float %124, ptr %132, align 4, !alias.scope !17, !noalias !25
  store float %125, ptr %133, align 4, !alias.scope !17, !noalias !25
  store float %126, ptr %134, align 4, !alias.scope !17, !noalias !25
  store float %127, ptr %135, align 4, !alias.scope !17, !noalias !25
  %136 = add nuw nsw <8 x i64> %28, splat (i64 2)
  %137 = extractelement <8 x i64> %136, i64 0
  %138 = extractelement <8 x i64> %136, i64 1
  %139 = extractelement <8 x i64> %136, i64 2
  %140 = extractelement <8 x i64> %136, i64 3
  %141 = extractelement <8 x i64> %136, i64 4
  %142 = extractelement <8 x i64> %136, i64 5
  %143 = extractelement <8 x i64> %136, i64 6
  %144 = extractelement <8 x i64> %136, i64 7
  %145 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %137
  %146 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %138
  %147 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %139
  %148 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %140
  %149 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %141
  %150 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %142
  %151 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %143
  %152 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %144
  %153 = load float, ptr %145, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %154 = load float, ptr %146, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %155 = load float, ptr %147, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %156 = load float, ptr %148, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %157 = load float, ptr %149, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %158 = load float, ptr %150, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %159 = load float, ptr %151, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %160 = load float, ptr %152, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %161 = insertelement <8 x float> poison, float %153, i64 0
  %162 = insertelement <8 x float> %161, float %154, i64 1
  %163 = insertelement <8 x float> %162, float %155, i64 2
  %164 = insertelement <8 x float> %163, float %156, i64 3
  %165 = insertelement <8 x float> %164, float %157, i64 4
  %166 = insertelement <8 x float> %165, float %158, i64 5
  %167 = insertelement <8 x float> %166, float %159, i64 6
  %168 = insertelement <8 x float> %167, float %160, i64 7
  %169 = fadd <8 x float> %168, %broadcast.splat
  %170 = fsub <8 x float> %169, %wide.load
  %171 = icmp eq <8 x i32> %wide.load32, splat (i32 2)
  %172 = fsub <8 x float> %170, %wide.load33
  %173 = select <8 x i1> %171, <8 x float> %172, <8 x float> zeroinitializer
  %174 = extractelement <8 x float> %173, i64 0
  %175 = extractelement <8 x float> %173, i64 1
  %176 = extractelement <8 x float> %173, i64 2
  %177 = extractelement <8 x float> %173, i64 3
  %178 = extractelement <8 x float> %173, i64 4
  %179 = extractelement <8 x float> %173, i64 5
  %180 = extractelement <8 x float> %173, i64 6
  %181 = extractelement <8 x float> %173, i64 7
  %182 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %137
  %183 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %138
  %184 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %139
  %185 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %140
  %186 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %141
  %187 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %142
  %188 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %143
  %189 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %144
  store float %174, ptr %182, align 4, !alias.scope !17, !noalias !25
  store float %175, ptr %183, align 4, !alias.scope !17, !noalias !25
  store float %176, ptr %184, align 4, !alias.scope !17, !noalias !25
  store float %177, ptr %185, align 4, !alias.scope !17, !noalias !25
  store float %178, ptr %186, align 4, !alias.scope !17, !noalias !25
  store float %179, ptr %187, align 4, !alias.scope !17, !noalias !25
  store float %180, ptr %188, align 4, !alias.scope !17, !noalias !25
  store float %181, ptr %189, align 4, !alias.scope !17, !noalias !25
  %190 = add nuw nsw <8 x i64> %28, splat (i64 3)
  %191 = extractelement <8 x i64> %190, i64 0
  %192 = extractelement <8 x i64> %190, i64 1
  %193 = extractelement <8 x i64> %190, i64 2
  %194 = extractelement <8 x i64> %190, i64 3
  %195 = extractelement <8 x i64> %190, i64 4
  %196 = extractelement <8 x i64> %190, i64 5
  %197 = extractelement <8 x i64> %190, i64 6
  %198 = extractelement <8 x i64> %190, i64 7
  %199 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %191
  %200 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %192
  %201 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %193
  %202 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %194
  %203 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %195
  %204 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %196
  %205 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %197
  %206 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %198
  %207 = load float, ptr %199, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %208 = load float, ptr %200, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %209 = load float, ptr %201, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %210 = load float, ptr %202, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %211 = load float, ptr %203, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %212 = load float, ptr %204, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %213 = load float, ptr %205, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %214 = load float, ptr %206, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %215 = insertelement <8 x float> poison, float %207, i64 0
  %216 = insertelement <8 x float> %215, float %208, i64 1
  %217 = insertelement <8 x float> %216, float %209, i64 2
  %218 = insertelement <8 x float> %217, float %210, i64 3
  %219 = insertelement <8 x float> %218, float %211, i64 4
  %220 = insertelement <8 x float> %219, float %212, i64 5
  %221 = insertelement <8 x float> %220, float %213, i64 6
  %222 = insertelement <8 x float> %221, float %214, i64 7
  %223 = fadd <8 x float> %222, %broadcast.splat15
  %224 = fsub <8 x float> %223, %wide.load
  %225 = icmp eq <8 x i32> %wide.load32, splat (i32 3)
  %226 = fsub <8 x float> %224, %wide.load33
  %227 = select <8 x i1> %225, <8 x float> %226, <8 x float> zeroinitializer
  %228 = extractelement <8 x float> %227, i64 0
  %229 = extractelement <8 x float> %227, i64 1
  %230 = extractelement <8 x float> %227, i64 2
  %231 = extractelement <8 x float> %227, i64 3
  %232 = extractelement <8 x float> %227, i64 4
  %233 = extractelement <8 x float> %227, i64 5
  %234 = extractelement <8 x float> %227, i64 6
  %235 = extractelement <8 x float> %227, i64 7
  %236 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %191
  %237 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %192
  %238 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %193
  %239 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %194
  %240 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %195
  %241 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %196
  %242 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %197
  %243 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %198
  store float %228, ptr %236, align 4, !alias.scope !17, !noalias !25
  store float %229, ptr %237, align 4, !alias.scope !17, !noalias !25
  store float %230, ptr %238, align 4, !alias.scope !17, !noalias !25
  store float %231, ptr %239, align 4, !alias.scope !17, !noalias !25
  store float %232, ptr %240, align 4, !alias.scope !17, !noalias !25
  store float %233, ptr %241, align 4, !alias.scope !17, !noalias !25
  store float %234, ptr %242, align 4, !alias.scope !17, !noalias !25
  store float %235, ptr %243, align 4, !alias.scope !17, !noalias !25
  %244 = add nuw nsw <8 x i64> %28, splat (i64 4)
  %245 = extractelement <8 x i64> %244, i64 0
  %246 = extractelement <8 x i64> %244, i64 1
  %247 = extractelement <8 x i64> %244, i64 2
  %248 = extractelement <8 x i64> %244, i64 3
  %249 = extractelement <8 x i64> %244, i64 4
  %250 = extractelement <8 x i64> %244, i64 5
  %251 = extractelement <8 x i64> %244, i64 6
  %252 = extractelement <8 x i64> %244, i64 7
  %253 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %245
  %254 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %246
  %255 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %247
  %256 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %248
  %257 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %249
  %258 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %250
  %259 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %251
  %260 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %252
  %261 = load float, ptr %253, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %262 = load float, ptr %254, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %263 = load float, ptr %255, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %264 = load float, ptr %256, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %265 = load float, ptr %257, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %266 = load float, ptr %258, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %267 = load float, ptr %259, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %268 = load float, ptr %260, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %269 = insertelement <8 x float> poison, float %261, i64 0
  %270 = insertelement <8 x float> %269, float %262, i64 1
  %271 = insertelement <8 x float> %270, float %263, i64 2
  %272 = insertelement <8 x float> %271, float %264, i64 3
  %273 = insertelement <8 x float> %272, float %265, i64 4
  %274 = insertelement <8 x float> %273, float %266, i64 5
  %275 = insertelement <8 x float> %274, float %267, i64 6
  %276 = insertelement <8 x float> %275, float %268, i64 7
  %277 = fadd <8 x float> %276, %broadcast.splat17
  %278 = fsub <8 x float> %277, %wide.load
  %279 = icmp eq <8 x i32> %wide.load32, splat (i32 4)
  %280 = fsub <8 x float> %278, %wide.load33
  %281 = select <8 x i1> %279, <8 x float> %280, <8 x float> zeroinitializer
  %282 = extractelement <8 x float> %281, i64 0
  %283 = extractelement <8 x float> %281, i64 1
  %284 = extractelement <8 x float> %281, i64 2
  %285 = extractelement <8 x float> %281, i64 3
  %286 = extractelement <8 x float> %281, i64 4
  %287 = extractelement <8 x float> %281, i64 5
  %288 = extractelement <8 x float> %281, i64 6
  %289 = extractelement <8 x float> %281, i64 7
  %290 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %245
  %291 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %246
  %292 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %247
  %293 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %248
  %294 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %249
  %295 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %250
  %296 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %251
  %297 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %252
  store float %282, ptr %290, align 4, !alias.scope !17, !noalias !25
  store float %283, ptr %291, align 4, !alias.scope !17, !noalias !25
  store float %284, ptr %292, align 4, !alias.scope !17, !noalias !25
  store float %285, ptr %293, align 4, !alias.scope !17, !noalias !25
  store float %286, ptr %294, align 4, !alias.scope !17, !noalias !25
  store float %287, ptr %295, align 4, !alias.scope !17, !noalias !25
  store float %288, ptr %296, align 4, !alias.scope !17, !noalias !25
  store float %289, ptr %297, align 4, !alias.scope !17, !noalias !25
  %298 = add nuw nsw <8 x i64> %28, splat (i64 5)
  %299 = extractelement <8 x i64> %298, i64 0
  %300 = extractelement <8 x i64> %298, i64 1
  %301 = extractelement <8 x i64> %298, i64 2
  %302 = extractelement <8 x i64> %298, i64 3
  %303 = extractelement <8 x i64> %298, i64 4
  %304 = extractelement <8 x i64> %298, i64 5
  %305 = extractelement <8 x i64> %298, i64 6
  %306 = extractelement <8 x i64> %298, i64 7
  %307 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %299
  %308 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %300
  %309 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %301
  %310 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %302
  %311 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %303
  %312 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %304
  %313 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %305
  %314 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %306
  %315 = load float, ptr %307, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %316 = load float, ptr %308, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %317 = load float, ptr %309, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %318 = load float, ptr %310, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %319 = load float, ptr %311, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %320 = load float, ptr %312, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %321 = load float, ptr %313, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %322 = load float, ptr %314, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %323 = insertelement <8 x float> poison, float %315, i64 0
  %324 = insertelement <8 x float> %323, float %316, i64 1
  %325 = insertelement <8 x float> %324, float %317, i64 2
  %326 = insertelement <8 x float> %325, float %318, i64 3
  %327 = insertelement <8 x float> %326, float %319, i64 4
  %328 = insertelement <8 x float> %327, float %320, i64 5
  %329 = insertelement <8 x float> %328, float %321, i64 6
  %330 = insertelement <8 x float> %329, float %322, i64 7
  %331 = fadd <8 x float> %330, %broadcast.splat19
  %332 = fsub <8 x float> %331, %wide.load
  %333 = icmp eq <8 x i32> %wide.load32, splat (i32 5)
  %334 = fsub <8 x float> %332, %wide.load33
  %335 = select <8 x i1> %333, <8 x float> %334, <8 x float> zeroinitializer
  %336 = extractelement <8 x float> %335, i64 0
  %337 = extractelement <8 x float> %335, i64 1
  %338 = extractelement <8 x float> %335, i64 2
  %339 = extractelement <8 x float> %335, i64 3
  %340 = extractelement <8 x float> %335, i64 4
  %341 = extractelement <8 x float> %335, i64 5
  %342 = extractelement <8 x float> %335, i64 6
  %343 = extractelement <8 x float> %335, i64 7
  %344 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %299
  %345 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %300
  %346 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %301
  %347 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %302
  %348 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %303
  %349 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %304
  %350 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %305
  %351 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %306
  store float %336, ptr %344, align 4, !alias.scope !17, !noalias !25
  store float %337, ptr %345, align 4, !alias.scope !17, !noalias !25
  store float %338, ptr %346, align 4, !alias.scope !17, !noalias !25
  store float %339, ptr %347, align 4, !alias.scope !17, !noalias !25
  store float %340, ptr %348, align 4, !alias.scope !17, !noalias !25
  store float %341, ptr %349, align 4, !alias.scope !17, !noalias !25
  store float %342, ptr %350, align 4, !alias.scope !17, !noalias !25
  store float %343, ptr %351, align 4, !alias.scope !17, !noalias !25
  %352 = add nuw nsw <8 x i64> %28, splat (i64 6)
  %353 = extractelement <8 x i64> %352, i64 0
  %354 = extractelement <8 x i64> %352, i64 1
  %355 = extractelement <8 x i64> %352, i64 2
  %356 = extractelement <8 x i64> %352, i64 3
  %357 = extractelement <8 x i64> %352, i64 4
  %358 = extractelement <8 x i64> %352, i64 5
  %359 = extractelement <8 x i64> %352, i64 6
  %360 = extractelement <8 x i64> %352, i64 7
  %361 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %353
  %362 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %354
  %363 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %355
  %364 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %356
  %365 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %357
  %366 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %358
  %367 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %359
  %368 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %360
  %369 = load float, ptr %361, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %370 = load float, ptr %362, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %371 = load float, ptr %363, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %372 = load float, ptr %364, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %373 = load float, ptr %365, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %374 = load float, ptr %366, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %375 = load float, ptr %367, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %376 = load float, ptr %368, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %377 = insertelement <8 x float> poison, float %369, i64 0
  %378 = insertelement <8 x float> %377, float %370, i64 1
  %379 = insertelement <8 x float> %378, float %371, i64 2
  %380 = insertelement <8 x float> %379, float %372, i64 3
  %381 = insertelement <8 x float> %380, float %373, i64 4
  %382 = insertelement <8 x float> %381, float %374, i64 5
  %383 = insertelement <8 x float> %382, float %375, i64 6
  %384 = insertelement <8 x float> %383, float %376, i64 7
  %385 = fadd <8 x float> %384, %broadcast.splat21
  %386 = fsub <8 x float> %385, %wide.load
  %387 = icmp eq <8 x i32> %wide.load32, splat (i32 6)
  %388 = fsub <8 x float> %386, %wide.load33
  %389 = select <8 x i1> %387, <8 x float> %388, <8 x float> zeroinitializer
  %390 = extractelement <8 x float> %389, i64 0
  %391 = extractelement <8 x float> %389, i64 1
  %392 = extractelement <8 x float> %389, i64 2
  %393 = extractelement <8 x float> %389, i64 3
  %394 = extractelement <8 x float> %389, i64 4
  %395 = extractelement <8 x float> %389, i64 5
  %396 = extractelement <8 x float> %389, i64 6
  %397 = extractelement <8 x float> %389, i64 7
  %398 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %353
  %399 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %354
  %400 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %355
  %401 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %356
  %402 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %357
  %403 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %358
  %404 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %359
  %405 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %360
  store float %390, ptr %398, align 4, !alias.scope !17, !noalias !25
  store float %391, ptr %399, align 4, !alias.scope !17, !noalias !25
  store float %392, ptr %400, align 4, !alias.scope !17, !noalias !25
  store float %393, ptr %401, align 4, !alias.scope !17, !noalias !25
  store float %394, ptr %402, align 4, !alias.scope !17, !noalias !25
  store float %395, ptr %403, align 4, !alias.scope !17, !noalias !25
  store float %396, ptr %404, align 4, !alias.scope !17, !noalias !25
  store float %397, ptr %405, align 4, !alias.scope !17, !noalias !25
  %406 = add nuw nsw <8 x i64> %28, splat (i64 7)
  %407 = extractelement <8 x i64> %406, i64 0
  %408 = extractelement <8 x i64> %406, i64 1
  %409 = extractelement <8 x i64> %406, i64 2
  %410 = extractelement <8 x i64> %406, i64 3
  %411 = extractelement <8 x i64> %406, i64 4
  %412 = extractelement <8 x i64> %406, i64 5
  %413 = extractelement <8 x i64> %406, i64 6
  %414 = extractelement <8 x i64> %406, i64 7
  %415 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %407
  %416 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %408
  %417 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %409
  %418 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %410
  %419 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %411
  %420 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %412
  %421 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %413
  %422 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %414
  %423 = load float, ptr %415, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %424 = load float, ptr %416, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %425 = load float, ptr %417, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %426 = load float, ptr %418, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %427 = load float, ptr %419, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %428 = load float, ptr %420, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %429 = load float, ptr %421, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %430 = load float, ptr %422, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %431 = insertelement <8 x float> poison, float %423, i64 0
  %432 = insertelement <8 x float> %431, float %424, i64 1
  %433 = insertelement <8 x float> %432, float %425, i64 2
  %434 = insertelement <8 x float> %433, float %426, i64 3
  %435 = insertelement <8 x float> %434, float %427, i64 4
  %436 = insertelement <8 x float> %435, float %428, i64 5
  %437 = insertelement <8 x float> %436, float %429, i64 6
  %438 = insertelement <8 x float> %437, float %430, i64 7
  %439 = fadd <8 x float> %438, %broadcast.splat23
  %440 = fsub <8 x float> %439, %wide.load
  %441 = icmp eq <8 x i32> %wide.load32, splat (i32 7)
  %442 = fsub <8 x float> %440, %wide.load33
  %443 = select <8 x i1> %441, <8 x float> %442, <8 x float> zeroinitializer
  %444 = extractelement <8 x float> %443, i64 0
  %445 = extractelement <8 x float> %443, i64 1
  %446 = extractelement <8 x float> %443, i64 2
  %447 = extractelement <8 x float> %443, i64 3
  %448 = extractelement <8 x float> %443, i64 4
  %449 = extractelement <8 x float> %443, i64 5
  %450 = extractelement <8 x float> %443, i64 6
  %451 = extractelement <8 x float> %443, i64 7
  %452 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %407
  %453 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %408
  %454 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %409
  %455 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %410
  %456 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %411
  %457 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %412
  %458 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %413
  %459 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %414
  store float %444, ptr %452, align 4, !alias.scope !17, !noalias !25
  store float %445, ptr %453, align 4, !alias.scope !17, !noalias !25
  store float %446, ptr %454, align 4, !alias.scope !17, !noalias !25
  store float %447, ptr %455, align 4, !alias.scope !17, !noalias !25
  store float %448, ptr %456, align 4, !alias.scope !17, !noalias !25
  store float %449, ptr %457, align 4, !alias.scope !17, !noalias !25
  store float %450, ptr %458, align 4, !alias.scope !17, !noalias !25
  store float %451, ptr %459, align 4, !alias.scope !17, !noalias !25
  %460 = add nuw nsw <8 x i64> %28, splat (i64 8)
  %461 = extractelement <8 x i64> %460, i64 0
  %462 = extractelement <8 x i64> %460, i64 1
  %463 = extractelement <8 x i64> %460, i64 2
  %464 = extractelement <8 x i64> %460, i64 3
  %465 = extractelement <8 x i64> %460, i64 4
  %466 = extractelement <8 x i64> %460, i64 5
  %467 = extractelement <8 x i64> %460, i64 6
  %468 = extractelement <8 x i64> %460, i64 7
  %469 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %461
  %470 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %462
  %471 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %463
  %472 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %464
  %473 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %465
  %474 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %466
  %475 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %467
  %476 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %468
  %477 = load float, ptr %469, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %478 = load float, ptr %470, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %479 = load float, ptr %471, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %480 = load float, ptr %472, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %481 = load float, ptr %473, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %482 = load float, ptr %474, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %483 = load float, ptr %475, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %484 = load float, ptr %476, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %485 = insertelement <8 x float> poison, float %477, i64 0
  %486 = insertelement <8 x float> %485, float %478, i64 1
  %487 = insertelement <8 x float> %486, float %479, i64 2
  %488 = insertelement <8 x float> %487, float %480, i64 3
  %489 = insertelement <8 x float> %488, float %481, i64 4
  %490 = insertelement <8 x float> %489, float %482, i64 5
  %491 = insertelement <8 x float> %490, float %483, i64 6
  %492 = insertelement <8 x float> %491, float %484, i64 7
  %493 = fadd <8 x float> %492, %broadcast.splat29
  %494 = fsub <8 x float> %493, %wide.load
  %495 = icmp eq <8 x i32> %wide.load32, splat (i32 8)
  %496 = fsub <8 x float> %494, %wide.load33
  %497 = select <8 x i1> %495, <8 x float> %496, <8 x float> zeroinitializer
  %498 = extractelement <8 x float> %497, i64 0
  %499 = extractelement <8 x float> %497, i64 1
  %500 = extractelement <8 x float> %497, i64 2
  %501 = extractelement <8 x float> %497, i64 3
  %502 = extractelement <8 x float> %497, i64 4
  %503 = extractelement <8 x float> %497, i64 5
  %504 = extractelement <8 x float> %497, i64 6
  %505 = extractelement <8 x float> %497, i64 7
  %506 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %461
  %507 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %462
  %508 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %463
  %509 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %464
  %510 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %465
  %511 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %466
  %512 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %467
  %513 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %468
  store float %498, ptr %506, align 4, !alias.scope !17, !noalias !25
  store float %499, ptr %507, align 4, !alias.scope !17, !noalias !25
  store float %500, ptr %508, align 4, !alias.scope !17, !noalias !25
  store float %501, ptr %509, align 4, !alias.scope !17, !noalias !25
  store float %502, ptr %510, align 4, !alias.scope !17, !noalias !25
  store float %503, ptr %511, align 4, !alias.scope !17, !noalias !25
  store float %504, ptr %512, align 4, !alias.scope !17, !noalias !25
  store float %505, ptr %513, align 4, !alias.scope !17, !noalias !25
  %514 = add nuw nsw <8 x i64> %28, splat (i64 9)
  %515 = extractelement <8 x i64> %514, i64 0
  %516 = extractelement <8 x i64> %514, i64 1
  %517 = extractelement <8 x i64> %514, i64 2
  %518 = extractelement <8 x i64> %514, i64 3
  %519 = extractelement <8 x i64> %514, i64 4
  %520 = extractelement <8 x i64> %514, i64 5
  %521 = extractelement <8 x i64> %514, i64 6
  %522 = extractelement <8 x i64> %514, i64 7
  %523 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %515
  %524 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %516
  %525 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %517
  %526 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %518
  %527 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %519
  %528 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %520
  %529 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %521
  %530 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %522
  %531 = load float, ptr %523, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %532 = load float, ptr %524, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %533 = load float, ptr %525, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %534 = load float, ptr %526, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %535 = load float, ptr %527, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %536 = load float, ptr %528, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %537 = load float, ptr %529, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %538 = load float, ptr %530, align 4, !invariant.load !3, !alias.scope !11, !noalias !24
  %539 = insertelement <8 x float> poison, float %531, i64 0
  %540 = insertelement <8 x float> %539, float %532, i64 1
  %541 = insertelement <8 x float> %540, float %533, i64 2
  %542 = insertelement <8 x float> %541, float %534, i64 3
  %543 = insertelement <8 x float> %542, float %535, i64 4
  %544 = insertelement <8 x float> %543, float %536, i64 5
  %545 = insertelement <8 x float> %544, float %537, i64 6
  %546 = insertelement <8 x float> %545, float %538, i64 7
  %547 = fadd <8 x float> %546, %broadcast.splat31
  %548 = fsub <8 x float> %547, %wide.load
  %549 = icmp eq <8 x i32> %wide.load32, splat (i32 9)
  %550 = fsub <8 x float> %548, %wide.load33
  %551 = select <8 x i1> %549, <8 x float> %550, <8 x float> zeroinitializer
  %552 = extractelement <8 x float> %551, i64 0
  %553 = extractelement <8 x float> %551, i64 1
  %554 = extractelement <8 x float> %551, i64 2
  %555 = extractelement <8 x float> %551, i64 3
  %556 = extractelement <8 x float> %551, i64 4
  %557 = extractelement <8 x float> %551, i64 5
  %558 = extractelement <8 x float> %551, i64 6
  %559 = extractelement <8 x float> %551, i64 7
  %560 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %515
  %561 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %516
  %562 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %517
  %563 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %518
  %564 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %519
  %565 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %520
  %566 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %521
  %567 = getelementptr inbounds nuw [4 x i8], ptr %11, i64 %522
  store float %552, ptr %560, align 4, !alias.scope !17, !noalias !25
  store float %553, ptr %561, align 4, !alias.scope !17, !noalias !25
  store float %554, ptr %562, align 4, !alias.scope !17, !noalias !25
  store float %555, ptr %563, align 4, !alias.scope !17, !noalias !25
  store float %556, ptr %564, align 4, !alias.scope !17, !noalias !25
  store float %557, ptr %565, align 4, !alias.scope !17, !noalias !25
  store float %558, ptr %566, align 4, !alias.scope !17, !noalias !25
  store float %559, ptr %567, align 4, !alias.scope !17, !noalias !25
  %index.next = add nuw i64 %index, 8
  %vec.ind.next = add nuw nsw <8 x i64> %vec.ind, splat (i64 8)
  %568 = icmp eq i64 %index.next, 128
  br i1 %568, label %subtract_select_fusion_wrapped.exit, label %vector.body, !llvm.loop !26

subtract_select_fusion_wrapped.exit:              ; preds = %vector.body
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 13}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 512}
!5 = !{i64 5120}
!6 = !{!7}
!7 = distinct !{!7, !8, !"subtract_select_fusion_wrapped: argument 0"}
!8 = distinct !{!8, !"subtract_select_fusion_wrapped"}
!9 = !{!10}
!10 = distinct !{!10, !8, !"subtract_select_fusion_wrapped: argument 1"}
!11 = !{!12}
!12 = distinct !{!12, !8, !"subtract_select_fusion_wrapped: argument 2"}
!13 = !{!14}
!14 = distinct !{!14, !8, !"subtract_select_fusion_wrapped: argument 3"}
!15 = !{!16}
!16 = distinct !{!16, !8, !"subtract_select_fusion_wrapped: argument 4"}
!17 = !{!18}
!18 = distinct !{!18, !8, !"subtract_select_fusion_wrapped: argument 5"}
!19 = !{i64 40}
!20 = !{!7, !10, !12, !16, !18}
!21 = !{!7, !12, !14, !16, !18}
!22 = !{!7, !10, !12, !14, !18}
!23 = !{!10, !12, !14, !16, !18}
!24 = !{!7, !10, !14, !16, !18}
!25 = !{!7, !10, !12, !14, !16}
!26 = distinct !{!26, !27, !28, !29}
!27 = !{!"llvm.loop.unroll.disable"}
!28 = !{!"llvm.loop.isvectorized", i32 1}
!29 = !{!"llvm.loop.unroll.runtime.disable"}
