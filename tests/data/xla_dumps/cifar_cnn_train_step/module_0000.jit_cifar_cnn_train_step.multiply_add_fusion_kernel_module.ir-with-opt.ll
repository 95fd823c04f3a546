; ModuleID = '__compute_module_multiply_add_fusion_kernel_module'
source_filename = "__compute_module_multiply_add_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @multiply_add_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
vector.ph:
  %1 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %2 = load ptr, ptr %1, align 8, !invariant.load !3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3, !dereferenceable !4
  %4 = getelementptr inbounds nuw i8, ptr %2, i64 16
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !5
  %6 = getelementptr inbounds nuw i8, ptr %2, i64 32
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !5
  %8 = getelementptr inbounds nuw i8, ptr %2, i64 48
  %9 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !4
  tail call void @llvm.experimental.noalias.scope.decl(metadata !6)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !9)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !11)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !13)
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %vector.ph
  %index = phi i64 [ 0, %vector.ph ], [ %index.next, %vector.body ]
  %vec.ind = phi <8 x i64> [ <i64 0, i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7>, %vector.ph ], [ %vec.ind.next, %vector.body ]
  %10 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %index
  %wide.load = load <8 x i32>, ptr %10, align 4, !invariant.load !3, !alias.scope !11, !noalias !15
  %11 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %index
  %wide.load2 = load <8 x float>, ptr %11, align 4, !invariant.load !3, !alias.scope !9, !noalias !16
  %12 = mul nuw nsw <8 x i64> %vec.ind, splat (i64 10)
  %13 = extractelement <8 x i64> %12, i64 0
  %14 = extractelement <8 x i64> %12, i64 1
  %15 = extractelement <8 x i64> %12, i64 2
  %16 = extractelement <8 x i64> %12, i64 3
  %17 = extractelement <8 x i64> %12, i64 4
  %18 = extractelement <8 x i64> %12, i64 5
  %19 = extractelement <8 x i64> %12, i64 6
  %20 = extractelement <8 x i64> %12, i64 7
  %21 = icmp eq <8 x i32> %wide.load, zeroinitializer
  %22 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %13
  %23 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %14
  %24 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %15
  %25 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %16
  %26 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %17
  %27 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %18
  %28 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %19
  %29 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %20
  %30 = load float, ptr %22, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %31 = load float, ptr %23, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %32 = load float, ptr %24, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %33 = load float, ptr %25, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %34 = load float, ptr %26, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %35 = load float, ptr %27, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %36 = load float, ptr %28, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %37 = load float, ptr %29, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %38 = insertelement <8 x float> poison, float %30, i64 0
  %39 = insertelement <8 x float> %38, float %31, i64 1
  %40 = insertelement <8 x float> %39, float %32, i64 2
  %41 = insertelement <8 x float> %40, float %33, i64 3
  %42 = insertelement <8 x float> %41, float %34, i64 4
  %43 = insertelement <8 x float> %42, float %35, i64 5
  %44 = insertelement <8 x float> %43, float %36, i64 6
  %45 = insertelement <8 x float> %44, float %37, i64 7
  %46 = select <8 x i1> %21, <8 x float> splat (float -3.125000e-02), <8 x float> zeroinitializer
  %47 = fmul <8 x float> %wide.load2, %45
  %48 = fadd <8 x float> %46, %47
  %49 = extractelement <8 x float> %48, i64 0
  %50 = extractelement <8 x float> %48, i64 1
  %51 = extractelement <8 x float> %48, i64 2
  %52 = extractelement <8 x float> %48, i64 3
  %53 = extractelement <8 x float> %48, i64 4
  %54 = extractelement <8 x float> %48, i64 5
  %55 = extractelement <8 x float> %48, i64 6
  %56 = extractelement <8 x float> %48, i64 7
  %57 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %13
  %58 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %14
  %59 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %15
  %60 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %16
  %61 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %17
  %62 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %18
  %63 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %19
  %64 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %20
  store float %49, ptr %57, align 4, !alias.scope !13, !noalias !18
  store float %50, ptr %58, align 4, !alias.scope !13, !noalias !18
  store float %51, ptr %59, align 4, !alias.scope !13, !noalias !18
  store float %52, ptr %60, align 4, !alias.scope !13, !noalias !18
  store float %53, ptr %61, align 4, !alias.scope !13, !noalias !18
  store float %54, ptr %62, align 4, !alias.scope !13, !noalias !18
  store float %55, ptr %63, align 4, !alias.scope !13, !noalias !18
  store float %56, ptr %64, align 4, !alias.scope !13, !noalias !18
  %65 = icmp eq <8 x i32> %wide.load, splat (i32 1)
  %66 = or disjoint <8 x i64> %12, splat (i64 1)
  %67 = extractelement <8 x i64> %66, i64 0
  %68 = extractelement <8 x i64> %66, i64 1
  %69 = extractelement <8 x i64> %66, i64 2
  %70 = extractelement <8 x i64> %66, i64 3
  %71 = extractelement <8 x i64> %66, i64 4
  %72 = extractelement <8 x i64> %66, i64 5
  %73 = extractelement <8 x i64> %66, i64 6
  %74 = extractelement <8 x i64> %66, i64 7
  %75 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %67
  %76 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %68
  %77 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %69
  %78 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %70
  %79 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %71
  %80 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %72
  %81 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %73
  %82 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %74
  %83 = load float, ptr %75, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %84 = load float, ptr %76, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %85 = load float, ptr %77, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %86 = load float, ptr %78, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %87 = load float, ptr %79, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %88 = load float, ptr %80, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %89 = load float, ptr %81, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %90 = load float, ptr %82, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %91 = insertelement <8 x float> poison, float %83, i64 0
  %92 = insertelement <8 x float> %91, float %84, i64 1
  %93 = insertelement <8 x float> %92, float %85, i64 2
  %94 = insertelement <8 x float> %93, float %86, i64 3
  %95 = insertelement <8 x float> %94, float %87, i64 4
  %96 = insertelement <8 x float> %95, float %88, i64 5
  %97 = insertelement <8 x float> %96, float %89, i64 6
  %98 = insertelement <8 x float> %97, float %90, i64 7
  %99 = select <8 x i1> %65, <8 x float> splat (float -3.125000e-02), <8 x float> zeroinitializer
  %100 = fmul <8 x float> %wide.load2, %98
  %101 = fadd <8 x float> %99, %100
  %102 = extractelement <8 x float> %101, i64 0
  %103 = extractelement <8 x float> %101, i64 1
  %104 = extractelement <8 x float> %101, i64 2
  %105 = extractelement <8 x float> %101, i64 3
  %106 = extractelement <8 x float> %101, i64 4
  %107 = extractelement <8 x float> %101, i64 5
  %108 = extractelement <8 x float> %101, i64 6
  %109 = extractelement <8 x float> %101, i64 7
  %110 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %67
  %111 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %68
  %112 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %69
  %113 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %70
  %114 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %71
  %115 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %72
  %116 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %73
  %117 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %74
  store float %102, ptr %110, align 4, !alias.scope !13, !noalias !18
  store float %103, ptr %111, align 4, !alias.scope !13, !noalias !18
  store float %104, ptr %112, align 4, !alias.scope !13, !noalias !18
  store float %105, ptr %113, align 4, !alias.scope !13, !noalias !18
  store float %106, ptr %114, align 4, !alias.scope !13, !noalias !18
  store float %107, ptr %115, align 4, !alias.scope !13, !noalias !18
  store float %108, ptr %116, align 4, !alias.scope !13, !noalias !18
  store float %109, ptr %117, align 4, !alias.scope !13, !noalias !18
  %118 = icmp eq <8 x i32> %wide.load, splat (i32 2)
  %119 = add nuw nsw <8 x i64> %12, splat (i64 2)
  %120 = extractelement <8 x i64> %119, i64 0
  %121 = extractelement <8 x i64> %119, i64 1
  %122 = extractelement <8 x i64> %119, i64 2
  %123 = extractelement <8 x i64> %119, i64 3
  %124 = extractelement <8 x i64> %119, i64 4
  %125 = extractelement <8 x i64> %119, i64 5
  %126 = extractelement <8 x i64> %119, i64 6
  %127 = extractelement <8 x i64> %119, i64 7
  %128 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %120
  %129 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %121
  %130 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %122
  %131 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %123
  %132 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %124
  %133 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %125
  %134 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %126
  %135 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %127
  %136 = load float, ptr %128, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %137 = load float, ptr %129, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %138 = load float, ptr %130, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %139 = load float, ptr %131, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %140 = load float, ptr %132, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %141 = load float, ptr %133, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %142 = load float, ptr %134, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %143 = load float, ptr %135, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %144 = insertelement <8 x float> poison, float %136, i64 0
  %145 = insertelement <8 x float> %144, float %137, i64 1
  %146 = insertelement <8 x float> %145, float %138, i64 2
  %147 = insertelement <8 x float> %146, float %139, i64 3
  %148 = insertelement <8 x float> %147, float %140, i64 4
  %149 = insertelement <8 x float> %148, float %141, i64 5
  %150 = insertelement <8 x float> %149, float %142, i64 6
  %151 = insertelement <8 x float> %150, float %143, i64 7
  %152 = select <8 x i1> %118, <8 x float> splat (float -3.125000e-02), <8 x float> zeroinitializer
  %153 = fmul <8 x float> %wide.load2, %151
  %154 = fadd <8 x float> %152, %153
  %155 = extractelement <8 x float> %154, i64 0
  %156 = extractelement <8 x float> %154, i64 1
  %157 = extractelement <8 x float> %154, i64 2
  %158 = extractelement <8 x float> %154, i64 3
  %159 = extractelement <8 x float> %154, i64 4
  %160 = extractelement <8 x float> %154, i64 5
  %161 = extractelement <8 x float> %154, i64 6
  %162 = extractelement <8 x float> %154, i64 7
  %163 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %120
  %164 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %121
  %165 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %122
  %166 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %123
  %167 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %124
  %168 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %125
  %169 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %126
  %170 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %127
  store float %155, ptr %163, align 4, !alias.scope !13, !noalias !18
  store float %156, ptr %164, align 4, !alias.scope !13, !noalias !18
  store float %157, ptr %165, align 4, !alias.scope !13, !noalias !18
  store float %158, ptr %166, align 4, !alias.scope !13, !noalias !18
  store float %159, ptr %167, align 4, !alias.scope !13, !noalias !18
  store float %160, ptr %168, align 4, !alias.scope !13, !noalias !18
  store float %161, ptr %169, align 4, !alias.scope !13, !noalias !18
  store float %162, ptr %170, align 4, !alias.scope !13, !noalias !18
  %171 = icmp eq <8 x i32> %wide.load, splat (i32 3)
  %172 = add nuw nsw <8 x i64> %12, splat (i64 3)
  %173 = extractelement <8 x i64> %172, i64 0
  %174 = extractelement <8 x i64> %172, i64 1
  %175 = extractelement <8 x i64> %172, i64 2
  %176 = extractelement <8 x i64> %172, i64 3
  %177 = extractelement <8 x i64> %172, i64 4
  %178 = extractelement <8 x i64> %172, i64 5
  %179 = extractelement <8 x i64> %172, i64 6
  %180 = extractelement <8 x i64> %172, i64 7
  %181 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %173
  %182 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %174
  %183 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %175
  %184 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %176
  %185 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %177
  %186 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %178
  %187 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %179
  %188 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %180
  %189 = load float, ptr %181, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %190 = load float, ptr %182, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %191 = load float, ptr %183, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %192 = load float, ptr %184, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %193 = load float, ptr %185, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %194 = load float, ptr %186, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %195 = load float, ptr %187, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %196 = load float, ptr %188, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %197 = insertelement <8 x float> poison, float %189, i64 0
  %198 = insertelement <8 x float> %197, float %190, i64 1
  %199 = insertelement <8 x float> %198, float %191, i64 2
  %200 = insertelement <8 x float> %199, float %192, i64 3
  %201 = insertelement <8 x float> %200, float %193, i64 4
  %202 = insertelement <8 x float> %201, float %194, i64 5
  %203 = insertelement <8 x float> %202, float %195, i64 6
  %204 = insertelement <8 x float> %203, float %196, i64 7
  %205 = select <8 x i1> %171, <8 x float> splat (float -3.125000e-02), <8 x float> zeroinitializer
  %206 = fmul <8 x float> %wide.load2, %204
  %207 = fadd <8 x float> %205, %206
  %208 = extractelement <8 x float> %207, i64 0
  %209 = extractelement <8 x float> %207, i64 1
  %210 = extractelement <8 x float> %207, i64 2
  %211 = extractelement <8 x float> %207, i64 3
  %212 = extractelement <8 x float> %207, i64 4
  %213 = extractelement <8 x float> %207, i64 5
  %214 = extractelement <8 x float> %207, i64 6
  %215 = extractelement <8 x float> %207, i64 7
  %216 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %173
  %217 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %174
  %218 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %175
  %219 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %176
  %220 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %177
  %221 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %178
  %222 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %179
  %223 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %180
  store float %208, ptr %216, align 4, !alias.scope !13, !noalias !18
  store float %209, ptr %217, align 4, !alias.scope !13, !noalias !18
  store float %210, ptr %218, align 4, !alias.scope !13, !noalias !18
  store float %211, ptr %219, align 4, !alias.scope !13, !noalias !18
  store float %212, ptr %220, align 4, !alias.scope !13, !noalias !18
  store float %213, ptr %221, align 4, !alias.scope !13, !noalias !18
  store float %214, ptr %222, align 4, !alias.scope !13, !noalias !18
  store float %215, ptr %223, align 4, !alias.scope !13, !noalias !18
  %224 = icmp eq <8 x i32> %wide.load, splat (i32 4)
  %225 = add nuw nsw <8 x i64> %12, splat (i64 4)
  %226 = extractelement <8 x i64> %225, i64 0
  %227 = extractelement <8 x i64> %225, i64 1
  %228 = extractelement <8 x i64> %225, i64 2
  %229 = extractelement <8 x i64> %225, i64 3
  %230 = extractelement <8 x i64> %225, i64 4
  %231 = extractelement <8 x i64> %225, i64 5
  %232 = extractelement <8 x i64> %225, i64 6
  %233 = extractelement <8 x i64> %225, i64 7
  %234 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %226
  %235 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %227
  %236 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %228
  %237 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %229
  %238 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %230
  %239 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %231
  %240 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %232
  %241 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %233
  %242 = load float, ptr %234, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %243 = load float, ptr %235, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %244 = load float, ptr %236, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %245 = load float, ptr %237, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %246 = load float, ptr %238, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %247 = load float, ptr %239, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %248 = load float, ptr %240, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %249 = load float, ptr %241, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %250 = insertelement <8 x float> poison, float %242, i64 0
  %251 = insertelement <8 x float> %250, float %243, i64 1
  %252 = insertelement <8 x float> %251, float %244, i64 2
  %253 = insertelement <8 x float> %252, float %245, i64 3
  %254 = insertelement <8 x float> %253, float %246, i64 4
  %255 = insertelement <8 x float> %254, float %247, i64 5
  %256 = insertelement <8 x float> %255, float %248, i64 6
  %257 = insertelement <8 x float> %256, float %249, i64 7
  %258 = select <8 x i1> %224, <8 x float> splat (float -3.125000e-02), <8 x float> zeroinitializer
  %259 = fmul <8 x float> %wide.load2, %257
  %260 = fadd <8 x float> %258, %259
  %261 = extractelement <8 x float> %260, i64 0
  %262 = extractelement <8 x float> %260, i64 1
  %263 = extractelement <8 x float> %260, i64 2
  %264 = extractelement <8 x float> %260, i64 3
  %265 = extractelement <8 x float> %260, i64 4
  %266 = extractelement <8 x float> %260, i64 5
  %267 = extractelement <8 x float> %260, i64 6
  %268 = extractelement <8 x float> %260, i64 7
  %269 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %226
  %270 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %227
  %271 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %228
  %272 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %229
  %273 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %230
  %274 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %231
  %275 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %232
  %276 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %233
  store float %261, ptr %269, align 4, !alias.scope !13, !noalias !18
  store float %262, ptr %270, align 4, !alias.scope !13, !noalias !18
  store float %263, ptr %271, align 4, !alias.scope !13, !noalias !18
  store float %264, ptr %272, align 4, !alias.scope !13, !noalias !18
  store float %265, ptr %273, align 4, !alias.scope !13, !noalias !18
  store float %266, ptr %274, align 4, !alias.scope !13, !noalias !18
  store float %267, ptr %275, align 4, !alias.scope !13, !noalias !18
  store float %268, ptr %276, align 4, !alias.scope !13, !noalias !18
  %277 = icmp eq <8 x i32> %wide.load, splat (i32 5)
  %278 = add nuw nsw <8 x i64> %12, splat (i64 5)
  %279 = extractelement <8 x i64> %278, i64 0
  %280 = extractelement <8 x i64> %278, i64 1
  %281 = extractelement <8 x i64> %278, i64 2
  %282 = extractelement <8 x i64> %278, i64 3
  %283 = extractelement <8 x i64> %278, i64 4
  %284 = extractelement <8 x i64> %278, i64 5
  %285 = extractelement <8 x i64> %278, i64 6
  %286 = extractelement <8 x i64> %278, i64 7
  %287 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %279
  %288 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %280
  %289 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %281
  %290 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %282
  %291 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %283
  %292 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %284
  %293 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %285
  %294 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %286
  %295 = load float, ptr %287, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %296 = load float, ptr %288, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %297 = load float, ptr %289, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %298 = load float, ptr %290, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %299 = load float, ptr %291, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %300 = load float, ptr %292, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %301 = load float, ptr %293, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %302 = load float, ptr %294, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %303 = insertelement <8 x float> poison, float %295, i64 0
  %304 = insertelement <8 x float> %303, float %296, i64 1
  %305 = insertelement <8 x float> %304, float %297, i64 2
  %306 = insertelement <8 x float> %305, float %298, i64 3
  %307 = insertelement <8 x float> %306, float %299, i64 4
  %308 = insertelement <8 x float> %307, float %300, i64 5
  %309 = insertelement <8 x float> %308, float %301, i64 6
  %310 = insertelement <8 x float> %309, float %302, i64 7
  %311 = select <8 x i1> %277, <8 x float> splat (float -3.125000e-02), <8 x float> zeroinitializer
  %312 = fmul <8 x float> %wide.load2, %310
  %313 = fadd <8 x float> %311, %312
  %314 = extractelement <8 x float> %313, i64 0
  %315 = extractelement <8 x float> %313, i64 1
  %316 = extractelement <8 x float> %313, i64 2
  %317 = extractelement <8 x float> %313, i64 3
  %318 = extractelement <8 x float> %313, i64 4
  %319 = extractelement <8 x float> %313, i64 5
  %320 = extractelement <8 x float> %313, i64 6
  %321 = extractelement <8 x float> %313, i64 7
  %322 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %279
  %323 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %280
  %324 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %281
  %325 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %282
  %326 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %283
  %327 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %284
  %328 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %285
  %329 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %286
  store float %314, ptr %322, align 4, !alias.scope !13, !noalias !18
  store float %315, ptr %323, align 4, !alias.scope !13, !noalias !18
  store float %316, ptr %324, align 4, !alias.scope !13, !noalias !18
  store float %317, ptr %325, align 4, !alias.scope !13, !noalias !18
  store float %318, ptr %326, align 4, !alias.scope !13, !noalias !18
  store float %319, ptr %327, align 4, !alias.scope !13, !noalias !18
  store float %320, ptr %328, align 4, !alias.scope !13, !noalias !18
  store float %321, ptr %329, align 4, !alias.scope !13, !noalias !18
  %330 = icmp eq <8 x i32> %wide.load, splat (i32 6)
  %331 = add nuw nsw <8 x i64> %12, splat (i64 6)
  %332 = extractelement <8 x i64> %331, i64 0
  %333 = extractelement <8 x i64> %331, i64 1
  %334 = extractelement <8 x i64> %331, i64 2
  %335 = extractelement <8 x i64> %331, i64 3
  %336 = extractelement <8 x i64> %331, i64 4
  %337 = extractelement <8 x i64> %331, i64 5
  %338 = extractelement <8 x i64> %331, i64 6
  %339 = extractelement <8 x i64> %331, i64 7
  %340 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %332
  %341 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %333
  %342 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %334
  %343 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %335
  %344 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %336
  %345 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %337
  %346 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %338
  %347 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %339
  %348 = load float, ptr %340, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %349 = load float, ptr %341, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %350 = load float, ptr %342, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %351 = load float, ptr %343, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %352 = load float, ptr %344, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %353 = load float, ptr %345, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %354 = load float, ptr %346, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %355 = load float, ptr %347, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %356 = insertelement <8 x float> poison, float %348, i64 0
  %357 = insertelement <8 x float> %356, float %349, i64 1
  %358 = insertelement <8 x float> %357, float %350, i64 2
  %359 = insertelement <8 x float> %358, float %351, i64 3
  %360 = insertelement <8 x float> %359, float %352, i64 4
  %361 = insertelement <8 x float> %360, float %353, i64 5
  %362 = insertelement <8 x float> %361, float %354, i64 6
  %363 = insertelement <8 x float> %362, float %355, i64 7
  %364 = select <8 x i1> %330, <8 x float> splat (float -3.125000e-02), <8 x float> zeroinitializer
  %365 = fmul <8 x float> %wide.load2, %363
  %366 = fadd <8 x float> %364, %365
  %367 = extractelement <8 x float> %366, i64 0
  %368 = extractelement <8 x float> %366, i64 1
  %369 = extractelement <8 x float> %366, i64 2
  %370 = extractelement <8 x float> %366, i64 3
  %371 = extractelement <8 x float> %366, i64 4
  %372 = extractelement <8 x float> %366, i64 5
  %373 = extractelement <8 x float> %366, i64 6
  %374 = extractelement <8 x float> %366, i64 7
  %375 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %332
  %376 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %333
  %377 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %334
  %378 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %335
  %379 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %336
  %380 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %337
  %381 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %338
  %382 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %339
  store float %367, ptr %375, align 4, !alias.scope !13, !noalias !18
  store float %368, ptr %376, align 4, !alias.scope !13, !noalias !18
  store float %369, ptr %377, align 4, !alias.scope !13, !noalias !18
  store float %370, ptr %378, align 4, !alias.scope !13, !noalias !18
  store float %371, ptr %379, align 4, !alias.scope !13, !noalias !18
  store float %372, ptr %380, align 4, !alias.scope !13, !noalias !18
  store float %373, ptr %381, align 4, !alias.scope !13, !noalias !18
  store float %374, ptr %382, align 4, !alias.scope !13, !noalias !18
  %383 = icmp eq <8 x i32> %wide.load, splat (i32 7)
  %384 = add nuw nsw <8 x i64> %12, splat (i64 7)
  %385 = extractelement <8 x i64> %384, i64 0
  %386 = extractelement <8 x i64> %384, i64 1
  %387 = extractelement <8 x i64> %384, i64 2
  %388 = extractelement <8 x i64> %384, i64 3
  %389 = extractelement <8 x i64> %384, i64 4
  %390 = extractelement <8 x i64> %384, i64 5
  %391 = extractelement <8 x i64> %384, i64 6
  %392 = extractelement <8 x i64> %384, i64 7
  %393 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %385
  %394 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %386
  %395 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %387
  %396 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %388
  %397 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %389
  %398 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %390
  %399 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %391
  %400 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %392
  %401 = load float, ptr %393, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %402 = load float, ptr %394, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %403 = load float, ptr %395, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %404 = load float, ptr %396, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %405 = load float, ptr %397, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %406 = load float, ptr %398, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %407 = load float, ptr %399, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %408 = load float, ptr %400, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %409 = insertelement <8 x float> poison, float %401, i64 0
  %410 = insertelement <8 x float> %409, float %402, i64 1
  %411 = insertelement <8 x float> %410, float %403, i64 2
  %412 = insertelement <8 x float> %411, float %404, i64 3
  %413 = insertelement <8 x float> %412, float %405, i64 4
  %414 = insertelement <8 x float> %413, float %406, i64 5
  %415 = insertelement <8 x float> %414, float %407, i64 6
  %416 = insertelement <8 x float> %415, float %408, i64 7
  %417 = select <8 x i1> %383, <8 x float> splat (float -3.125000e-02), <8 x float> zeroinitializer
  %418 = fmul <8 x float> %wide.load2, %416
  %419 = fadd <8 x float> %417, %418
  %420 = extractelement <8 x float> %419, i64 0
  %421 = extractelement <8 x float> %419, i64 1
  %422 = extractelement <8 x float> %419, i64 2
  %423 = extractelement <8 x float> %419, i64 3
  %424 = extractelement <8 x float> %419, i64 4
  %425 = extractelement <8 x float> %419, i64 5
  %426 = extractelement <8 x float> %419, i64 6
  %427 = extractelement <8 x float> %419, i64 7
  %428 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %385
  %429 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %386
  %430 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %387
  %431 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %388
  %432 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %389
  %433 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %390
  %434 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %391
  %435 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %392
  store float %420, ptr %428, align 4, !alias.scope !13, !noalias !18
  store float %421, ptr %429, align 4, !alias.scope !13, !noalias !18
  store float %422, ptr %430, align 4, !alias.scope !13, !noalias !18
  store float %423, ptr %431, align 4, !alias.scope !13, !noalias !18
  store float %424, ptr %432, align 4, !alias.scope !13, !noalias !18
  store float %425, ptr %433, align 4, !alias.scope !13, !noalias !18
  store float %426, ptr %434, align 4, !alias.scope !13, !noalias !18
  store float %427, ptr %435, align 4, !alias.scope !13, !noalias !18
  %436 = icmp eq <8 x i32> %wide.load, splat (i32 8)
  %437 = add nuw nsw <8 x i64> %12, splat (i64 8)
  %438 = extractelement <8 x i64> %437, i64 0
  %439 = extractelement <8 x i64> %437, i64 1
  %440 = extractelement <8 x i64> %437, i64 2
  %441 = extractelement <8 x i64> %437, i64 3
  %442 = extractelement <8 x i64> %437, i64 4
  %443 = extractelement <8 x i64> %437, i64 5
  %444 = extractelement <8 x i64> %437, i64 6
  %445 = extractelement <8 x i64> %437, i64 7
  %446 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %438
  %447 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %439
  %448 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %440
  %449 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %441
  %450 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %442
  %451 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %443
  %452 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %444
  %453 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %445
  %454 = load float, ptr %446, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %455 = load float, ptr %447, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %456 = load float, ptr %448, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %457 = load float, ptr %449, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %458 = load float, ptr %450, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %459 = load float, ptr %451, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %460 = load float, ptr %452, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %461 = load float, ptr %453, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %462 = insertelement <8 x float> poison, float %454, i64 0
  %463 = insertelement <8 x float> %462, float %455, i64 1
  %464 = insertelement <8 x float> %463, float %456, i64 2
  %465 = insertelement <8 x float> %464, float %457, i64 3
  %466 = insertelement <8 x float> %465, float %458, i64 4
  %467 = insertelement <8 x float> %466, float %459, i64 5
  %468 = insertelement <8 x float> %467, float %460, i64 6
  %469 = insertelement <8 x float> %468, float %461, i64 7
  %470 = select <8 x i1> %436, <8 x float> splat (float -3.125000e-02), <8 x float> zeroinitializer
  %471 = fmul <8 x float> %wide.load2, %469
  %472 = fadd <8 x float> %470, %471
  %473 = extractelement <8 x float> %472, i64 0
  %474 = extractelement <8 x float> %472, i64 1
  %475 = extractelement <8 x float> %472, i64 2
  %476 = extractelement <8 x float> %472, i64 3
  %477 = extractelement <8 x float> %472, i64 4
  %478 = extractelement <8 x float> %472, i64 5
  %479 = extractelement <8 x float> %472, i64 6
  %480 = extractelement <8 x float> %472, i64 7
  %481 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %438
  %482 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %439
  %483 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %440
  %484 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %441
  %485 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %442
  %486 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %443
  %487 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %444
  %488 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %445
  store float %473, ptr %481, align 4, !alias.scope !13, !noalias !18
  store float %474, ptr %482, align 4, !alias.scope !13, !noalias !18
  store float %475, ptr %483, align 4, !alias.scope !13, !noalias !18
  store float %476, ptr %484, align 4, !alias.scope !13, !noalias !18
  store float %477, ptr %485, align 4, !alias.scope !13, !noalias !18
  store float %478, ptr %486, align 4, !alias.scope !13, !noalias !18
  store float %479, ptr %487, align 4, !alias.scope !13, !noalias !18
  store float %480, ptr %488, align 4, !alias.scope !13, !noalias !18
  %489 = icmp eq <8 x i32> %wide.load, splat (i32 9)
  %490 = add nuw nsw <8 x i64> %12, splat (i64 9)
  %491 = extractelement <8 x i64> %490, i64 0
  %492 = extractelement <8 x i64> %490, i64 1
  %493 = extractelement <8 x i64> %490, i64 2
  %494 = extractelement <8 x i64> %490, i64 3
  %495 = extractelement <8 x i64> %490, i64 4
  %496 = extractelement <8 x i64> %490, i64 5
  %497 = extractelement <8 x i64> %490, i64 6
  %498 = extractelement <8 x i64> %490, i64 7
  %499 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %491
  %500 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %492
  %501 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %493
  %502 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %494
  %503 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %495
  %504 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %496
  %505 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %497
  %506 = getelementptr inbounds nuw [4 x i8], ptr %3, i64 %498
  %507 = load float, ptr %499, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %508 = load float, ptr %500, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %509 = load float, ptr %501, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %510 = load float, ptr %502, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %511 = load float, ptr %503, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %512 = load float, ptr %504, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %513 = load float, ptr %505, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %514 = load float, ptr %506, align 4, !invariant.load !3, !alias.scope !6, !noalias !17
  %515 = insertelement <8 x float> poison, float %507, i64 0
  %516 = insertelement <8 x float> %515, float %508, i64 1
  %517 = insertelement <8 x float> %516, float %509, i64 2
  %518 = insertelement <8 x float> %517, float %510, i64 3
  %519 = insertelement <8 x float> %518, float %511, i64 4
  %520 = insertelement <8 x float> %519, float %512, i64 5
  %521 = insertelement <8 x float> %520, float %513, i64 6
  %522 = insertelement <8 x float> %521, float %514, i64 7
  %523 = select <8 x i1> %489, <8 x float> splat (float -3.125000e-02), <8 x float> zeroinitializer
  %524 = fmul <8 x float> %wide.load2, %522
  %525 = fadd <8 x float> %523, %524
  %526 = extractelement <8 x float> %525, i64 0
  %527 = extractelement <8 x float> %525, i64 1
  %528 = extractelement <8 x float> %525, i64 2
  %529 = extractelement <8 x float> %525, i64 3
  %530 = extractelement <8 x float> %525, i64 4
  %531 = extractelement <8 x float> %525, i64 5
  %532 = extractelement <8 x float> %525, i64 6
  %533 = extractelement <8 x float> %525, i64 7
  %534 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %491
  %535 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %492
  %536 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %493
  %537 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %494
  %538 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %495
  %539 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %496
  %540 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %497
  %541 = getelementptr inbounds nuw [4 x i8], ptr %9, i64 %498
  store float %526, ptr %534, align 4, !alias.scope !13, !noalias !18
  store float %527, ptr %535, align 4, !alias.scope !13, !noalias !18
  store float %528, ptr %536, align 4, !alias.scope !13, !noalias !18
  store float %529, ptr %537, align 4, !alias.scope !13, !noalias !18
  store float %530, ptr %538, align 4, !alias.scope !13, !noalias !18
  store float %531, ptr %539, align 4, !alias.scope !13, !noalias !18
  store float %532, ptr %540, align 4, !alias.scope !13, !noalias !18
  store float %533, ptr %541, align 4, !alias.scope !13, !noalias !18
  %index.next = add nuw i64 %index, 8
  %vec.ind.next = add nuw nsw <8 x i64> %vec.ind, splat (i64 8)
  %542 = icmp eq i64 %index.next, 32
  br i1 %542, label %multiply_add_fusion_wrapped.exit, label %vector.body, !llvm.loop !19

multiply_add_fusion_wrapped.exit:                 ; preds = %vector.body
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
!4 = !{i64 1280}
!5 = !{i64 128}
!6 = !{!7}
!7 = distinct !{!7, !8, !"multiply_add_fusion_wrapped: argument 0"}
!8 = distinct !{!8, !"multiply_add_fusion_wrapped"}
!9 = !{!10}
!10 = distinct !{!10, !8, !"multiply_add_fusion_wrapped: argument 1"}
!11 = !{!12}
!12 = distinct !{!12, !8, !"multiply_add_fusion_wrapped: argument 2"}
!13 = !{!14}
!14 = distinct !{!14, !8, !"multiply_add_fusion_wrapped: argument 3"}
!15 = !{!7, !10, !14}
!16 = !{!7, !12, !14}
!17 = !{!10, !12, !14}
!18 = !{!7, !10, !12}
!19 = distinct !{!19, !20, !21, !22}
!20 = !{!"llvm.loop.unroll.disable"}
!21 = !{!"llvm.loop.isvectorized", i32 1}
!22 = !{!"llvm.loop.unroll.runtime.disable"}
