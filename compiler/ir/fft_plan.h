// Fourier transforms as XLA's GPU runtime hands them to cuFFT: one batched plan of the
// `fft` op's 1 to 3 trailing dimensions (cufftMakePlanMany64 with the operand's and the
// result's trailing dimensions as the embeddings, unit strides, the leading dimensions
// as the batch), executed out of place, then, for IFFT and IRFFT, a BLAS scal of the
// whole result by 1/N, since cuFFT's inverse transforms are unnormalized (XLA's FFT
// thunk does exactly this: cuFFT's kernels and a cuBLAS scal kernel under one
// instruction). cuFFT's complex-to-real transforms overwrite their input, so the runtime
// hands them a copy (`copies_input`).
//
// RunFftPlanOnHost runs a plan on the host as cuFFT and the scal define it, in double
// precision, on the row-major buffers the GPU runtime would pass (its layouts are
// normalized): the GPU emulator runs `fft` ops with it, and the plan's tests hold it
// against the interpreter, so a wrong batch, embedding, direction or scale shows without
// a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/instruction.h"
#include "compiler/support/status.h"

namespace fusebox {

// cufftType's transforms (and their values in cufft.h).
enum class FftPlanType : int {
  kR2C = 0x2a,
  kC2R = 0x2c,
  kC2C = 0x29,
  kD2Z = 0x6a,
  kZ2D = 0x6c,
  kZ2Z = 0x69,
};
std::string_view FftPlanTypeName(FftPlanType type);  // "C2C"

struct FftPlan {
  FftPlanType type = FftPlanType::kC2C;
  bool inverse = false;  // CUFFT_INVERSE (IFFT; IRFFT's C2R/Z2D are inverse by type)
  bool f64 = false;      // Z2Z, D2Z, Z2D
  // cufftMakePlanMany64's arguments: the transform's lengths (fft_length), the trailing
  // dimensions of the operand and of the result as stored (RFFT's result and IRFFT's
  // operand keep n/2 + 1 of the last), elements between transforms, and the batch (the
  // product of the leading dimensions). Strides are 1.
  std::vector<int64_t> lengths;
  std::vector<int64_t> input_embed, output_embed;
  int64_t input_distance = 1, output_distance = 1;
  int64_t batch = 1;
  // An empty operand or result: nothing to run.
  bool empty = false;
  // The scal after the transform: 1/N (N the product of `lengths`) for IFFT and IRFFT, 1
  // (no scal) for FFT and RFFT; over `output_elements` elements (complex for IFFT, real
  // for IRFFT).
  double scale = 1;
  int64_t output_elements = 0;
  // C2R and Z2D overwrite their input: the runtime transforms a copy of the operand.
  bool copies_input = false;
  int64_t input_bytes = 0, output_bytes = 0;
  int64_t flops = 0;  // 5 N log2 N per transform, as the kernels' estimate

  // "cufftExecC2C inverse n=64x64 batch=8, cublasCsscal 1/4096"
  std::string ToString() const;
  // cuFFT's exec routine ("cufftExecC2C") and the scal after it ("cublasCsscal"; empty
  // when there is none).
  std::string ExecName() const;
  std::string ScalName() const;
};

// The plan of an `fft` instruction (FFT, IFFT, RFFT, IRFFT of c64/c128, f32/f64 for the
// real transforms, over 1 to 3 trailing dimensions); an error naming the instruction when
// its shapes do not fit its fft_length or its types are not cuFFT's.
StatusOr<FftPlan> PlanFft(const Instruction& fft);

// The plan run on the host as cuFFT and the scal define it: `input` and `output` are the
// operand's and the result's row-major buffers. The input is not written.
Status RunFftPlanOnHost(const FftPlan& plan, const void* input, void* output);

}  // namespace fusebox
