; ModuleID = '__compute_module_multiply_subtract_fusion.2_kernel_module'
source_filename = "__compute_module_multiply_subtract_fusion.2_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @multiply_subtract_fusion.2(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
multiply_subtract_fusion.2_wrapped.exit:
  %1 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %2 = load ptr, ptr %1, align 8, !invariant.load !3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3, !dereferenceable !4
  %4 = getelementptr inbounds nuw i8, ptr %2, i64 16
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  tail call void @llvm.experimental.noalias.scope.decl(metadata !5)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !8)
  %6 = load float, ptr %5, align 4, !alias.scope !8, !noalias !5
  %7 = load float, ptr %3, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %8 = fmul float %6, f0x3C23D70A
  %9 = fsub float %7, %8
  store float %9, ptr %5, align 4, !alias.scope !8, !noalias !5
  %10 = getelementptr inbounds nuw i8, ptr %5, i64 4
  %11 = load float, ptr %10, align 4, !alias.scope !8, !noalias !5
  %12 = getelementptr inbounds nuw i8, ptr %3, i64 4
  %13 = load float, ptr %12, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %14 = fmul float %11, f0x3C23D70A
  %15 = fsub float %13, %14
  store float %15, ptr %10, align 4, !alias.scope !8, !noalias !5
  %16 = getelementptr inbounds nuw i8, ptr %5, i64 8
  %17 = load float, ptr %16, align 4, !alias.scope !8, !noalias !5
  %18 = getelementptr inbounds nuw i8, ptr %3, i64 8
  %19 = load float, ptr %18, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %20 = fmul float %17, f0x3C23D70A
  %21 = fsub float %19, %20
  store float %21, ptr %16, align 4, !alias.scope !8, !noalias !5
  %22 = getelementptr inbounds nuw i8, ptr %5, i64 12
  %23 = load float, ptr %22, align 4, !alias.scope !8, !noalias !5
  %24 = getelementptr inbounds nuw i8, ptr %3, i64 12
  %25 = load float, ptr %24, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %26 = fmul float %23, f0x3C23D70A
  %27 = fsub float %25, %26
  store float %27, ptr %22, align 4, !alias.scope !8, !noalias !5
  %28 = getelementptr inbounds nuw i8, ptr %5, i64 16
  %29 = load float, ptr %28, align 4, !alias.scope !8, !noalias !5
  %30 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %31 = load float, ptr %30, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %32 = fmul float %29, f0x3C23D70A
  %33 = fsub float %31, %32
  store float %33, ptr %28, align 4, !alias.scope !8, !noalias !5
  %34 = getelementptr inbounds nuw i8, ptr %5, i64 20
  %35 = load float, ptr %34, align 4, !alias.scope !8, !noalias !5
  %36 = getelementptr inbounds nuw i8, ptr %3, i64 20
  %37 = load float, ptr %36, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %38 = fmul float %35, f0x3C23D70A
  %39 = fsub float %37, %38
  store float %39, ptr %34, align 4, !alias.scope !8, !noalias !5
  %40 = getelementptr inbounds nuw i8, ptr %5, i64 24
  %41 = load float, ptr %40, align 4, !alias.scope !8, !noalias !5
  %42 = getelementptr inbounds nuw i8, ptr %3, i64 24
  %43 = load float, ptr %42, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %44 = fmul float %41, f0x3C23D70A
  %45 = fsub float %43, %44
  store float %45, ptr %40, align 4, !alias.scope !8, !noalias !5
  %46 = getelementptr inbounds nuw i8, ptr %5, i64 28
  %47 = load float, ptr %46, align 4, !alias.scope !8, !noalias !5
  %48 = getelementptr inbounds nuw i8, ptr %3, i64 28
  %49 = load float, ptr %48, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %50 = fmul float %47, f0x3C23D70A
  %51 = fsub float %49, %50
  store float %51, ptr %46, align 4, !alias.scope !8, !noalias !5
  %52 = getelementptr inbounds nuw i8, ptr %5, i64 32
  %53 = load float, ptr %52, align 4, !alias.scope !8, !noalias !5
  %54 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %55 = load float, ptr %54, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %56 = fmul float %53, f0x3C23D70A
  %57 = fsub float %55, %56
  store float %57, ptr %52, align 4, !alias.scope !8, !noalias !5
  %58 = getelementptr inbounds nuw i8, ptr %5, i64 36
  %59 = load float, ptr %58, align 4, !alias.scope !8, !noalias !5
  %60 = getelementptr inbounds nuw i8, ptr %3, i64 36
  %61 = load float, ptr %60, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %62 = fmul float %59, f0x3C23D70A
  %63 = fsub float %61, %62
  store float %63, ptr %58, align 4, !alias.scope !8, !noalias !5
  %64 = getelementptr inbounds nuw i8, ptr %5, i64 40
  %65 = load float, ptr %64, align 4, !alias.scope !8, !noalias !5
  %66 = getelementptr inbounds nuw i8, ptr %3, i64 40
  %67 = load float, ptr %66, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %68 = fmul float %65, f0x3C23D70A
  %69 = fsub float %67, %68
  store float %69, ptr %64, align 4, !alias.scope !8, !noalias !5
  %70 = getelementptr inbounds nuw i8, ptr %5, i64 44
  %71 = load float, ptr %70, align 4, !alias.scope !8, !noalias !5
  %72 = getelementptr inbounds nuw i8, ptr %3, i64 44
  %73 = load float, ptr %72, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %74 = fmul float %71, f0x3C23D70A
  %75 = fsub float %73, %74
  store float %75, ptr %70, align 4, !alias.scope !8, !noalias !5
  %76 = getelementptr inbounds nuw i8, ptr %5, i64 48
  %77 = load float, ptr %76, align 4, !alias.scope !8, !noalias !5
  %78 = getelementptr inbounds nuw i8, ptr %3, i64 48
  %79 = load float, ptr %78, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %80 = fmul float %77, f0x3C23D70A
  %81 = fsub float %79, %80
  store float %81, ptr %76, align 4, !alias.scope !8, !noalias !5
  %82 = getelementptr inbounds nuw i8, ptr %5, i64 52
  %83 = load float, ptr %82, align 4, !alias.scope !8, !noalias !5
  %84 = getelementptr inbounds nuw i8, ptr %3, i64 52
  %85 = load float, ptr %84, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %86 = fmul float %83, f0x3C23D70A
  %87 = fsub float %85, %86
  store float %87, ptr %82, align 4, !alias.scope !8, !noalias !5
  %88 = getelementptr inbounds nuw i8, ptr %5, i64 56
  %89 = load float, ptr %88, align 4, !alias.scope !8, !noalias !5
  %90 = getelementptr inbounds nuw i8, ptr %3, i64 56
  %91 = load float, ptr %90, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %92 = fmul float %89, f0x3C23D70A
  %93 = fsub float %91, %92
  store float %93, ptr %88, align 4, !alias.scope !8, !noalias !5
  %94 = getelementptr inbounds nuw i8, ptr %5, i64 60
  %95 = load float, ptr %94, align 4, !alias.scope !8, !noalias !5
  %96 = getelementptr inbounds nuw i8, ptr %3, i64 60
  %97 = load float, ptr %96, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %98 = fmul float %95, f0x3C23D70A
  %99 = fsub float %97, %98
  store float %99, ptr %94, align 4, !alias.scope !8, !noalias !5
  %100 = getelementptr inbounds nuw i8, ptr %5, i64 64
  %101 = load float, ptr %100, align 4, !alias.scope !8, !noalias !5
  %102 = getelementptr inbounds nuw i8, ptr %3, i64 64
  %103 = load float, ptr %102, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %104 = fmul float %101, f0x3C23D70A
  %105 = fsub float %103, %104
  store float %105, ptr %100, align 4, !alias.scope !8, !noalias !5
  %106 = getelementptr inbounds nuw i8, ptr %5, i64 68
  %107 = load float, ptr %106, align 4, !alias.scope !8, !noalias !5
  %108 = getelementptr inbounds nuw i8, ptr %3, i64 68
  %109 = load float, ptr %108, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %110 = fmul float %107, f0x3C23D70A
  %111 = fsub float %109, %110
  store float %111, ptr %106, align 4, !alias.scope !8, !noalias !5
  %112 = getelementptr inbounds nuw i8, ptr %5, i64 72
  %113 = load float, ptr %112, align 4, !alias.scope !8, !noalias !5
  %114 = getelementptr inbounds nuw i8, ptr %3, i64 72
  %115 = load float, ptr %114, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %116 = fmul float %113, f0x3C23D70A
  %117 = fsub float %115, %116
  store float %117, ptr %112, align 4, !alias.scope !8, !noalias !5
  %118 = getelementptr inbounds nuw i8, ptr %5, i64 76
  %119 = load float, ptr %118, align 4, !alias.scope !8, !noalias !5
  %120 = getelementptr inbounds nuw i8, ptr %3, i64 76
  %121 = load float, ptr %120, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %122 = fmul float %119, f0x3C23D70A
  %123 = fsub float %121, %122
  store float %123, ptr %118, align 4, !alias.scope !8, !noalias !5
  %124 = getelementptr inbounds nuw i8, ptr %5, i64 80
  %125 = load float, ptr %124, align 4, !alias.scope !8, !noalias !5
  %126 = getelementptr inbounds nuw i8, ptr %3, i64 80
  %127 = load float, ptr %126, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %128 = fmul float %125, f0x3C23D70A
  %129 = fsub float %127, %128
  store float %129, ptr %124, align 4, !alias.scope !8, !noalias !5
  %130 = getelementptr inbounds nuw i8, ptr %5, i64 84
  %131 = load float, ptr %130, align 4, !alias.scope !8, !noalias !5
  %132 = getelementptr inbounds nuw i8, ptr %3, i64 84
  %133 = load float, ptr %132, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %134 = fmul float %131, f0x3C23D70A
  %135 = fsub float %133, %134
  store float %135, ptr %130, align 4, !alias.scope !8, !noalias !5
  %136 = getelementptr inbounds nuw i8, ptr %5, i64 88
  %137 = load float, ptr %136, align 4, !alias.scope !8, !noalias !5
  %138 = getelementptr inbounds nuw i8, ptr %3, i64 88
  %139 = load float, ptr %138, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %140 = fmul float %137, f0x3C23D70A
  %141 = fsub float %139, %140
  store float %141, ptr %136, align 4, !alias.scope !8, !noalias !5
  %142 = getelementptr inbounds nuw i8, ptr %5, i64 92
  %143 = load float, ptr %142, align 4, !alias.scope !8, !noalias !5
  %144 = getelementptr inbounds nuw i8, ptr %3, i64 92
  %145 = load float, ptr %144, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %146 = fmul float %143, f0x3C23D70A
  %147 = fsub float %145, %146
  store float %147, ptr %142, align 4, !alias.scope !8, !noalias !5
  %148 = getelementptr inbounds nuw i8, ptr %5, i64 96
  %149 = load float, ptr %148, align 4, !alias.scope !8, !noalias !5
  %150 = getelementptr inbounds nuw i8, ptr %3, i64 96
  %151 = load float, ptr %150, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %152 = fmul float %149, f0x3C23D70A
  %153 = fsub float %151, %152
  store float %153, ptr %148, align 4, !alias.scope !8, !noalias !5
  %154 = getelementptr inbounds nuw i8, ptr %5, i64 100
  %155 = load float, ptr %154, align 4, !alias.scope !8, !noalias !5
  %156 = getelementptr inbounds nuw i8, ptr %3, i64 100
  %157 = load float, ptr %156, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %158 = fmul float %155, f0x3C23D70A
  %159 = fsub float %157, %158
  store float %159, ptr %154, align 4, !alias.scope !8, !noalias !5
  %160 = getelementptr inbounds nuw i8, ptr %5, i64 104
  %161 = load float, ptr %160, align 4, !alias.scope !8, !noalias !5
  %162 = getelementptr inbounds nuw i8, ptr %3, i64 104
  %163 = load float, ptr %162, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %164 = fmul float %161, f0x3C23D70A
  %165 = fsub float %163, %164
  store float %165, ptr %160, align 4, !alias.scope !8, !noalias !5
  %166 = getelementptr inbounds nuw i8, ptr %5, i64 108
  %167 = load float, ptr %166, align 4, !alias.scope !8, !noalias !5
  %168 = getelementptr inbounds nuw i8, ptr %3, i64 108
  %169 = load float, ptr %168, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %170 = fmul float %167, f0x3C23D70A
  %171 = fsub float %169, %170
  store float %171, ptr %166, align 4, !alias.scope !8, !noalias !5
  %172 = getelementptr inbounds nuw i8, ptr %5, i64 112
  %173 = load float, ptr %172, align 4, !alias.scope !8, !noalias !5
  %174 = getelementptr inbounds nuw i8, ptr %3, i64 112
  %175 = load float, ptr %174, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %176 = fmul float %173, f0x3C23D70A
  %177 = fsub float %175, %176
  store float %177, ptr %172, align 4, !alias.scope !8, !noalias !5
  %178 = getelementptr inbounds nuw i8, ptr %5, i64 116
  %179 = load float, ptr %178, align 4, !alias.scope !8, !noalias !5
  %180 = getelementptr inbounds nuw i8, ptr %3, i64 116
  %181 = load float, ptr %180, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %182 = fmul float %179, f0x3C23D70A
  %183 = fsub float %181, %182
  store float %183, ptr %178, align 4, !alias.scope !8, !noalias !5
  %184 = getelementptr inbounds nuw i8, ptr %5, i64 120
  %185 = load float, ptr %184, align 4, !alias.scope !8, !noalias !5
  %186 = getelementptr inbounds nuw i8, ptr %3, i64 120
  %187 = load float, ptr %186, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %188 = fmul float %185, f0x3C23D70A
  %189 = fsub float %187, %188
  store float %189, ptr %184, align 4, !alias.scope !8, !noalias !5
  %190 = getelementptr inbounds nuw i8, ptr %5, i64 124
  %191 = load float, ptr %190, align 4, !alias.scope !8, !noalias !5
  %192 = getelementptr inbounds nuw i8, ptr %3, i64 124
  %193 = load float, ptr %192, align 4, !invariant.load !3, !alias.scope !5, !noalias !8
  %194 = fmul float %191, f0x3C23D70A
  %195 = fsub float %193, %194
  store float %195, ptr %190, align 4, !alias.scope !8, !noalias !5
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 17}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 128}
!5 = !{!6}
!6 = distinct !{!6, !7, !"multiply_subtract_fusion.2_wrapped: argument 0"}
!7 = distinct !{!7, !"multiply_subtract_fusion.2_wrapped"}
!8 = !{!9}
!9 = distinct !{!9, !7, !"multiply_subtract_fusion.2_wrapped: argument 1"}
