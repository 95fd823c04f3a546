; ModuleID = '__compute_module___compute_module_wrapped_log'
source_filename = "__compute_module___compute_module_wrapped_log"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind
define noalias noundef ptr @wrapped_log(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  %.not.not = icmp slt i64 %9, 1
  br i1 %.not.not, label %.lr.ph, label %._crit_edge

.lr.ph:                                           ; preds = %1, %.lr.ph
  %10 = phi i64 [ %48, %.lr.ph ], [ 0, %1 ]
  %savedstack = tail call ptr @llvm.stacksave.p0()
  %11 = shl nuw nsw i64 %10, 4
  %12 = getelementptr [4 x i8], ptr %4, i64 %11
  %.sroa.0.0.copyload = load <8 x float>, ptr %12, align 1
  %.sroa.4.0..sroa_idx = getelementptr inbounds nuw i8, ptr %12, i64 32
  %.sroa.4.0.copyload = load <8 x float>, ptr %.sroa.4.0..sroa_idx, align 1
  %13 = alloca [16 x float], align 64
  %log_f32.i = fcmp ule <8 x float> %.sroa.0.0.copyload, zeroinitializer
  %log_f321.i = sext <8 x i1> %log_f32.i to <8 x i32>
  %log_f322.i = bitcast <8 x i32> %log_f321.i to <8 x float>
  %log_f323.i = fcmp oeq <8 x float> %.sroa.0.0.copyload, zeroinitializer
  %log_f324.i = sext <8 x i1> %log_f323.i to <8 x i32>
  %log_f325.i = bitcast <8 x i32> %log_f324.i to <8 x float>
  %log_f326.i = fcmp oeq <8 x float> %.sroa.0.0.copyload, splat (float +inf)
  %log_f327.i = sext <8 x i1> %log_f326.i to <8 x i32>
  %log_f328.i = bitcast <8 x i32> %log_f327.i to <8 x float>
  %14 = fcmp uge <8 x float> splat (float f0x00800000), %.sroa.0.0.copyload
  %15 = select <8 x i1> %14, <8 x float> splat (float f0x00800000), <8 x float> %.sroa.0.0.copyload
  %16 = bitcast <8 x float> %15 to <8 x i32>
  %17 = lshr <8 x i32> %16, splat (i32 23)
  %log_f329.i = bitcast <8 x float> %15 to <8 x i32>
  %log_f3210.i = and <8 x i32> %log_f329.i, splat (i32 -2139095041)
  %18 = bitcast <8 x i32> %log_f3210.i to <8 x float>
  %log_f3212.i = or <8 x i32> %log_f3210.i, splat (i32 1056964608)
  %log_f3213.i = bitcast <8 x i32> %log_f3212.i to <8 x float>
  %19 = sub <8 x i32> %17, splat (i32 127)
  %20 = sitofp <8 x i32> %19 to <8 x float>
  %log_f3214.i = fadd <8 x float> splat (float 1.000000e+00), %20
  %log_f3215.i = fcmp olt <8 x float> %log_f3213.i, splat (float f0x3F3504F3)
  %log_f3216.i = sext <8 x i1> %log_f3215.i to <8 x i32>
  %log_f3217.i = bitcast <8 x i32> %log_f3216.i to <8 x float>
  %log_f3220.i = and <8 x i32> %log_f3212.i, %log_f3216.i
  %21 = bitcast <8 x i32> %log_f3220.i to <8 x float>
  %22 = fsub <8 x float> %log_f3213.i, splat (float 1.000000e+00)
  %log_f3222.i = and <8 x i32> %log_f3216.i, splat (i32 1065353216)
  %23 = bitcast <8 x i32> %log_f3222.i to <8 x float>
  %24 = fsub <8 x float> %log_f3214.i, %23
  %log_f3223.i = fadd <8 x float> %22, %21
  %log_f3224.i = fmul <8 x float> %log_f3223.i, %log_f3223.i
  %log_f3225.i = fmul <8 x float> %log_f3224.i, %log_f3223.i
  %log_f3226.i = fmul <8 x float> %log_f3223.i, splat (float f0x3D9021BB)
  %log_f3227.i = fadd <8 x float> splat (float f0xBDEBD1B8), %log_f3226.i
  %log_f3228.i = fmul <8 x float> %log_f3223.i, splat (float f0xBDFE5D4F)
  %log_f3229.i = fadd <8 x float> splat (float f0x3E11E9BF), %log_f3228.i
  %log_f3230.i = fmul <8 x float> %log_f3223.i, splat (float f0x3E4CCEAC)
  %log_f3231.i = fadd <8 x float> splat (float f0xBE7FFFFC), %log_f3230.i
  %log_f3232.i = fmul <8 x float> %log_f3227.i, %log_f3223.i
  %log_f3233.i = fadd <8 x float> splat (float f0x3DEF251A), %log_f3232.i
  %log_f3234.i = fmul <8 x float> %log_f3229.i, %log_f3223.i
  %log_f3235.i = fadd <8 x float> splat (float f0xBE2AAE50), %log_f3234.i
  %log_f3236.i = fmul <8 x float> %log_f3231.i, %log_f3223.i
  %log_f3237.i = fadd <8 x float> splat (float f0x3EAAAAAA), %log_f3236.i
  %log_f3238.i = fmul <8 x float> %log_f3233.i, %log_f3225.i
  %log_f3239.i = fadd <8 x float> %log_f3235.i, %log_f3238.i
  %log_f3240.i = fmul <8 x float> %log_f3239.i, %log_f3225.i
  %log_f3241.i = fadd <8 x float> %log_f3237.i, %log_f3240.i
  %log_f3242.i = fmul <8 x float> %log_f3241.i, %log_f3225.i
  %log_f3243.i = fmul <8 x float> splat (float f0xB95E8083), %24
  %log_f3244.i = fmul <8 x float> splat (float 5.000000e-01), %log_f3224.i
  %log_f3245.i = fadd <8 x float> %log_f3242.i, %log_f3243.i
  %25 = fsub <8 x float> %log_f3223.i, %log_f3244.i
  %log_f3246.i = fmul <8 x float> splat (float f0x3F318000), %24
  %log_f3247.i = fadd <8 x float> %25, %log_f3245.i
  %log_f3248.i = fadd <8 x float> %log_f3247.i, %log_f3246.i
  %log_f3250.i = and <8 x i32> %log_f324.i, splat (i32 -8388608)
  %26 = bitcast <8 x i32> %log_f3250.i to <8 x float>
  %log_f3252.i = and <8 x i32> %log_f327.i, splat (i32 2139095040)
  %27 = bitcast <8 x i32> %log_f3252.i to <8 x float>
  %log_f3255.i = or <8 x i32> %log_f3250.i, %log_f3252.i
  %log_f3256.i = bitcast <8 x i32> %log_f3255.i to <8 x float>
  %log_f3257.i = bitcast <8 x float> %log_f3248.i to <8 x i32>
  %log_f3259.i = or <8 x i32> %log_f3257.i, %log_f321.i
  %log_f3260.i = bitcast <8 x i32> %log_f3259.i to <8 x float>
  %log_f3263.i = or <8 x i32> %log_f324.i, %log_f327.i
  %log_f3264.i = bitcast <8 x i32> %log_f3263.i to <8 x float>
  %log_f3266.i = xor <8 x i32> %log_f3263.i, splat (i32 -1)
  %28 = bitcast <8 x i32> %log_f3266.i to <8 x float>
  %log_f3269.i = and <8 x i32> %log_f3266.i, %log_f3259.i
  %29 = bitcast <8 x i32> %log_f3269.i to <8 x float>
  %log_f3272.i = or <8 x i32> %log_f3255.i, %log_f3269.i
  %log_f3273.i = bitcast <8 x i32> %log_f3272.i to <8 x float>
  store <8 x float> %log_f3273.i, ptr %13, align 64
  %log_f32.i4 = fcmp ule <8 x float> %.sroa.4.0.copyload, zeroinitializer
  %log_f321.i5 = sext <8 x i1> %log_f32.i4 to <8 x i32>
  %log_f322.i6 = bitcast <8 x i32> %log_f321.i5 to <8 x float>
  %log_f323.i7 = fcmp oeq <8 x float> %.sroa.4.0.copyload, zeroinitializer
  %log_f324.i8 = sext <8 x i1> %log_f323.i7 to <8 x i32>
  %log_f325.i9 = bitcast <8 x i32> %log_f324.i8 to <8 x float>
  %log_f326.i10 = fcmp oeq <8 x float> %.sroa.4.0.copyload, splat (float +inf)
  %log_f327.i11 = sext <8 x i1> %log_f326.i10 to <8 x i32>
  %log_f328.i12 = bitcast <8 x i32> %log_f327.i11 to <8 x float>
  %30 = fcmp uge <8 x float> splat (float f0x00800000), %.sroa.4.0.copyload
  %31 = select <8 x i1> %30, <8 x float> splat (float f0x00800000), <8 x float> %.sroa.4.0.copyload
  %32 = bitcast <8 x float> %31 to <8 x i32>
  %33 = lshr <8 x i32> %32, splat (i32 23)
  %log_f329.i13 = bitcast <8 x float> %31 to <8 x i32>
  %log_f3210.i14 = and <8 x i32> %log_f329.i13, splat (i32 -2139095041)
  %34 = bitcast <8 x i32> %log_f3210.i14 to <8 x float>
  %log_f3212.i15 = or <8 x i32> %log_f3210.i14, splat (i32 1056964608)
  %log_f3213.i16 = bitcast <8 x i32> %log_f3212.i15 to <8 x float>
  %35 = sub <8 x i32> %33, splat (i32 127)
  %36 = sitofp <8 x i32> %35 to <8 x float>
  %log_f3214.i17 = fadd <8 x float> splat (float 1.000000e+00), %36
  %log_f3215.i18 = fcmp olt <8 x float> %log_f3213.i16, splat (float f0x3F3504F3)
  %log_f3216.i19 = sext <8 x i1> %log_f3215.i18 to <8 x i32>
  %log_f3217.i20 = bitcast <8 x i32> %log_f3216.i19 to <8 x float>
  %log_f3220.i21 = and <8 x i32> %log_f3212.i15, %log_f3216.i19
  %37 = bitcast <8 x i32> %log_f3220.i21 to <8 x float>
  %38 = fsub <8 x float> %log_f3213.i16, splat (float 1.000000e+00)
  %log_f3222.i22 = and <8 x i32> %log_f3216.i19, splat (i32 1065353216)
  %39 = bitcast <8 x i32> %log_f3222.i22 to <8 x float>
  %40 = fsub <8 x float> %log_f3214.i17, %39
  %log_f3223.i23 = fadd <8 x float> %38, %37
  %log_f3224.i24 = fmul <8 x float> %log_f3223.i23, %log_f3223.i23
  %log_f3225.i25 = fmul <8 x float> %log_f3224.i24, %log_f3223.i23
  %log_f3226.i26 = fmul <8 x float> %log_f3223.i23, splat (float f0x3D9021BB)
  %log_f3227.i27 = fadd <8 x float> splat (float f0xBDEBD1B8), %log_f3226.i26
  %log_f3228.i28 = fmul <8 x float> %log_f3223.i23, splat (float f0xBDFE5D4F)
  %log_f3229.i29 = fadd <8 x float> splat (float f0x3E11E9BF), %log_f3228.i28
  %log_f3230.i30 = fmul <8 x float> %log_f3223.i23, splat (float f0x3E4CCEAC)
  %log_f3231.i31 = fadd <8 x float> splat (float f0xBE7FFFFC), %log_f3230.i30
  %log_f3232.i32 = fmul <8 x float> %log_f3227.i27, %log_f3223.i23
  %log_f3233.i33 = fadd <8 x float> splat (float f0x3DEF251A), %log_f3232.i32
  %log_f3234.i34 = fmul <8 x float> %log_f3229.i29, %log_f3223.i23
  %log_f3235.i35 = fadd <8 x float> splat (float f0xBE2AAE50), %log_f3234.i34
  %log_f3236.i36 = fmul <8 x float> %log_f3231.i31, %log_f3223.i23
  %log_f3237.i37 = fadd <8 x float> splat (float f0x3EAAAAAA), %log_f3236.i36
  %log_f3238.i38 = fmul <8 x float> %log_f3233.i33, %log_f3225.i25
  %log_f3239.i39 = fadd <8 x float> %log_f3235.i35, %log_f3238.i38
  %log_f3240.i40 = fmul <8 x float> %log_f3239.i39, %log_f3225.i25
  %log_f3241.i41 = fadd <8 x float> %log_f3237.i37, %log_f3240.i40
  %log_f3242.i42 = fmul <8 x float> %log_f3241.i41, %log_f3225.i25
  %log_f3243.i43 = fmul <8 x float> splat (float f0xB95E8083), %40
  %log_f3244.i44 = fmul <8 x float> splat (float 5.000000e-01), %log_f3224.i24
  %log_f3245.i45 = fadd <8 x float> %log_f3242.i42, %log_f3243.i43
  %41 = fsub <8 x float> %log_f3223.i23, %log_f3244.i44
  %log_f3246.i46 = fmul <8 x float> splat (float f0x3F318000), %40
  %log_f3247.i47 = fadd <8 x float> %41, %log_f3245.i45
  %log_f3248.i48 = fadd <8 x float> %log_f3247.i47, %log_f3246.i46
  %log_f3250.i49 = and <8 x i32> %log_f324.i8, splat (i32 -8388608)
  %42 = bitcast <8 x i32> %log_f3250.i49 to <8 x float>
  %log_f3252.i50 = and <8 x i32> %log_f327.i11, splat (i32 2139095040)
  %43 = bitcast <8 x i32> %log_f3252.i50 to <8 x float>
  %log_f3255.i51 = or <8 x i32> %log_f3250.i49, %log_f3252.i50
  %log_f3256.i52 = bitcast <8 x i32> %log_f3255.i51 to <8 x float>
  %log_f3257.i53 = bitcast <8 x float> %log_f3248.i48 to <8 x i32>
  %log_f3259.i54 = or <8 x i32> %log_f3257.i53, %log_f321.i5
  %log_f3260.i55 = bitcast <8 x i32> %log_f3259.i54 to <8 x float>
  %log_f3263.i56 = or <8 x i32> %log_f324.i8, %log_f327.i11
  %log_f3264.i57 = bitcast <8 x i32> %log_f3263.i56 to <8 x float>
  %log_f3266.i58 = xor <8 x i32> %log_f3263.i56, splat (i32 -1)
  %44 = bitcast <8 x i32> %log_f3266.i58 to <8 x float>
  %log_f3269.i59 = and <8 x i32> %log_f3266.i58, %log_f3259.i54
  %45 = bitcast <8 x i32> %log_f3269.i59 to <8 x float>
  %log_f3272.i60 = or <8 x i32> %log_f3255.i51, %log_f3269.i59
  %log_f3273.i61 = bitcast <8 x i32> %log_f3272.i60 to <8 x float>
  %46 = getelementptr inbounds nuw i8, ptr %13, i64 32
  store <8 x float> %log_f3273.i61, ptr %46, align 32
  %47 = getelementptr [4 x i8], ptr %6, i64 %11
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %47, ptr noundef nonnull align 64 dereferenceable(64) %13, i64 64, i1 false)
  call void @llvm.stackrestore.p0(ptr %savedstack)
  %48 = add nuw nsw i64 %10, 1
  %exitcond.not = icmp eq i64 %48, 8
  br i1 %exitcond.not, label %._crit_edge, label %.lr.ph

._crit_edge:                                      ; preds = %.lr.ph, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare ptr @llvm.stacksave.p0() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare void @llvm.stackrestore.p0(ptr) #2

attributes #0 = { nofree norecurse nosync nounwind }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 15}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
