// Library kernels of the CPU runtime: dot, convolution, sort, topk, fft and rng-bit-generator, the ops better served by a
// well-kept library (Eigen's GEMM) than by loops the code generator emits. The runtime
// calls them with raw buffers; the reference interpreter is their oracle.
//
// Buffers are dense arrays laid out by their shapes' layouts (minor_to_major; a shape
// without a layout is row-major): a dot's or convolution's operands by the operand
// instructions' shapes, its result by the instruction's shape. Sub-byte types (s4, u2,
// f4e2m1fn, ...) take one byte per element, the value in its low bits; packed (E(4)),
// tiled, sparse and dynamic layouts are refused with an error, as is any element type a
// kernel does not cover. Nothing here crashes on bad input or throws.
//
// Numerics follow the interpreter (compiler/interpreter/ops_reduction_linalg.cc): operands
// are converted to the result element type first, then multiplied and accumulated in
// float for f32 and narrower floats (f16, bf16, f8: one rounding at the end, as XLA's CPU
// backend does), double for f64, complex<float>/complex<double> for c64/c128, and modulo
// 2^32 or 2^64 for integers and pred, so integer results wrap exactly as the
// interpreter's do. Only the order of float sums differs (Eigen blocks them).
//
// `threads` is a hint: the number of threads a call may use, itself included (0 or 1:
// the calling thread only). Scratch memory is allocated once per call, never per element.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/instruction.h"
#include "compiler/ir/literal.h"
#include "compiler/support/status.h"

namespace fusebox::runtime {

// --- threads -----------------------------------------------------------------------------
// Where the kernels' parallel loops run. Without one, a call with threads > 1 starts its
// own threads and joins them before it returns (about 20 us a thread on this project's
// machines, per call). The CPU executable lends its pool of workers for the duration of
// each library call with a ScopedParallelRunner, on the calling thread only: a loop
// inside a loop already on the runner starts threads as before, so no pool ever waits
// on itself.
class ParallelRunner {
 public:
  using Body = std::function<void(int64_t begin, int64_t end, int worker)>;
  virtual ~ParallelRunner() = default;
  // Calls body(w, w + 1, w) once for every w in [0, pieces), on up to `pieces` threads
  // (the caller's included), and returns when every call has returned. `body` does not
  // throw.
  virtual void Run(int64_t pieces, const Body& body) = 0;
};

class ScopedParallelRunner {
 public:
  explicit ScopedParallelRunner(ParallelRunner* runner);
  ~ScopedParallelRunner();
  ScopedParallelRunner(const ScopedParallelRunner&) = delete;
  ScopedParallelRunner& operator=(const ScopedParallelRunner&) = delete;

 private:
  ParallelRunner* previous_;
};

// --- dot ---------------------------------------------------------------------------------
// Any HLO dot: batch dimensions, several contracting dimensions, any layouts. Element
// types: f16, bf16, f32, f64, the f8 and f4 types, c64, c128, s1..s64, u1..u64 and pred, with
// operands of the result type or convertible to it as the interpreter converts them
// (bf16 x bf16 -> f32, s8 x s8 -> s32, real -> complex, pred -> anything, ...).
// Each batch is one 2-D GEMM (oneDNN's sgemm for f32 results, Eigen otherwise), the
// batches split across the threads. An operand (or the result) whose free and contracting
// dimensions each merge into one strided dimension is used in place, wherever its batch
// dimensions lie (attention's [batch, seq, heads, head_dim] operands, batched over batch
// and heads): no copy; any other is packed into a contiguous scratch first, as are
// operands of another element type than the result.
bool CanRunDot(const Instruction& dot, std::string* why);
Status RunDot(const Instruction& dot, const void* lhs, const void* rhs, void* out, int threads);
// How RunDot runs `dot` on this machine, for buffer-assignment dumps and tests: "batched
// GEMM 8 x [128x64]*[64x128], lhs in place, rhs in place, result in place (oneDNN sgemm
// per batch, threads across batches)", "GEMM [..]*[..], lhs packed, ...", or "invalid".
std::string DotPath(const Instruction& dot);
// oneDNN sets itself up on its first sgemm (the CPU's instruction set, its JIT kernels, the
// OpenMP team): 40-60 ms that a profile would otherwise charge to the program's first
// dot. Makes one tiny sgemm of each transpose pair on `threads` threads, once per process;
// returns the seconds it took (0 when done before, or without oneDNN).
double WarmUpGemmLibrary(int threads);

// --- convolution -------------------------------------------------------------------------
// Any HLO convolution: dim_labels in any order, 1 or more spatial dimensions (or none),
// window size, stride, padding (negative too), lhs and rhs dilation, window reversal,
// feature_group_count and batch_group_count. Element types as for dot. Computed as
// im2col into a scratch matrix plus one GEMM per (group, block of output rows), except two
// kinds of 1-D/2-D f32 convolution (one group, no lhs dilation) on CPUs with AVX-512:
// those whose reduction is at least 8x their result positions, with at most 256 output
// features ("weight-gradient": the reduction cut into a fixed number of chunks, partial
// sums added in chunk order), and others with at most 128 output features whose result
// has the features minor ("direct": result positions x feature vectors in registers). Those two give the same result for
// any thread count; FUSEBOX_CONV_IM2COL=1 in the environment forces im2col.
bool CanRunConvolution(const Instruction& conv, std::string* why);
Status RunConvolution(const Instruction& conv, const void* lhs, const void* rhs, void* out,
                      int threads);
// The path RunConvolution takes for `conv` on this machine: "direct", "weight-gradient",
// "im2col", or "invalid" when the convolution is malformed. For tests and traces.
const char* ConvolutionPath(const Instruction& conv);

// --- sort --------------------------------------------------------------------------------
// comparator(args, context) gets args[2*k] = the lhs element of operand k and
// args[2*k+1] = its rhs element, and returns true when lhs sorts before rhs.
using SortComparator = bool (*)(const void* const* args, void* context);

// Sorts `operands` (the sort's operand buffers, one per operand, all of the same
// dimensions) in place along the sort's dimension, every operand permuted alike. Each
// buffer is laid out by the sort's result (sub)shape's layout: the buffers become the
// results. Any array element type (sub-byte types take a byte). The sort is always stable
// (a merge sort, so a comparator that is not a strict weak order cannot make it read out
// of bounds); that satisfies is_stable and matches the interpreter, which is stable too.
bool CanRunSort(const Instruction& sort, std::string* why);
Status RunSort(const Instruction& sort, const std::vector<void*>& operands,
               SortComparator comparator, void* context);

// --- topk --------------------------------------------------------------------------------
// The k largest (largest=true) or smallest elements of every row along the operand's last
// dimension, in order, into `values`, and their positions in the row into `indices` (s32).
// The operand is laid out by its shape's layout, the results by the topk's result
// shapes'. The order is the interpreter's: XLA's total order for floats with a sign bit
// (+NaN above +inf, -0 below +0), integers and pred by value, ties to the lower position.
// Any such element type (sub-byte types take a byte); the float types without a sign bit
// are refused. One pass over each row keeping its best k in order (O(n k) at worst, an
// ascending row for the largest; O(n) for most rows); rows split across `threads`.
bool CanRunTopK(const Instruction& topk, std::string* why);
Status RunTopK(const Instruction& topk, const void* operand, void* values, void* indices, int threads);

// --- fft ---------------------------------------------------------------------------------
// HLO's Fourier transforms through FFTW (what XLA's CPU backend hands to ducc): FFT and
// IFFT of c64/c128, RFFT of f32/f64 (the first n/2+1 outputs of the last dimension), IRFFT
// back, over the operand's last one to three dimensions, the others a batch split across
// `threads`; IFFT and IRFFT scaled by 1/N. Any dense layouts (FFTW's strided plans read and
// write them in place). Plans are made once per shape and kept (library_kernels_fft.cc).
// The interpreter's own transform (compiler/interpreter/ops_linalg.cc) is the oracle.
bool CanRunFft(const Instruction& fft, std::string* why);
// Loads FFTW's two precisions (once per process): a profiled run does it before its first
// run, so that the first fft is not charged with the load. Returns the seconds it took (0
// when loaded before, or when FFTW is missing: the fft then says so when it runs).
double LoadFftLibrary();
Status RunFft(const Instruction& fft, const void* operand, void* result, int threads);

// --- LAPACK ------------------------------------------------------------------------------
// jax's LAPACK calls (IsCpuLapackCall: potrf, getrf, geqrf, orgqr, syevd, gesdd, gehrd,
// geqp3, gtsv, geev and BLAS's trsm, of f32/f64)
// through Debian's LAPACK, loaded at run time: what jaxlib's kernels compute under XLA,
// LAPACK's signs and orders included. `operands` one buffer per operand, `outputs` one per
// result leaf (ParseLibraryCall's shapes), any layouts; the batch split across `threads`.
// Without LAPACK the call is an error naming it and the missing library
// (library_kernels_lapack.cc).
Status RunLapack(const Instruction& call, const std::vector<void*>& operands, const std::vector<void*>& outputs,
                 int threads);
// The same call on the interpreter's literals (IsCpuLapackTarget), for the numeric check of
// the CPU backend (interpreter::InterpreterOptions::library_call): the reference runs the
// library the backend runs. A lapack_s... call with f64 operands is the f64 shadow of one:
// the d routine runs, and its eigen- or singular vectors take the signs the s routine
// gives on the operands rounded to f32 (the signs are the algorithm's choice, the values
// are what the shadow measures).
StatusOr<Literal> RunLapackOnLiterals(const Instruction& call, const std::vector<const Literal*>& operands);
// Loads LAPACK and BLAS (once per process) and makes one 1x1 call of each precision, which
// sets OpenBLAS's buffers up: milliseconds that a profile would otherwise charge to the
// program's first LAPACK call. Returns the seconds it took (0 when done before, or when
// LAPACK is missing: the call then says so when it runs).
double LoadLapackLibrary();

// --- rng-bit-generator -------------------------------------------------------------------
// XLA's generators (compiler/support/bit_generators.h; rng_default is Philox): the u64
// state vector in, the new state and the bits (32- or 64-bit elements, row-major in the
// bits' dense layout) out.
bool CanRunRngBitGenerator(const Instruction& rng, std::string* why);
Status RunRngBitGenerator(const Instruction& rng, const void* state, void* new_state, void* bits);

// --- cost estimates (for traces and benchmarks) ------------------------------------------
// Multiply-adds counted as two operations; -1 when the instruction is malformed.
int64_t DotFlops(const Instruction& dot);
int64_t ConvolutionFlops(const Instruction& conv);

}  // namespace fusebox::runtime
