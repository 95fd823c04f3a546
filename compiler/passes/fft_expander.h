// Fourier transforms as dots: the "fft-expander" pass.
#pragma once

#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Replaces every `fft` (FFT, IFFT, RFFT, IRFFT over one to three trailing dimensions, c64
// and c128) by plain HLO the backends compile: the complex values as pairs of reals in a
// trailing dimension of two, and each transformed dimension as
//
//   length <= 32 (or a prime <= 128): one dot with the DFT's matrix, written as a real
//     [n, 2, n, 2] constant so that one real dot does the complex product;
//   n = n1 * n2 (n1 the largest factor <= sqrt(n)): Cooley-Tukey's four steps, each
//     factor transformed as above, the twiddles exp(+-2 pi i t2 k1 / n) multiplied in
//     between and the two output indices swapped;
//   a longer prime: Bluestein's chirp: the transform becomes a circular convolution of
//     power-of-two length, computed with the transforms above.
//
// The constants are computed in double and rounded once; the dots are at HIGHEST
// precision (no TF32 on the GPU). IFFT and IRFFT scale by 1/N at the end; RFFT keeps the
// first n/2+1 outputs of the last dimension; IRFFT fills the last dimension's upper half
// by Hermitian symmetry after the inverse transforms of the others (as pocketfft and the
// interpreter do) and keeps the real part. XLA calls a library for these (ducc on the CPU,
// cuFFT on the GPU): the values are the transform's, the kernels are not XLA's.
//
// A transformed dimension longer than 2^20 is an error naming the instruction (its
// twiddle tables would be constants of tens of megabytes).
class FftExpander : public Pass {
 public:
  std::string_view name() const override { return "fft-expander"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

}  // namespace fusebox::passes
