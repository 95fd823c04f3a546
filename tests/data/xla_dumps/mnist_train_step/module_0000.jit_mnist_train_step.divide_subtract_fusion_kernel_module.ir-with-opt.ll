; ModuleID = '__compute_module_divide_subtract_fusion_kernel_module'
source_filename = "__compute_module_divide_subtract_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @divide_subtract_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
divide_subtract_fusion_wrapped.exit:
  %1 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %2 = load ptr, ptr %1, align 8, !invariant.load !3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3, !dereferenceable !4
  %4 = getelementptr inbounds nuw i8, ptr %2, i64 16
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds nuw i8, ptr %2, i64 32
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !5
  %8 = getelementptr inbounds nuw i8, ptr %2, i64 48
  %9 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !4
  %10 = getelementptr inbounds nuw i8, ptr %2, i64 64
  %11 = load ptr, ptr %10, align 8, !invariant.load !3, !dereferenceable !5
  %12 = getelementptr inbounds nuw i8, ptr %2, i64 80
  %13 = load ptr, ptr %12, align 8, !invariant.load !3, !dereferenceable !4
  tail call void @llvm.experimental.noalias.scope.decl(metadata !6)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !9)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !11)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !13)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !15)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !17)
  %14 = load float, ptr %7, align 4, !invariant.load !3, !alias.scope !11, !noalias !19
  %15 = load float, ptr %11, align 4, !invariant.load !3, !alias.scope !15, !noalias !20
  %16 = load float, ptr %5, align 4, !invariant.load !3, !alias.scope !9, !noalias !21
  %17 = load float, ptr %9, align 4, !invariant.load !3, !alias.scope !13, !noalias !22
  %18 = fmul float %14, %16
  %19 = fmul float %15, %17
  %20 = tail call float @llvm.sqrt.f32(float %18)
  %21 = fmul float %19, 1.000000e-03
  %22 = fadd float %20, f0x322BCC77
  %23 = load float, ptr %3, align 4, !invariant.load !3, !alias.scope !6, !noalias !23
  %24 = fdiv float %21, %22
  %25 = fsub float %23, %24
  store float %25, ptr %13, align 4, !alias.scope !17, !noalias !24
  %26 = getelementptr inbounds nuw i8, ptr %5, i64 4
  %27 = load float, ptr %26, align 4, !invariant.load !3, !alias.scope !9, !noalias !21
  %28 = getelementptr inbounds nuw i8, ptr %9, i64 4
  %29 = load float, ptr %28, align 4, !invariant.load !3, !alias.scope !13, !noalias !22
  %30 = fmul float %14, %27
  %31 = fmul float %15, %29
  %32 = tail call float @llvm.sqrt.f32(float %30)
  %33 = fmul float %31, 1.000000e-03
  %34 = fadd float %32, f0x322BCC77
  %35 = getelementptr inbounds nuw i8, ptr %3, i64 4
  %36 = load float, ptr %35, align 4, !invariant.load !3, !alias.scope !6, !noalias !23
  %37 = fdiv float %33, %34
  %38 = fsub float %36, %37
  %39 = getelementptr inbounds nuw i8, ptr %13, i64 4
  store float %38, ptr %39, align 4, !alias.scope !17, !noalias !24
  %40 = getelementptr inbounds nuw i8, ptr %5, i64 8
  %41 = load float, ptr %40, align 4, !invariant.load !3, !alias.scope !9, !noalias !21
  %42 = getelementptr inbounds nuw i8, ptr %9, i64 8
  %43 = load float, ptr %42, align 4, !invariant.load !3, !alias.scope !13, !noalias !22
  %44 = fmul float %14, %41
  %45 = fmul float %15, %43
  %46 = tail call float @llvm.sqrt.f32(float %44)
  %47 = fmul float %45, 1.000000e-03
  %48 = fadd float %46, f0x322BCC77
  %49 = getelementptr inbounds nuw i8, ptr %3, i64 8
  %50 = load float, ptr %49, align 4, !invariant.load !3, !alias.scope !6, !noalias !23
  %51 = fdiv float %47, %48
  %52 = fsub float %50, %51
  %53 = getelementptr inbounds nuw i8, ptr %13, i64 8
  store float %52, ptr %53, align 4, !alias.scope !17, !noalias !24
  %54 = getelementptr inbounds nuw i8, ptr %5, i64 12
  %55 = load float, ptr %54, align 4, !invariant.load !3, !alias.scope !9, !noalias !21
  %56 = getelementptr inbounds nuw i8, ptr %9, i64 12
  %57 = load float, ptr %56, align 4, !invariant.load !3, !alias.scope !13, !noalias !22
  %58 = fmul float %14, %55
  %59 = fmul float %15, %57
  %60 = tail call float @llvm.sqrt.f32(float %58)
  %61 = fmul float %59, 1.000000e-03
  %62 = fadd float %60, f0x322BCC77
  %63 = getelementptr inbounds nuw i8, ptr %3, i64 12
  %64 = load float, ptr %63, align 4, !invariant.load !3, !alias.scope !6, !noalias !23
  %65 = fdiv float %61, %62
  %66 = fsub float %64, %65
  %67 = getelementptr inbounds nuw i8, ptr %13, i64 12
  store float %66, ptr %67, align 4, !alias.scope !17, !noalias !24
  %68 = getelementptr inbounds nuw i8, ptr %5, i64 16
  %69 = load float, ptr %68, align 4, !invariant.load !3, !alias.scope !9, !noalias !21
  %70 = getelementptr inbounds nuw i8, ptr %9, i64 16
  %71 = load float, ptr %70, align 4, !invariant.load !3, !alias.scope !13, !noalias !22
  %72 = fmul float %14, %69
  %73 = fmul float %15, %71
  %74 = tail call float @llvm.sqrt.f32(float %72)
  %75 = fmul float %73, 1.000000e-03
  %76 = fadd float %74, f0x322BCC77
  %77 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %78 = load float, ptr %77, align 4, !invariant.load !3, !alias.scope !6, !noalias !23
  %79 = fdiv float %75, %76
  %80 = fsub float %78, %79
  %81 = getelementptr inbounds nuw i8, ptr %13, i64 16
  store float %80, ptr %81, align 4, !alias.scope !17, !noalias !24
  %82 = getelementptr inbounds nuw i8, ptr %5, i64 20
  %83 = load float, ptr %82, align 4, !invariant.load !3, !alias.scope !9, !noalias !21
  %84 = getelementptr inbounds nuw i8, ptr %9, i64 20
  %85 = load float, ptr %84, align 4, !invariant.load !3, !alias.scope !13, !noalias !22
  %86 = fmul float %14, %83
  %87 = fmul float %15, %85
  %88 = tail call float @llvm.sqrt.f32(float %86)
  %89 = fmul float %87, 1.000000e-03
  %90 = fadd float %88, f0x322BCC77
  %91 = getelementptr inbounds nuw i8, ptr %3, i64 20
  %92 = load float, ptr %91, align 4, !invariant.load !3, !alias.scope !6, !noalias !23
  %93 = fdiv float %89, %90
  %94 = fsub float %92, %93
  %95 = getelementptr inbounds nuw i8, ptr %13, i64 20
  store float %94, ptr %95, align 4, !alias.scope !17, !noalias !24
  %96 = getelementptr inbounds nuw i8, ptr %5, i64 24
  %97 = load float, ptr %96, align 4, !invariant.load !3, !alias.scope !9, !noalias !21
  %98 = getelementptr inbounds nuw i8, ptr %9, i64 24
  %99 = load float, ptr %98, align 4, !invariant.load !3, !alias.scope !13, !noalias !22
  %100 = fmul float %14, %97
  %101 = fmul float %15, %99
  %102 = tail call float @llvm.sqrt.f32(float %100)
  %103 = fmul float %101, 1.000000e-03
  %104 = fadd float %102, f0x322BCC77
  %105 = getelementptr inbounds nuw i8, ptr %3, i64 24
  %106 = load float, ptr %105, align 4, !invariant.load !3, !alias.scope !6, !noalias !23
  %107 = fdiv float %103, %104
  %108 = fsub float %106, %107
  %109 = getelementptr inbounds nuw i8, ptr %13, i64 24
  store float %108, ptr %109, align 4, !alias.scope !17, !noalias !24
  %110 = getelementptr inbounds nuw i8, ptr %5, i64 28
  %111 = load float, ptr %110, align 4, !invariant.load !3, !alias.scope !9, !noalias !21
  %112 = getelementptr inbounds nuw i8, ptr %9, i64 28
  %113 = load float, ptr %112, align 4, !invariant.load !3, !alias.scope !13, !noalias !22
  %114 = fmul float %14, %111
  %115 = fmul float %15, %113
  %116 = tail call float @llvm.sqrt.f32(float %114)
  %117 = fmul float %115, 1.000000e-03
  %118 = fadd float %116, f0x322BCC77
  %119 = getelementptr inbounds nuw i8, ptr %3, i64 28
  %120 = load float, ptr %119, align 4, !invariant.load !3, !alias.scope !6, !noalias !23
  %121 = fdiv float %117, %118
  %122 = fsub float %120, %121
  %123 = getelementptr inbounds nuw i8, ptr %13, i64 28
  store float %122, ptr %123, align 4, !alias.scope !17, !noalias !24
  %124 = getelementptr inbounds nuw i8, ptr %5, i64 32
  %125 = load float, ptr %124, align 4, !invariant.load !3, !alias.scope !9, !noalias !21
  %126 = getelementptr inbounds nuw i8, ptr %9, i64 32
  %127 = load float, ptr %126, align 4, !invariant.load !3, !alias.scope !13, !noalias !22
  %128 = fmul float %14, %125
  %129 = fmul float %15, %127
  %130 = tail call float @llvm.sqrt.f32(float %128)
  %131 = fmul float %129, 1.000000e-03
  %132 = fadd float %130, f0x322BCC77
  %133 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %134 = load float, ptr %133, align 4, !invariant.load !3, !alias.scope !6, !noalias !23
  %135 = fdiv float %131, %132
  %136 = fsub float %134, %135
  %137 = getelementptr inbounds nuw i8, ptr %13, i64 32
  store float %136, ptr %137, align 4, !alias.scope !17, !noalias !24
  %138 = getelementptr inbounds nuw i8, ptr %5, i64 36
  %139 = load float, ptr %138, align 4, !invariant.load !3, !alias.scope !9, !noalias !21
  %140 = getelementptr inbounds nuw i8, ptr %9, i64 36
  %141 = load float, ptr %140, align 4, !invariant.load !3, !alias.scope !13, !noalias !22
  %142 = fmul float %14, %139
  %143 = fmul float %15, %141
  %144 = tail call float @llvm.sqrt.f32(float %142)
  %145 = fmul float %143, 1.000000e-03
  %146 = fadd float %144, f0x322BCC77
  %147 = getelementptr inbounds nuw i8, ptr %3, i64 36
  %148 = load float, ptr %147, align 4, !invariant.load !3, !alias.scope !6, !noalias !23
  %149 = fdiv float %145, %146
  %150 = fsub float %148, %149
  %151 = getelementptr inbounds nuw i8, ptr %13, i64 36
  store float %150, ptr %151, align 4, !alias.scope !17, !noalias !24
  ret ptr null
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.sqrt.f32(float) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #2

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 1}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 40}
!5 = !{i64 4}
!6 = !{!7}
!7 = distinct !{!7, !8, !"divide_subtract_fusion_wrapped: argument 0"}
!8 = distinct !{!8, !"divide_subtract_fusion_wrapped"}
!9 = !{!10}
!10 = distinct !{!10, !8, !"divide_subtract_fusion_wrapped: argument 1"}
!11 = !{!12}
!12 = distinct !{!12, !8, !"divide_subtract_fusion_wrapped: argument 2"}
!13 = !{!14}
!14 = distinct !{!14, !8, !"divide_subtract_fusion_wrapped: argument 3"}
!15 = !{!16}
!16 = distinct !{!16, !8, !"divide_subtract_fusion_wrapped: argument 4"}
!17 = !{!18}
!18 = distinct !{!18, !8, !"divide_subtract_fusion_wrapped: argument 5"}
!19 = !{!7, !10, !14, !16, !18}
!20 = !{!7, !10, !12, !14, !18}
!21 = !{!7, !12, !14, !16, !18}
!22 = !{!7, !10, !12, !16, !18}
!23 = !{!10, !12, !14, !16, !18}
!24 = !{!7, !10, !12, !14, !16}
