// The numeric check behind `--check` and `--expected`: a backend's outputs against the
// reference interpreter, with a bound derived from the computation and a verdict that
// says when the comparison could not have failed (a vacuous check).
//
// How an output is judged (one "output" is one array leaf of the result tuple):
//   * The reference is the interpreter run in the module's own types (R) and, for
//     floating outputs, an f64 shadow run (S: the same module with every floating type
//     widened to f64, see f64_shadow.h).
//   * Non-finite values are compared by class (NaN, +inf, -inf, finite) against R:
//     overflow depends on the element type, so the f32 interpreter is the judge there.
//   * A finite element passes when |actual - S| <= bound, where
//         bound = k * E + atol + rtol * |S| + 4 * sqrt(n) * u * M + 2 * P,
//     E = the largest |R - S| over the output (the interpreter's own error on it: how
//     much the computation amplifies rounding), k = CheckOptions::k_factor, atol / rtol
//     the element type's floor (DefaultToleranceFor), and 4 * sqrt(n) * u * M the room for
//     sums taken in another order: n the terms summed along the output's longest chain
//     of reduce-adds, u the element type's unit roundoff and M the element's value in the
//     magnitude shadow (every reduce-add summing |terms|, f64_shadow.h). The interpreter
//     sums reduce-adds in double, so E alone would not cover a backend that sums in f32
//     (its dots accumulate in the element type, so E covers those). P is how far
//     perturbing every such sum by an error of that size, and every rounding op's result
//     by an ulp-sized amount of its own type, moves the element after everything
//     downstream (a mean subtracted from values equal to it and scaled by rsqrt of a
//     near-zero variance; an integer on a truncation boundary), measured on two perturbed
//     shadow runs whose op nudges go opposite ways. Without a shadow (a module the
//     widening cannot handle) the bound is atol + rtol * |R| against R, and the report
//     says so.
//   * Integers and pred compare exactly against R, except elements rounding decides (a
//     float converted to an integer where a sum's order or an op's last bit moves it):
//     where the perturbed runs or R and S disagree, the element is not compared and the
//     output's line says how many.
//   * An output is not counted as checked (its verdict says why) when every element of
//     the reference is non-finite, when it has more than one element and all reference
//     elements are equal (constant), or when it is an entry parameter passed through.
//     An output is not counted either when its summation-order room (4 * sqrt(n) * u * M)
//     is more than kWideBoundFactor times its largest reference magnitude: the magnitude
//     shadow does not bound computations that steer by their own values (the rotations of
//     a Jacobi eigensolver take other angles when sums become sums of magnitudes), and a
//     bound that wide could not fail.
//     A check in which no output counts is vacuous: CheckReport::vacuous() is true and
//     callers fail it ("the check would be vacuous: ...").
//   * Vectors whose signs a solver chooses (the eigenvectors of jax's eigh calls, the
//     singular vectors of its SVD calls: each solver, LAPACK, cuSOLVER or the
//     interpreter's Jacobi model, picks its own), read from the call through ops that keep
//     each vector whole (get-tuple-element, call, copy, transpose, slice, a select of NaN
//     where the call failed: SignFreeVectors), are aligned first: each of the backend's
//     vectors is negated where its dot product with the reference's is negative (complex
//     vectors: multiplied by the unit phase of that product), one decision per vector for
//     every output that reads it, so a U and a V (or Vᵀ, Vᴴ) whose pairs a backend
//     flipped apart still fail. The columns of a full U (or V) past
//     min(m, n), when two or more, span a complement in which any orthonormal basis is
//     right: not compared, and the output's line says how many elements. Nothing else is
//     aligned: a vector computed on (v + 1, v * v, a reconstruction) compares as it is.
#pragma once

#include <functional>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::check {

struct CheckOptions {
  // Multiple of the interpreter's own error allowed to the backend (see the header).
  double k_factor = 4;
  // Run the f64 shadow (off: compare against the interpreter with the type's floor).
  bool shadow = true;
  // Overrides the element type's floor (atol, rtol) for every floating output; for a
  // backend whose documented rounding differs (see the GPU corpus test).
  std::optional<interpreter::CompareOptions> floor;
  // Mismatches described per output.
  int max_reported = 5;
  // Options of the reference runs (work limits, while-loop bound); the same for R and S.
  interpreter::InterpreterOptions interpreter;
  // Runs each module of the reference (R, the shadows) in place of one interpreter: a
  // multi-device run of a per-device program, say. Gets the module, its arguments and the
  // interpreter options to use (the perturbed runs change the seed).
  std::function<StatusOr<Literal>(const Module&, const std::vector<Literal>&, const interpreter::InterpreterOptions&)> run;
};

// Why an output does (or does not) count toward the check.
enum class OutputVerdict {
  kCompared,      // compared element by element against a non-trivial reference
  kNonFinite,     // every reference element is NaN or inf: nothing to compare
  kConstant,      // more than one element, all reference elements equal
  kPassThrough,   // an entry parameter returned unchanged (structurally or bit for bit)
  kShapeMismatch, // actual and reference shapes differ
  kOrderDecided,  // integers every one of which rounding decides (a sum's order, an op's last bit)
  kBoundTooWide,  // the summation-order room alone is far above every value: no error could fail it
  kSolverChoice,  // every element in a basis a solver chooses (a full U's columns past min(m, n))
};
std::string_view OutputVerdictName(OutputVerdict verdict);

// Counts of each class of value.
struct ValueClasses {
  int64_t finite = 0, nan = 0, pos_inf = 0, neg_inf = 0;
  int64_t non_finite() const { return nan + pos_inf + neg_inf; }
};

struct OutputCheck {
  std::vector<int64_t> tuple_index;  // path into the result tuple; empty for an array result
  std::string name;                  // "output 0", "output {1,0}"; "output" for an array result
  std::string shape;                 // "f32[1,1000]"
  OutputVerdict verdict = OutputVerdict::kCompared;
  std::string why;                   // for a verdict other than kCompared: the reason in words
  int64_t elements = 0;
  int64_t mismatches = 0;            // elements out of bound or of another value class
  ValueClasses reference_classes;    // of R
  ValueClasses actual_classes;
  int64_t class_mismatches = 0;      // NaN where the reference is finite, and so on
  double max_abs_error = 0;          // largest |actual - reference| over finite pairs
  double max_error_over_bound = 0;   // largest |actual - reference| / bound (<= 1 passes)
  // The bound used: k * interpreter_error + atol + rtol * |reference|.
  bool has_shadow = false;
  bool compared_with_shadow = false; // finite elements measured against S (not R or the user's values)
  double interpreter_error = 0;      // E: largest |R - S| (0 without a shadow)
  int64_t summed_terms = 0;          // n: terms along the longest chain of sums
  double unit_roundoff = 0;          // u of the element type
  double max_magnitude = 0;          // largest M (Σ|terms|) over the output
  double max_sum_spread = 0;         // largest P over the output
  int64_t order_decided = 0;         // integer elements rounding decides (not compared)
  // Float elements whose class (finite, inf, NaN) a perturbed run changes (a singular
  // function of a value within rounding of its pole): not compared.
  int64_t class_decided = 0;
  double k_factor = 0, atol = 0, rtol = 0;
  // Vectors whose signs the solver chooses (SignFreeVectors): how many the output holds,
  // how many of the backend's were negated to the reference's sign, and what they are.
  int64_t sign_free_vectors = 0;
  int64_t sign_flipped_vectors = 0;  // complex: given another phase
  bool sign_free_phases = false;     // complex vectors: phases, not signs
  std::string sign_free_what;
  // Elements in a complement's basis the solver chooses (not compared).
  int64_t basis_free = 0;
  std::vector<interpreter::Mismatch> first_mismatches;
  bool ok() const { return mismatches == 0 && verdict != OutputVerdict::kShapeMismatch; }
  // "atol 1e-05 + rtol 1e-05·|x| + 4 × interpreter error 2.1e-05"
  std::string BoundString() const;
  // One line: "output 0 (f32[256,10]): 2560 compared, max error 3.0e-04 (0.41 of the
  // bound: ...)" or "output 3 (f32[512]): not counted: parameter 2 passed through".
  std::string ToString() const;
};

struct CheckReport {
  std::vector<OutputCheck> outputs;
  std::string reference_name = "the interpreter";  // or "the expected outputs"
  std::string shadow_note;  // why there is no f64 shadow, when there is none
  int64_t compared_outputs() const;
  bool shapes_ok() const;
  bool ok() const;        // every output passes (counted or not)
  bool vacuous() const;   // no output counts
  // Passed, with at least one output that counts.
  bool passed() const { return ok() && !vacuous(); }
  // The one-line verdict: "matches the interpreter: 1 of 161 outputs compared (2560
  // elements, max error 0.41 of the bound); 158 parameters passed through, 2 constant
  // not counted", "MISMATCH ...", or "the check would be vacuous: output 0 (f32[1,1000])
  // is 100% NaN in the reference; use other inputs".
  std::string Summary() const;
  // Summary plus a line per output (the bound used, classes, first mismatches).
  std::string Details() const;
};

// An output made of vectors whose signs a solver chooses, read from one element of its
// call through ops that keep each vector whole (see the header). Output element i reads
// the call element's element at coordinates c with c[origin_dim[d]] = origin_start[d] +
// origin_stride[d] * i_d for each output dimension d.
struct SignFreeVectors {
  const Instruction* call = nullptr;  // nullptr: an ordinary output
  int64_t element = -1;               // the call's result element read
  int64_t entry_dim = -1;             // the element's dimension along which a vector's entries run
  int64_t index_dim = -1;             // the element's dimension that numbers the vectors
  bool conjugated = false;            // the vectors conjugated (Vᴴ's rows): the phase's conjugate applies
  int64_t determined = 0;             // vectors numbered from here on span a complement: not compared
  std::vector<int64_t> origin_dim, origin_start, origin_stride;
  std::string what;                   // "the eigenvectors of eigh.17 (cusolver_syevd_ffi)"
};

// For each array leaf of the entry's result (ForEachArrayLeaf order): the solver's vectors
// it is, or an empty description (call == nullptr).
std::vector<SignFreeVectors> FindSignFreeVectors(const Module& module);

// The reference side of a check, computed once and reusable across backends and runs.
struct CheckReference {
  Literal reference;              // R: the interpreter in the module's own types
  std::optional<Literal> shadow;  // S: the f64 shadow (floating leaves as f64)
  std::optional<Literal> magnitude;  // M: the magnitude shadow (sums of |terms|)
  // P: per element, how far sums taken in another order and ops rounding their last bit
  // otherwise move it after everything downstream (max over two perturbed shadow runs of
  // |perturbed - S|, f64_shadow.h); for integer leaves, 1 where a perturbed run changed it.
  std::optional<Literal> sum_spread;
  // Per array leaf (ForEachArrayLeaf order): n, the terms summed along its longest chain.
  std::vector<int64_t> summed_terms;
  std::string shadow_note;        // why there is no shadow, when there is none
  // For each array leaf of the result, in ForEachArrayLeaf order: the entry parameter it
  // passes through unchanged, or -1.
  std::vector<int64_t> pass_through_parameter;
  // For each array leaf of the result: the solver's vectors whose signs are aligned
  // before comparing (FindSignFreeVectors).
  std::vector<SignFreeVectors> sign_free;
};

// Runs the interpreter (and the f64 shadow) on `arguments`.
StatusOr<CheckReference> ComputeCheckReference(const Module& module,
                                               const std::vector<Literal>& arguments,
                                               const CheckOptions& options = {});

// Judges `actual` (a backend's result) against the reference.
CheckReport CheckOutputs(const Literal& actual, const CheckReference& reference,
                         const std::vector<Literal>& arguments, const CheckOptions& options = {});

// Judges `actual` against outputs the user gave (XLA's own, say), one literal per array
// leaf in order, with the same rules; the bound still comes from the interpreter's own
// error on this module (from `reference`).
CheckReport CheckOutputsAgainstExpected(const Literal& actual, const std::vector<Literal>& expected,
                                        const CheckReference& reference,
                                        const std::vector<Literal>& arguments,
                                        const CheckOptions& options = {});

// ComputeCheckReference + CheckOutputs.
StatusOr<CheckReport> CheckAgainstInterpreter(const Module& module, const std::vector<Literal>& arguments,
                                              const Literal& actual, const CheckOptions& options = {});

}  // namespace fusebox::check
