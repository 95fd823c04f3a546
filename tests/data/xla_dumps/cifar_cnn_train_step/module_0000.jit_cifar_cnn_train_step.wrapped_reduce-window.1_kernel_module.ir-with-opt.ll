; ModuleID = '__compute_module_wrapped_reduce-window.1_kernel_module'
source_filename = "__compute_module_wrapped_reduce-window.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @wrapped_reduce-window.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !4
  %7 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %8 = load ptr, ptr %7, align 8, !invariant.load !3, !dereferenceable !4
  %9 = getelementptr inbounds nuw i8, ptr %3, i64 48
  %10 = load ptr, ptr %9, align 8, !invariant.load !3, !dereferenceable !4
  %11 = getelementptr inbounds nuw i8, ptr %3, i64 64
  %12 = load ptr, ptr %11, align 8, !invariant.load !3, !dereferenceable !4
  %13 = getelementptr inbounds nuw i8, ptr %3, i64 112
  %14 = load ptr, ptr %13, align 8, !invariant.load !3, !dereferenceable !5
  %15 = getelementptr inbounds nuw i8, ptr %3, i64 128
  %16 = load ptr, ptr %15, align 8, !invariant.load !3, !dereferenceable !5
  %17 = getelementptr inbounds nuw i8, ptr %3, i64 144
  %18 = load ptr, ptr %17, align 8, !invariant.load !3, !dereferenceable !5
  %19 = getelementptr inbounds nuw i8, ptr %3, i64 160
  %20 = load ptr, ptr %19, align 8, !invariant.load !3, !dereferenceable !5
  %21 = getelementptr inbounds nuw i8, ptr %3, i64 176
  %22 = load ptr, ptr %21, align 8, !invariant.load !3, !dereferenceable !5
  %23 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %24 = load ptr, ptr %23, align 8
  %25 = load i64, ptr %24, align 4, !invariant.load !3
  tail call void @llvm.experimental.noalias.scope.decl(metadata !6)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !9)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !11)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !13)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !15)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !17)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !19)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !21)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !23)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !25)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !27)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !29)
  %26 = icmp ult i64 %25, 2
  br i1 %26, label %27, label %wrapped_reduce-window.1_wrapped.exit

27:                                               ; preds = %1
  %28 = getelementptr inbounds nuw i8, ptr %3, i64 96
  %29 = load ptr, ptr %28, align 8, !invariant.load !3, !dereferenceable !31
  %30 = getelementptr inbounds nuw i8, ptr %3, i64 80
  %31 = load ptr, ptr %30, align 8, !invariant.load !3, !dereferenceable !31
  %32 = load float, ptr %31, align 4, !invariant.load !3, !alias.scope !17, !noalias !32
  %33 = load i32, ptr %29, align 4, !invariant.load !3, !alias.scope !19, !noalias !33
  %34 = shl nuw nsw i64 %25, 17
  %35 = shl nuw nsw i64 %25, 15
  br label %36

36:                                               ; preds = %27, %115
  %37 = phi i64 [ 0, %27 ], [ %116, %115 ]
  %38 = shl nuw nsw i64 %37, 13
  %39 = add nuw nsw i64 %38, %34
  %40 = shl nuw nsw i64 %37, 11
  %41 = add nuw nsw i64 %40, %35
  br label %42

42:                                               ; preds = %36, %113
  %43 = phi i64 [ 0, %36 ], [ %114, %113 ]
  %44 = shl nuw nsw i64 %43, 10
  %45 = add nuw nsw i64 %44, %39
  %46 = shl nuw nsw i64 %43, 8
  %47 = add nuw nsw i64 %46, %41
  br label %48

48:                                               ; preds = %42, %111
  %49 = phi i64 [ 0, %42 ], [ %112, %111 ]
  %50 = shl nuw nsw i64 %49, 6
  %51 = add nuw nsw i64 %50, %45
  %52 = shl nuw nsw i64 %49, 5
  %53 = add nuw nsw i64 %52, %47
  br label %.preheader

.preheader:                                       ; preds = %48, %103
  %54 = phi i64 [ 0, %48 ], [ %110, %103 ]
  %invariant.op = or i64 %54, 32
  br label %55

55:                                               ; preds = %.preheader, %55
  %56 = phi i32 [ %33, %.preheader ], [ %102, %55 ]
  %57 = phi i32 [ %33, %.preheader ], [ %101, %55 ]
  %58 = phi i32 [ %33, %.preheader ], [ %100, %55 ]
  %59 = phi i32 [ %33, %.preheader ], [ %99, %55 ]
  %60 = phi float [ %32, %.preheader ], [ %98, %55 ]
  %61 = phi i1 [ true, %.preheader ], [ false, %55 ]
  %62 = phi i64 [ 0, %.preheader ], [ 512, %55 ]
  %63 = add nuw nsw i64 %62, %51
  %64 = or i64 %63, %54
  %65 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %64
  %66 = load float, ptr %65, align 4, !invariant.load !3, !alias.scope !6, !noalias !34
  %67 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %64
  %68 = load i32, ptr %67, align 4, !invariant.load !3, !alias.scope !9, !noalias !35
  %69 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %64
  %70 = load i32, ptr %69, align 4, !invariant.load !3, !alias.scope !11, !noalias !36
  %71 = getelementptr inbounds nuw [4 x i8], ptr %10, i64 %64
  %72 = load i32, ptr %71, align 4, !invariant.load !3, !alias.scope !13, !noalias !37
  %73 = getelementptr inbounds nuw [4 x i8], ptr %12, i64 %64
  %74 = load i32, ptr %73, align 4, !invariant.load !3, !alias.scope !15, !noalias !38
  %75 = fcmp reassoc oge float %60, %66
  %76 = icmp ne i32 %59, -1
  %.not = icmp eq i32 %68, -1
  %77 = and i1 %76, %75
  %78 = or i1 %77, %.not
  %79 = select i1 %78, float %60, float %66
  %80 = select i1 %78, i32 %59, i32 %68
  %81 = select i1 %78, i32 %58, i32 %70
  %82 = select i1 %78, i32 %57, i32 %72
  %83 = select i1 %78, i32 %56, i32 %74
  %.reass = or i64 %63, %invariant.op
  %84 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %.reass
  %85 = load float, ptr %84, align 4, !invariant.load !3, !alias.scope !6, !noalias !34
  %86 = getelementptr inbounds nuw [4 x i8], ptr %6, i64 %.reass
  %87 = load i32, ptr %86, align 4, !invariant.load !3, !alias.scope !9, !noalias !35
  %88 = getelementptr inbounds nuw [4 x i8], ptr %8, i64 %.reass
  %89 = load i32, ptr %88, align 4, !invariant.load !3, !alias.scope !11, !noalias !36
  %90 = getelementptr inbounds nuw [4 x i8], ptr %10, i64 %.reass
  %91 = load i32, ptr %90, align 4, !invariant.load !3, !alias.scope !13, !noalias !37
  %92 = getelementptr inbounds nuw [4 x i8], ptr %12, i64 %.reass
  %93 = load i32, ptr %92, align 4, !invariant.load !3, !alias.scope !15, !noalias !38
  %94 = fcmp reassoc oge float %79, %85
  %95 = icmp ne i32 %80, -1
  %.not.1 = icmp eq i32 %87, -1
  %96 = and i1 %95, %94
  %97 = or i1 %96, %.not.1
  %98 = select i1 %97, float %79, float %85
  %99 = select i1 %97, i32 %80, i32 %87
  %100 = select i1 %97, i32 %81, i32 %89
  %101 = select i1 %97, i32 %82, i32 %91
  %102 = select i1 %97, i32 %83, i32 %93
  br i1 %61, label %55, label %103, !llvm.loop !39

103:                                              ; preds = %55
  %104 = add nuw nsw i64 %54, %53
  %105 = getelementptr inbounds nuw [4 x i8], ptr %14, i64 %104
  store float %98, ptr %105, align 4, !alias.scope !21, !noalias !41
  %106 = getelementptr inbounds nuw [4 x i8], ptr %16, i64 %104
  store i32 %99, ptr %106, align 4, !alias.scope !23, !noalias !42
  %107 = getelementptr inbounds nuw [4 x i8], ptr %18, i64 %104
  store i32 %100, ptr %107, align 4, !alias.scope !25, !noalias !43
  %108 = getelementptr inbounds nuw [4 x i8], ptr %20, i64 %104
  store i32 %101, ptr %108, align 4, !alias.scope !27, !noalias !44
  %109 = getelementptr inbounds nuw [4 x i8], ptr %22, i64 %104
  store i32 %102, ptr %109, align 4, !alias.scope !29, !noalias !45
  %110 = add nuw nsw i64 %54, 1
  %exitcond.not = icmp eq i64 %110, 32
  br i1 %exitcond.not, label %111, label %.preheader, !llvm.loop !39

111:                                              ; preds = %103
  %112 = add nuw nsw i64 %49, 1
  %exitcond20.not = icmp eq i64 %112, 8
  br i1 %exitcond20.not, label %113, label %48, !llvm.loop !39

113:                                              ; preds = %111
  %114 = add nuw nsw i64 %43, 1
  %exitcond21.not = icmp eq i64 %114, 8
  br i1 %exitcond21.not, label %115, label %42, !llvm.loop !39

115:                                              ; preds = %113
  %116 = add nuw nsw i64 %37, 1
  %exitcond22.not = icmp eq i64 %116, 16
  br i1 %exitcond22.not, label %wrapped_reduce-window.1_wrapped.exit, label %36, !llvm.loop !39

wrapped_reduce-window.1_wrapped.exit:             ; preds = %115, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 7}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 1048576}
!5 = !{i64 262144}
!6 = !{!7}
!7 = distinct !{!7, !8, !"wrapped_reduce-window.1_wrapped: argument 0"}
!8 = distinct !{!8, !"wrapped_reduce-window.1_wrapped"}
!9 = !{!10}
!10 = distinct !{!10, !8, !"wrapped_reduce-window.1_wrapped: argument 1"}
!11 = !{!12}
!12 = distinct !{!12, !8, !"wrapped_reduce-window.1_wrapped: argument 2"}
!13 = !{!14}
!14 = distinct !{!14, !8, !"wrapped_reduce-window.1_wrapped: argument 3"}
!15 = !{!16}
!16 = distinct !{!16, !8, !"wrapped_reduce-window.1_wrapped: argument 4"}
!17 = !{!18}
!18 = distinct !{!18, !8, !"wrapped_reduce-window.1_wrapped: argument 5"}
!19 = !{!20}
!20 = distinct !{!20, !8, !"wrapped_reduce-window.1_wrapped: argument 6"}
!21 = !{!22}
!22 = distinct !{!22, !8, !"wrapped_reduce-window.1_wrapped: argument 7"}
!23 = !{!24}
!24 = distinct !{!24, !8, !"wrapped_reduce-window.1_wrapped: argument 8"}
!25 = !{!26}
!26 = distinct !{!26, !8, !"wrapped_reduce-window.1_wrapped: argument 9"}
!27 = !{!28}
!28 = distinct !{!28, !8, !"wrapped_reduce-window.1_wrapped: argument 10"}
!29 = !{!30}
!30 = distinct !{!30, !8, !"wrapped_reduce-window.1_wrapped: argument 11"}
!31 = !{i64 4}
!32 = !{!7, !10, !12, !14, !16, !20, !22, !24, !26, !28, !30}
!33 = !{!7, !10, !12, !14, !16, !18, !22, !24, !26, !28, !30}
!34 = !{!10, !12, !14, !16, !18, !20, !22, !24, !26, !28, !30}
!35 = !{!7, !12, !14, !16, !18, !20, !22, !24, !26, !28, !30}
!36 = !{!7, !10, !14, !16, !18, !20, !22, !24, !26, !28, !30}
!37 = !{!7, !10, !12, !16, !18, !20, !22, !24, !26, !28, !30}
!38 = !{!7, !10, !12, !14, !18, !20, !22, !24, !26, !28, !30}
!39 = distinct !{!39, !40}
!40 = !{!"llvm.loop.unroll.disable"}
!41 = !{!7, !10, !12, !14, !16, !18, !20, !24, !26, !28, !30}
!42 = !{!7, !10, !12, !14, !16, !18, !20, !22, !26, !28, !30}
!43 = !{!7, !10, !12, !14, !16, !18, !20, !22, !24, !28, !30}
!44 = !{!7, !10, !12, !14, !16, !18, !20, !22, !24, !26, !30}
!45 = !{!7, !10, !12, !14, !16, !18, !20, !22, !24, !26, !28}
