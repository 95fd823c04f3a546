; ModuleID = '__compute_module_concatenate_bitcast_fusion_kernel_module'
source_filename = "__compute_module_concatenate_bitcast_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @concatenate_bitcast_fusion(ptr %0) #0 {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !4
  %8 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 2, i32 0
  %9 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !4
  %10 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 3, i32 0
  %11 = load ptr, ptr %10, align 8, !invariant.load !3, !dereferenceable !4
  %12 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 4, i32 0
  %13 = load ptr, ptr %12, align 8, !invariant.load !3, !dereferenceable !5
  %14 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %15 = load ptr, ptr %14, align 8
  %16 = getelementptr inbounds %kernel_dim3, ptr %15, i32 0, i32 0
  %17 = load i64, ptr %16, align 4, !invariant.load !3
  %18 = getelementptr inbounds %kernel_dim3, ptr %15, i32 0, i32 1
  %19 = load i64, ptr %18, align 4, !invariant.load !3
  %20 = getelementptr inbounds %kernel_dim3, ptr %15, i32 0, i32 2
  %21 = load i64, ptr %20, align 4, !invariant.load !3
  call void @concatenate_bitcast_fusion_wrapped(ptr %5, ptr %7, ptr %9, ptr %11, ptr %13, i64 %17, i64 %19, i64 %21)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @concatenate_bitcast_fusion_wrapped(ptr noalias align 64 dereferenceable(262144) %0, ptr noalias align 64 dereferenceable(262144) %1, ptr noalias align 64 dereferenceable(262144) %2, ptr noalias align 64 dereferenceable(262144) %3, ptr noalias align 64 dereferenceable(1048576) %4, i64 %5, i64 %6, i64 %7) #1 {
  %9 = icmp sge i64 %5, 0
  %10 = icmp sle i64 %5, 1
  %11 = and i1 %9, %10
  br i1 %11, label %12, label %186

12:                                               ; preds = %8
  %13 = mul nsw i64 %5, 32768
  %14 = mul nsw i64 %5, 131072
  br label %15

15:                                               ; preds = %54, %12
  %16 = phi i64 [ %55, %54 ], [ 0, %12 ]
  %17 = icmp slt i64 %16, 16
  br i1 %17, label %18, label %56

18:                                               ; preds = %15
  %19 = mul nsw i64 %16, 2048
  %20 = add nsw i64 %13, %19
  %21 = mul nsw i64 %16, 8192
  %22 = add nsw i64 %14, %21
  br label %23

23:                                               ; preds = %52, %18
  %24 = phi i64 [ %53, %52 ], [ 0, %18 ]
  %25 = icmp slt i64 %24, 8
  br i1 %25, label %26, label %54

26:                                               ; preds = %23
  %27 = mul nsw i64 %24, 256
  %28 = add nsw i64 %20, %27
  %29 = mul nsw i64 %24, 1024
  %30 = add nsw i64 %22, %29
  br label %31

31:                                               ; preds = %50, %26
  %32 = phi i64 [ %51, %50 ], [ 0, %26 ]
  %33 = icmp slt i64 %32, 8
  br i1 %33, label %34, label %52

34:                                               ; preds = %31
  %35 = mul nsw i64 %32, 32
  %36 = add nsw i64 %28, %35
  %37 = mul nsw i64 %32, 128
  %38 = add nsw i64 %30, %37
  br label %39

39:                                               ; preds = %42, %34
  %40 = phi i64 [ %49, %42 ], [ 0, %34 ]
  %41 = icmp slt i64 %40, 32
  br i1 %41, label %42, label %50

42:                                               ; preds = %39
  %43 = add nsw i64 %36, %40
  %44 = getelementptr inbounds [65536 x i32], ptr %3, i32 0, i64 %43
  %45 = load i32, ptr %44, align 4, !invariant.load !3
  %46 = mul nsw i64 %40, 4
  %47 = add nsw i64 %38, %46
  %48 = getelementptr inbounds [262144 x i32], ptr %4, i32 0, i64 %47
  store i32 %45, ptr %48, align 4
  %49 = add i64 %40, 1
  br label %39

50:                                               ; preds = %39
  %51 = add i64 %32, 1
  br label %31, !llvm.loop !6

52:                                               ; preds = %31
  %53 = add i64 %24, 1
  br label %23, !llvm.loop !6

54:                                               ; preds = %23
  %55 = add i64 %16, 1
  br label %15, !llvm.loop !6

56:                                               ; preds = %15
  br label %57

57:                                               ; preds = %97, %56
  %58 = phi i64 [ %98, %97 ], [ 0, %56 ]
  %59 = icmp slt i64 %58, 16
  br i1 %59, label %60, label %99

60:                                               ; preds = %57
  %61 = mul nsw i64 %58, 2048
  %62 = add nsw i64 %13, %61
  %63 = mul nsw i64 %58, 8192
  %64 = add nsw i64 %14, %63
  br label %65

65:                                               ; preds = %95, %60
  %66 = phi i64 [ %96, %95 ], [ 0, %60 ]
  %67 = icmp slt i64 %66, 8
  br i1 %67, label %68, label %97

68:                                               ; preds = %65
  %69 = mul nsw i64 %66, 256
  %70 = add nsw i64 %62, %69
  %71 = mul nsw i64 %66, 1024
  %72 = add nsw i64 %64, %71
  br label %73

73:                                               ; preds = %93, %68
  %74 = phi i64 [ %94, %93 ], [ 0, %68 ]
  %75 = icmp slt i64 %74, 8
  br i1 %75, label %76, label %95

76:                                               ; preds = %73
  %77 = mul nsw i64 %74, 32
  %78 = add nsw i64 %70, %77
  %79 = mul nsw i64 %74, 128
  %80 = add nsw i64 %72, %79
  br label %81

81:                                               ; preds = %84, %76
  %82 = phi i64 [ %92, %84 ], [ 0, %76 ]
  %83 = icmp slt i64 %82, 32
  br i1 %83, label %84, label %93

84:                                               ; preds = %81
  %85 = add nsw i64 %78, %82
  %86 = getelementptr inbounds [65536 x i32], ptr %2, i32 0, i64 %85
  %87 = load i32, ptr %86, align 4, !invariant.load !3
  %88 = mul nsw i64 %82, 4
  %89 = add nsw i64 %80, %88
  %90 = add nsw i64 %89, 1
  %91 = getelementptr inbounds [262144 x i32], ptr %4, i32 0, i64 %90
  store i32 %87, ptr %91, align 4
  %92 = add i64 %82, 1
  br label %81

93:                                               ; preds = %81
  %94 = add i64 %74, 1
  br label %73, !llvm.loop !6

95:                                               ; preds = %73
  %96 = add i64 %66, 1
  br label %65, !llvm.loop !6

97:                                               ; preds = %65
  %98 = add i64 %58, 1
  br label %57, !llvm.loop !6

99:                                               ; preds = %57
  br label %100

100:                                              ; preds = %140, %99
  %101 = phi i64 [ %141, %140 ], [ 0, %99 ]
  %102 = icmp slt i64 %101, 16
  br i1 %102, label %103, label %142

103:                                              ; preds = %100
  %104 = mul nsw i64 %101, 2048
  %105 = add nsw i64 %13, %104
  %106 = mul nsw i64 %101, 8192
  %107 = add nsw i64 %14, %106
  br label %108

108:                                              ; preds = %138, %103
  %109 = phi i64 [ %139, %138 ], [ 0, %103 ]
  %110 = icmp slt i64 %109, 8
  br i1 %110, label %111, label %140

111:                                              ; preds = %108
  %112 = mul nsw i64 %109, 256
  %113 = add nsw i64 %105, %112
  %114 = mul nsw i64 %109, 1024
  %115 = add nsw i64 %107, %114
  br label %116

116:                                              ; preds = %136, %111
  %117 = phi i64 [ %137, %136 ], [ 0, %111 ]
  %118 = icmp slt i64 %117, 8
  br i1 %118, label %119, label %138

119:                                              ; preds = %116
  %120 = mul nsw i64 %117, 32
  %121 = add nsw i64 %113, %120
  %122 = mul nsw i64 %117, 128
  %123 = add nsw i64 %115, %122
  br label %124

124:                                              ; preds = %127, %119
  %125 = phi i64 [ %135, %127 ], [ 0, %119 ]
  %126 = icmp slt i64 %125, 32
  br i1 %126, label %127, label %136

127:                                              ; preds = %124
  %128 = add nsw i64 %121, %125
  %129 = getelementptr inbounds [65536 x i32], ptr %1, i32 0, i64 %128
  %130 = load i32, ptr %129, align 4, !invariant.load !3
  %131 = mul nsw i64 %125, 4
  %132 = add nsw i64 %123, %131
  %133 = add nsw i64 %132, 2
  %134 = getelementptr inbounds [262144 x i32], ptr %4, i32 0, i64 %133
  store i32 %130, ptr %134, align 4
  %135 = add i64 %125, 1
  br label %124

136:                                              ; preds = %124
  %137 = add i64 %117, 1
  br label %116, !llvm.loop !6

138:                                              ; preds = %116
  %139 = add i64 %109, 1
  br label %108, !llvm.loop !6

140:                                              ; preds = %108
  %141 = add i64 %101, 1
  br label %100, !llvm.loop !6

142:                                              ; preds = %100
  br label %143

143:                                              ; preds = %183, %142
  %144 = phi i64 [ %184, %183 ], [ 0, %142 ]
  %145 = icmp slt i64 %144, 16
  br i1 %145, label %146, label %185

146:                                              ; preds = %143
  %147 = mul nsw i64 %144, 2048
  %148 = add nsw i64 %13, %147
  %149 = mul nsw i64 %144, 8192
  %150 = add nsw i64 %14, %149
  br label %151

151:                                              ; preds = %181, %146
  %152 = phi i64 [ %182, %181 ], [ 0, %146 ]
  %153 = icmp slt i64 %152, 8
  br i1 %153, label %154, label %183

154:                                              ; preds = %151
  %155 = mul nsw i64 %152, 256
  %156 = add nsw i64 %148, %155
  %157 = mul nsw i64 %152, 1024
  %158 = add nsw i64 %150, %157
  br label %159

159:                                              ; preds = %179, %154
  %160 = phi i64 [ %180, %179 ], [ 0, %154 ]
  %161 = icmp slt i64 %160, 8
  br i1 %161, label %162, label %181

162:                                              ; preds = %159
  %163 = mul nsw i64 %160, 32
  %164 = add nsw i64 %156, %163
  %165 = mul nsw i64 %160, 128
  %166 = add nsw i64 %158, %165
  br label %167

167:                                              ; preds = %170, %162
  %168 = phi i64 [ %178, %170 ], [ 0, %162 ]
  %169 = icmp slt i64 %168, 32
  br i1 %169, label %170, label %179

170:                                              ; preds = %167
  %171 = add nsw i64 %164, %168
  %172 = getelementptr inbounds [65536 x i32], ptr %0, i32 0, i64 %171
  %173 = load i32, ptr %172, align 4, !invariant.load !3
  %174 = mul nsw i64 %168, 4
  %175 = add nsw i64 %166, %174
  %176 = add nsw i64 %175, 3
  %177 = getelementptr inbounds [262144 x i32], ptr %4, i32 0, i64 %176
  store i32 %173, ptr %177, align 4
  %178 = add i64 %168, 1
  br label %167

179:                                              ; preds = %167
  %180 = add i64 %160, 1
  br label %159, !llvm.loop !6

181:                                              ; preds = %159
  %182 = add i64 %152, 1
  br label %151, !llvm.loop !6

183:                                              ; preds = %151
  %184 = add i64 %144, 1
  br label %143, !llvm.loop !6

185:                                              ; preds = %143
  br label %186

186:                                              ; preds = %185, %8
  ret void
}

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 9}
!2 = !{!"xla_cpu_emitter__concatenate_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 262144}
!5 = !{i64 1048576}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.unroll.disable"}
