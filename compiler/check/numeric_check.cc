// The numeric check: outputs against the interpreter and its f64 shadow, per output, with
// value classes, a bound from the interpreter's own error, and vacuity verdicts.
#include "compiler/check/numeric_check.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "compiler/check/f64_shadow.h"
#include "compiler/interpreter/index_util.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/ir/backend_config.h"
#include "compiler/ir/library_calls.h"
#include "compiler/ir/solver_plan.h"
#include "compiler/support/strings.h"

namespace fusebox::check {

namespace {

// Multiple of sqrt(n) · u · Σ|terms| allowed to a sum of n terms taken in another order
// than the interpreter's double accumulation: random rounding errors grow like sqrt(n),
// about 0.6 · sqrt(n) · u · Σ|terms| for an f32 sequential sum; 4 leaves room for sums
// whose partial sums do not cancel.
constexpr double kSumFactor = 4;
// Multiple of P, the perturbed runs' spread (numeric_check.h), allowed on top: two draws
// of a random sign and size in [0.5, 1) can both land on the small side.
constexpr double kSpreadFactor = 2;

enum class ValueClass { kFinite, kNan, kPosInf, kNegInf };

ValueClass ClassOf(double v) {
  if (std::isnan(v)) return ValueClass::kNan;
  if (std::isinf(v)) return v > 0 ? ValueClass::kPosInf : ValueClass::kNegInf;
  return ValueClass::kFinite;
}

ValueClass ClassOf(std::complex<double> c) {
  if (std::isnan(c.real()) || std::isnan(c.imag())) return ValueClass::kNan;
  if (std::isinf(c.real()) || std::isinf(c.imag())) {
    // Complex infinities have no sign: compare them by their parts' exact values instead.
    return ValueClass::kPosInf;
  }
  return ValueClass::kFinite;
}

void Count(ValueClass c, ValueClasses* classes) {
  switch (c) {
    case ValueClass::kFinite: ++classes->finite; break;
    case ValueClass::kNan: ++classes->nan; break;
    case ValueClass::kPosInf: ++classes->pos_inf; break;
    case ValueClass::kNegInf: ++classes->neg_inf; break;
  }
}

std::string Percent(int64_t part, int64_t whole) {
  if (whole <= 0) return "0%";
  const double p = 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  if (part == whole) return "100%";
  if (p >= 99.95) return "99.9%";
  return FormatDouble(std::round(p * 10) / 10) + "%";
}

std::string Sci(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3g", v);
  return buffer;
}

// The leaves of a literal with their tuple paths, depth first.
void Leaves(const Literal& literal, std::vector<int64_t>* path,
            std::vector<std::pair<std::vector<int64_t>, const Literal*>>* out) {
  if (literal.shape().IsTuple()) {
    for (size_t i = 0; i < literal.tuple_elements().size(); ++i) {
      path->push_back(static_cast<int64_t>(i));
      Leaves(literal.tuple_elements()[i], path, out);
      path->pop_back();
    }
  } else if (literal.shape().IsArray()) {
    out->emplace_back(*path, &literal);
  }
}

std::vector<std::pair<std::vector<int64_t>, const Literal*>> LeavesOf(const Literal& literal) {
  std::vector<std::pair<std::vector<int64_t>, const Literal*>> out;
  std::vector<int64_t> path;
  Leaves(literal, &path, &out);
  return out;
}

std::string OutputName(const std::vector<int64_t>& path) {
  if (path.empty()) return "output";
  if (path.size() == 1) return "output " + std::to_string(path[0]);
  return "output {" + Join(path, ",") + "}";
}

// Follows values that pass an operand through unchanged.
const Instruction* PassThroughSource(const Instruction* ins) {
  while (ins != nullptr) {
    switch (ins->opcode()) {
      case Opcode::kCopy:
      case Opcode::kBitcast:
      case Opcode::kReshape:
      case Opcode::kOptimizationBarrier:
        ins = ins->operand(0);
        continue;
      case Opcode::kGetTupleElement: {
        const Instruction* tuple = ins->operand(0);
        if (tuple->opcode() == Opcode::kTuple && ins->tuple_index() < tuple->operand_count()) {
          ins = tuple->operand(ins->tuple_index());
          continue;
        }
        // A leaf of a tuple parameter.
        const Instruction* base = tuple;
        while (base->opcode() == Opcode::kGetTupleElement) base = base->operand(0);
        return base->opcode() == Opcode::kParameter ? base : nullptr;
      }
      default:
        return ins;
    }
  }
  return nullptr;
}

// For every array leaf of the entry's result (ForEachArrayLeaf order): the parameter it
// returns unchanged, found structurally, or -1.
void StructuralPassThrough(const Instruction* ins, const Shape& shape, std::vector<int64_t>* out) {
  if (shape.IsTuple()) {
    const Instruction* source = ins ? PassThroughSource(ins) : nullptr;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      const Instruction* element = nullptr;
      if (source != nullptr && source->opcode() == Opcode::kTuple && i < source->operand_count()) {
        element = source->operand(i);
      }
      // A whole tuple parameter returned: its leaves are all passed through.
      if (source != nullptr && source->opcode() == Opcode::kParameter) element = source;
      StructuralPassThrough(element, shape.tuple_shapes(i), out);
    }
    return;
  }
  if (!shape.IsArray()) return;
  const Instruction* source = ins ? PassThroughSource(ins) : nullptr;
  out->push_back(source != nullptr && source->opcode() == Opcode::kParameter ? source->parameter_number()
                                                                             : -1);
}

// A splat of NaN: a constant all NaN (a complex one NaN in a part), or a broadcast of one
// (jax's select of NaN where a solver call reports failure).
bool IsNanSplat(const Instruction* ins) {
  if (ins->opcode() == Opcode::kBroadcast && ins->operand_count() == 1) ins = ins->operand(0);
  if (ins->opcode() != Opcode::kConstant || ins->literal() == nullptr) return false;
  const Literal& literal = *ins->literal();
  const PrimitiveType type = literal.shape().element_type();
  if (!literal.shape().IsArray() || literal.element_count() == 0 || !(IsFloat(type) || IsComplex(type))) return false;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const std::complex<double> value = IsComplex(type) ? literal.GetComplex(i) : literal.GetDouble(i);
    if (!std::isnan(value.real()) && !std::isnan(value.imag())) return false;
  }
  return true;
}

// The vectors of element `element` of solver call `call`, read through `trace` (per
// output dimension: the element's dimension, start and stride), or an empty description.
SignFreeVectors FromSolverCall(const Instruction* call, int64_t element, const SignFreeVectors& trace) {
  SignFreeVectors none;
  // jax's calls only: the GPU pipeline's own calls on the transposed matrix hold their
  // vectors transposed (solver_plan.h), and a module given to the check has none.
  if (IsTransposedSolverTarget(call->attrs().custom_call_target)) return none;
  auto parsed = ParseLibraryCall(*call);
  if (!parsed.ok() || call->operand_count() < 1 || !call->shape().IsTuple() ||
      element >= call->shape().tuple_size()) {
    return none;
  }
  const Shape& a = call->operand(0)->shape();
  const Shape& leaf = call->shape().tuple_shapes(element);
  if (!a.IsArray() || !leaf.IsArray() || !(IsFloat(leaf.element_type()) || IsComplex(leaf.element_type())) ||
      a.rank() < 2 || leaf.rank() != a.rank()) {
    return none;
  }
  const int64_t rank = leaf.rank();
  const int64_t k = std::min(a.dimensions(rank - 2), a.dimensions(rank - 1));
  SignFreeVectors v = trace;
  v.call = call;
  v.element = element;
  // Vectors in columns: entries down dimension rank - 2, numbered along rank - 1.
  v.entry_dim = rank - 2;
  v.index_dim = rank - 1;
  std::string what;
  if (parsed->kind == LibraryCallKind::kSymmetricEigen && element == 0) {
    // LAPACK's jobz 'N' (eigvalsh): no vectors, element 0 is the routine's scratch.
    const std::optional<std::map<std::string, std::string>> attributes = FfiAttributes(*call);
    if (attributes && attributes->count("mode") && (attributes->at("mode") == "78" || attributes->at("mode") == "N")) {
      return none;
    }
    what = "the eigenvectors";
  } else if (parsed->kind == LibraryCallKind::kSvd && parsed->svd_mode != 'N' && (element == 2 || element == 3)) {
    what = element == 2 ? "the left singular vectors" : "the right singular vectors";
    if (element == 3 && !parsed->svd_returns_v) {  // Vᵀ (Vᴴ): the vectors in rows, conjugated
      std::swap(v.entry_dim, v.index_dim);
      v.conjugated = true;
    }
  } else {
    return none;
  }
  // Every output dimension one of the element's, each once (a module the verifier passed
  // always gives that; anything else is not aligned).
  if (static_cast<int64_t>(v.origin_dim.size()) != rank) return none;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t d : v.origin_dim) {
    if (d < 0 || d >= rank || seen[static_cast<size_t>(d)]) return none;
    seen[static_cast<size_t>(d)] = true;
  }
  const int64_t count = leaf.dimensions(v.index_dim);
  // A full basis's vectors past min(m, n): two or more span a complement in which any
  // orthonormal basis is right (one is still unique up to sign).
  v.determined = count - k >= 2 ? k : count;
  v.what = what + " of " + call->name() + " (" + call->attrs().custom_call_target + ")";
  return v;
}

// Follows output `ins` back to a solver call's vectors through ops that keep each vector
// whole; `trace` maps the output's dimensions to ins's.
SignFreeVectors TraceSignFree(const Instruction* ins, SignFreeVectors trace) {
  for (int steps = 0; ins != nullptr && steps < 256; ++steps) {
    switch (ins->opcode()) {
      case Opcode::kCopy:
        ins = ins->operand(0);
        continue;
      case Opcode::kConvert:
        if (!IsFloat(ins->shape().element_type()) || !IsFloat(ins->operand(0)->shape().element_type())) return {};
        ins = ins->operand(0);
        continue;
      case Opcode::kTranspose: {
        const auto& permutation = ins->attrs().dimensions;
        if (!permutation) return {};
        for (int64_t& d : trace.origin_dim) d = (*permutation)[static_cast<size_t>(d)];
        ins = ins->operand(0);
        continue;
      }
      case Opcode::kSlice: {
        const auto& slice = ins->attrs().slice;
        for (size_t d = 0; d < trace.origin_dim.size(); ++d) {
          const auto x = static_cast<size_t>(trace.origin_dim[d]);
          if (x >= slice.size()) return {};
          trace.origin_start[d] = slice[x].start + slice[x].stride * trace.origin_start[d];
          trace.origin_stride[d] *= slice[x].stride;
        }
        ins = ins->operand(0);
        continue;
      }
      case Opcode::kSelect:
        if (ins->operand(0)->shape().IsArray() && IsNanSplat(ins->operand(2))) {
          ins = ins->operand(1);
        } else if (ins->operand(0)->shape().IsArray() && IsNanSplat(ins->operand(1))) {
          ins = ins->operand(2);
        } else {
          return {};
        }
        continue;
      case Opcode::kGetTupleElement: {
        const Instruction* tuple = ins->operand(0);
        const int64_t index = ins->tuple_index();
        if (tuple->opcode() == Opcode::kTuple && index < tuple->operand_count()) {
          ins = tuple->operand(index);
          continue;
        }
        if (tuple->opcode() == Opcode::kCall && tuple->called_computations().size() == 1) {
          const Instruction* root = tuple->called_computations()[0]->root();
          if (root == nullptr || root->opcode() != Opcode::kTuple || index >= root->operand_count()) return {};
          ins = root->operand(index);
          continue;
        }
        if (tuple->opcode() == Opcode::kCustomCall) return FromSolverCall(tuple, index, trace);
        return {};
      }
      default:
        return {};
    }
  }
  return {};
}

void CollectSignFree(const Instruction* ins, const Shape& shape, std::vector<SignFreeVectors>* out) {
  if (shape.IsTuple()) {
    // The elements of a root tuple (or of a call's), each traced on its own.
    const Instruction* tuple = ins;
    while (tuple != nullptr && tuple->opcode() == Opcode::kCall && tuple->called_computations().size() == 1) {
      tuple = tuple->called_computations()[0]->root();
    }
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      const Instruction* element =
          tuple != nullptr && tuple->opcode() == Opcode::kTuple && i < tuple->operand_count() ? tuple->operand(i) : nullptr;
      CollectSignFree(element, shape.tuple_shapes(i), out);
    }
    return;
  }
  if (!shape.IsArray()) return;
  if (ins == nullptr) {
    out->push_back({});
    return;
  }
  SignFreeVectors trace;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    trace.origin_dim.push_back(d);
    trace.origin_start.push_back(0);
    trace.origin_stride.push_back(1);
  }
  out->push_back(TraceSignFree(ins, std::move(trace)));
}

// One unit factor per solver vector: the call, and the vector's number among the call
// element's (batch, then the vector's own number; a U column's and V's column j share it).
using SignDecisions = std::map<std::pair<const Instruction*, int64_t>, std::complex<double>>;

// Aligns `actual`'s solver vectors to `reference`'s signs (complex: phases), numeric_check.h:
// one unit factor per vector (the call, its batch coordinates and its number) that takes
// the backend's vector nearest the reference's, kept in `decided` for the other outputs
// that read it (a Vᴴ row takes its conjugate); `skip` marks a complement's basis.
Literal AlignSignFree(const Literal& actual, const Literal& reference, const SignFreeVectors& v,
                      SignDecisions* decided, std::vector<bool>* skip, OutputCheck* out) {
  Literal aligned = actual;
  const bool complex = IsComplex(actual.shape().element_type());
  const std::vector<int64_t>& dims = actual.shape().dimensions();
  const int64_t n = actual.element_count();
  const std::vector<int64_t>& element = v.call->shape().tuple_shapes(v.element).dimensions();
  const int64_t rank = static_cast<int64_t>(element.size());
  // Each element's vector: its batch index times the most vectors an element of the call
  // holds (max(m, n)), plus its number, so that U's and V's j-th share it; -1 where it is
  // not compared.
  const std::vector<int64_t>& a = v.call->operand(0)->shape().dimensions();
  const int64_t most = std::max<int64_t>(1, std::max(a[a.size() - 2], a.back()));
  int64_t vectors = most;
  for (int64_t d = 0; d + 2 < rank; ++d) vectors *= element[static_cast<size_t>(d)];
  std::vector<int64_t> vector_of(static_cast<size_t>(n), -1);
  std::vector<std::complex<double>> dots(static_cast<size_t>(vectors));  // Σ conj(actual) · reference
  std::vector<bool> present(static_cast<size_t>(vectors), false);
  skip->assign(static_cast<size_t>(n), false);
  std::vector<int64_t> index(dims.size(), 0), coords(static_cast<size_t>(rank), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) {  // the next multi-index, row-major
      for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
        if (++index[static_cast<size_t>(d)] < dims[static_cast<size_t>(d)]) break;
        index[static_cast<size_t>(d)] = 0;
      }
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      coords[static_cast<size_t>(v.origin_dim[d])] = v.origin_start[d] + v.origin_stride[d] * index[d];
    }
    int64_t id = 0;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t c = coords[static_cast<size_t>(d)];
      if (c < 0 || c >= element[static_cast<size_t>(d)]) return actual;  // outside the call's result: not aligned
      if (d + 2 < rank) id = id * element[static_cast<size_t>(d)] + c;
    }
    id = id * most + coords[static_cast<size_t>(v.index_dim)];
    if (coords[static_cast<size_t>(v.index_dim)] >= v.determined) {
      (*skip)[static_cast<size_t>(i)] = true;  // no sign to decide: not compared
      continue;
    }
    vector_of[static_cast<size_t>(i)] = id;
    present[static_cast<size_t>(id)] = true;
    const std::complex<double> a = complex ? actual.GetComplex(i) : actual.GetDouble(i);
    const std::complex<double> r = complex ? reference.GetComplex(i) : reference.GetDouble(i);
    const std::complex<double> product = std::conj(a) * r;
    if (std::isfinite(product.real()) && std::isfinite(product.imag())) dots[static_cast<size_t>(id)] += product;
  }
  // Each vector's factor on this output (the conjugate of the vector's own for a Vᴴ row).
  std::vector<std::complex<double>> factors(static_cast<size_t>(vectors), 1.0);
  for (int64_t id = 0; id < vectors; ++id) {
    if (!present[static_cast<size_t>(id)]) continue;
    auto found = decided->find({v.call, id});
    if (found == decided->end()) {
      // The sign (the phase) of the dot product, stored as the vector's own.
      const std::complex<double> dot = dots[static_cast<size_t>(id)];
      std::complex<double> factor = 1.0;
      if (!complex) {
        factor = dot.real() < 0 ? -1.0 : 1.0;
      } else if (std::abs(dot) > 0) {
        factor = dot / std::abs(dot);
      }
      found = decided->emplace(std::make_pair(v.call, id), v.conjugated ? std::conj(factor) : factor).first;
    }
    ++out->sign_free_vectors;
    out->sign_flipped_vectors += std::abs(found->second - 1.0) > 1e-4 ? 1 : 0;  // not a rounding's phase
    factors[static_cast<size_t>(id)] = v.conjugated ? std::conj(found->second) : found->second;
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = vector_of[static_cast<size_t>(i)];
    if (id < 0 || factors[static_cast<size_t>(id)] == 1.0) continue;
    const std::complex<double> factor = factors[static_cast<size_t>(id)];
    if (complex) {
      aligned.SetComplex(i, actual.GetComplex(i) * factor);
    } else {
      aligned.SetDouble(i, actual.GetDouble(i) * factor.real());
    }
  }
  out->sign_free_what = v.what;
  out->sign_free_phases = complex;
  return aligned;
}

bool SameBits(const Literal& a, const Literal& b) {
  return a.shape().element_type() == b.shape().element_type() &&
         a.shape().dimensions() == b.shape().dimensions() && a.size_bytes() == b.size_bytes() &&
         std::memcmp(a.untyped_data(), b.untyped_data(), static_cast<size_t>(a.size_bytes())) == 0;
}

bool AllEqual(const Literal& literal) {
  const int64_t n = literal.element_count();
  if (n < 2) return false;
  const PrimitiveType type = literal.shape().element_type();
  for (int64_t i = 1; i < n; ++i) {
    if (IsFloat(type)) {
      if (literal.GetDouble(i) != literal.GetDouble(0)) return false;  // NaNs never equal
    } else if (literal.GetBits(i) != literal.GetBits(0)) {
      return false;
    }
  }
  return true;
}

// An output whose summation-order room exceeds its values this many times is not counted.
constexpr double kWideBoundFactor = 1000;
// Nor one whose reference and f64 shadow differ by more than this fraction of its largest
// value: rounding alone never moves a result that far (f32's is about 1e-7 of it); the two
// took different paths where the algorithm or rounding decides (a Schur form's order and
// phases; a conditional's branch index that rounding tips: the differential fuzzer's
// complex modules found two in 730), and a bound of k times that difference would pass
// anything.
constexpr double kChoiceFactor = 0.1;

double LargestFiniteMagnitude(const Literal& literal) {
  const PrimitiveType type = literal.shape().element_type();
  if (!IsFloat(type) && !IsComplex(type)) return 0;
  double largest = 0;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const double m = IsComplex(type) ? std::abs(literal.GetComplex(i)) : std::fabs(literal.GetDouble(i));
    if (std::isfinite(m)) largest = std::max(largest, m);
  }
  return largest;
}

class OutputJudge {
 public:
  OutputJudge(const CheckOptions& options, OutputCheck* out) : options_(options), out_(out) {}

  // `reference` is R (or the user's expected value); finite elements are compared with
  // `compare_to` (S) where it is finite. The bound's E is |interpreter - bound_shadow|.
  // Elements not compared (a complement's basis the solver chooses), counted in
  // basis_free; none unless set.
  void SkipElements(const std::vector<bool>* skip) { skip_ = skip; }

  void Judge(const Literal& actual, const Literal& reference, const Literal* compare_to,
             const Literal* interpreter, const Literal* bound_shadow, const Literal* magnitude,
             int64_t summed_terms, const Literal* spread) {
    const PrimitiveType type = reference.shape().element_type();
    const int64_t n = reference.element_count();
    out_->elements = n;
    const interpreter::CompareOptions floor =
        options_.floor && (IsFloat(type) || IsComplex(type)) ? *options_.floor : interpreter::DefaultToleranceFor(type);
    out_->atol = floor.atol;
    out_->rtol = floor.rtol;
    if (IsFloat(type) || IsComplex(type)) {
      out_->k_factor = options_.k_factor;
      // E: the interpreter's own error against the shadow, over this output.
      if (bound_shadow != nullptr && interpreter != nullptr) {
        out_->has_shadow = true;
        double e = 0;
        for (int64_t i = 0; i < n; ++i) {
          if (skip_ != nullptr && (*skip_)[static_cast<size_t>(i)]) continue;
          const double d = IsComplex(type)
                               ? std::abs(interpreter->GetComplex(i) - bound_shadow->GetComplex(i))
                               : std::fabs(interpreter->GetDouble(i) - bound_shadow->GetDouble(i));
          if (std::isfinite(d)) e = std::max(e, d);
        }
        out_->interpreter_error = e;
      }
      if (spread != nullptr && IsFloat(type)) {
        spread_ = spread;
        for (int64_t i = 0; i < n; ++i) {
          const double p = spread->GetDouble(i);
          if (std::isfinite(p)) out_->max_sum_spread = std::max(out_->max_sum_spread, p);
        }
      }
      if (magnitude != nullptr && summed_terms > 0 && IsFloat(type)) {
        magnitude_ = magnitude;
        out_->summed_terms = summed_terms;
        out_->unit_roundoff = std::ldexp(1.0, -(MantissaBits(type) + 1));
        for (int64_t i = 0; i < n; ++i) {
          const double m = std::fabs(magnitude->GetDouble(i));
          if (std::isfinite(m)) out_->max_magnitude = std::max(out_->max_magnitude, m);
        }
      }
    }
    out_->compared_with_shadow = compare_to != nullptr && out_->has_shadow;
    if (!IsFloat(type) && !IsComplex(type)) {
      if (spread != nullptr && spread->shape().element_type() == type) int_spread_ = spread;
      if (bound_shadow != nullptr && interpreter != nullptr && bound_shadow->shape().element_type() == type &&
          interpreter->shape().element_type() == type) {
        int_shadow_ = bound_shadow;
        int_interpreter_ = interpreter;
      }
    }
    for (int64_t i = 0; i < n; ++i) JudgeElement(actual, reference, compare_to, type, i);
  }

 private:
  void JudgeElement(const Literal& actual, const Literal& reference, const Literal* shadow,
                    PrimitiveType type, int64_t i) {
    if (skip_ != nullptr && (*skip_)[static_cast<size_t>(i)]) {
      ++out_->basis_free;
      return;
    }
    bool match = true;
    if (IsFloat(type) || IsComplex(type)) {
      const bool complex = IsComplex(type);
      const std::complex<double> a = complex ? actual.GetComplex(i) : actual.GetDouble(i);
      const std::complex<double> r = complex ? reference.GetComplex(i) : reference.GetDouble(i);
      const ValueClass ca = complex ? ClassOf(a) : ClassOf(a.real());
      const ValueClass cr = complex ? ClassOf(r) : ClassOf(r.real());
      Count(ca, &out_->actual_classes);
      Count(cr, &out_->reference_classes);
      if (ca != cr) {
        // A class a perturbed run changes too (rsqrt of a value that is 0 in exact
        // arithmetic and 1e-17 in the interpreter) is rounding's, not the program's.
        if (spread_ != nullptr && std::isinf(spread_->GetDouble(i))) {
          ++out_->class_decided;
          return;
        }
        match = false;
        ++out_->class_mismatches;
      } else if (cr == ValueClass::kPosInf && complex) {
        match = a == r;
      } else if (cr == ValueClass::kFinite) {
        std::complex<double> want = r;
        if (shadow != nullptr) {
          const std::complex<double> s = complex ? shadow->GetComplex(i) : shadow->GetDouble(i);
          if (std::isfinite(s.real()) && std::isfinite(s.imag())) want = s;
        }
        const double error = std::abs(a - want);
        double bound = out_->k_factor * out_->interpreter_error + out_->atol + out_->rtol * std::abs(want);
        if (spread_ != nullptr) {
          const double p = spread_->GetDouble(i);
          if (std::isfinite(p)) bound += kSpreadFactor * p;
        }
        if (magnitude_ != nullptr) {
          const double m = std::fabs(magnitude_->GetDouble(i));
          if (std::isfinite(m)) bound += kSumFactor * std::sqrt(static_cast<double>(out_->summed_terms)) * out_->unit_roundoff * m;
        }
        out_->max_abs_error = std::max(out_->max_abs_error, error);
        if (bound > 0) out_->max_error_over_bound = std::max(out_->max_error_over_bound, error / bound);
        match = error <= bound;
      }
    } else {
      out_->reference_classes.finite++;
      out_->actual_classes.finite++;
      // An integer rounding decides (the perturbed runs, or the interpreter against its
      // shadow, disagree on it) is not a fact of the program: not compared.
      if ((int_spread_ != nullptr && int_spread_->GetBits(i) != 0) ||
          (int_shadow_ != nullptr && int_interpreter_ != nullptr &&
           int_shadow_->GetBits(i) != int_interpreter_->GetBits(i))) {
        ++out_->order_decided;
        return;
      }
      const uint64_t a = actual.GetBits(i);
      const uint64_t r = reference.GetBits(i);
      match = a == r;
      if (!match) {
        const double d = std::fabs(static_cast<double>(actual.GetInt64(i)) -
                                   static_cast<double>(reference.GetInt64(i)));
        out_->max_abs_error = std::max(out_->max_abs_error, d);
        out_->max_error_over_bound = std::numeric_limits<double>::infinity();
      }
    }
    if (match) return;
    ++out_->mismatches;
    if (static_cast<int>(out_->first_mismatches.size()) < options_.max_reported) {
      interpreter::Mismatch m;
      m.tuple_index = out_->tuple_index;
      m.index = interpreter::MultiIndex(i, reference.shape().dimensions());
      m.actual = actual.ElementToString(i);
      m.expected = reference.ElementToString(i);
      out_->first_mismatches.push_back(std::move(m));
    }
  }

  const CheckOptions& options_;
  OutputCheck* out_;
  const Literal* magnitude_ = nullptr;
  const Literal* spread_ = nullptr;
  const Literal* int_spread_ = nullptr;
  const Literal* int_shadow_ = nullptr;
  const Literal* int_interpreter_ = nullptr;
  const std::vector<bool>* skip_ = nullptr;
};

bool ShapesAgree(const Literal& a, const Literal& b) {
  return a.shape().element_type() == b.shape().element_type() &&
         a.shape().dimensions() == b.shape().dimensions() && a.element_count() == b.element_count();
}

// The shared body of CheckOutputs and CheckOutputsAgainstExpected.
CheckReport Check(const Literal& actual, const std::vector<const Literal*>& expected,
                  const CheckReference& reference, const std::vector<Literal>& arguments,
                  const CheckOptions& options, bool expected_is_interpreter) {
  CheckReport report;
  report.shadow_note = reference.shadow_note;
  if (!expected_is_interpreter) report.reference_name = "the expected outputs";
  const auto actual_leaves = LeavesOf(actual);
  const auto reference_leaves = LeavesOf(reference.reference);
  std::vector<std::pair<std::vector<int64_t>, const Literal*>> shadow_leaves;
  if (reference.shadow) shadow_leaves = LeavesOf(*reference.shadow);
  std::vector<std::pair<std::vector<int64_t>, const Literal*>> magnitude_leaves;
  if (reference.magnitude) magnitude_leaves = LeavesOf(*reference.magnitude);
  std::vector<std::pair<std::vector<int64_t>, const Literal*>> spread_leaves;
  if (reference.sum_spread) spread_leaves = LeavesOf(*reference.sum_spread);
  std::vector<const Literal*> argument_leaves;
  std::vector<int64_t> argument_numbers;
  for (size_t p = 0; p < arguments.size(); ++p) {
    ForEachArrayLeaf(arguments[p], [&](const Literal& leaf) {
      argument_leaves.push_back(&leaf);
      argument_numbers.push_back(static_cast<int64_t>(p));
    });
  }
  // The solver vectors' signs, decided once per vector for every output that reads it.
  SignDecisions sign_decisions;
  const size_t count = std::max(expected.size(), actual_leaves.size());
  for (size_t k = 0; k < count; ++k) {
    OutputCheck out;
    if (k < reference_leaves.size()) out.tuple_index = reference_leaves[k].first;
    else if (k < actual_leaves.size()) out.tuple_index = actual_leaves[k].first;
    out.name = OutputName(out.tuple_index);
    if (k >= expected.size() || k >= actual_leaves.size() || expected[k] == nullptr) {
      out.verdict = OutputVerdict::kShapeMismatch;
      out.why = k >= actual_leaves.size() ? "missing from the backend's result"
                                          : "missing from " + report.reference_name;
      if (k < actual_leaves.size()) out.shape = actual_leaves[k].second->shape().ToString(false);
      report.outputs.push_back(std::move(out));
      continue;
    }
    const Literal& want = *expected[k];
    const Literal& got = *actual_leaves[k].second;
    out.shape = want.shape().ToString(false);
    if (!ShapesAgree(got, want)) {
      out.verdict = OutputVerdict::kShapeMismatch;
      out.why = "the backend returned " + got.shape().ToString(false) + ", " + report.reference_name +
                " " + out.shape;
      report.outputs.push_back(std::move(out));
      continue;
    }
    const Literal* interpreter = k < reference_leaves.size() ? reference_leaves[k].second : nullptr;
    const Literal* shadow = nullptr;
    if (k < shadow_leaves.size() && interpreter != nullptr && ShapesAgree(*interpreter, want) &&
        shadow_leaves[k].second->shape().dimensions() == want.shape().dimensions()) {
      shadow = shadow_leaves[k].second;
    }
    // Against the user's values the shadow still sets the bound (the interpreter's own
    // error on this output), but the comparison is with what the user gave.
    const Literal* magnitude = nullptr;
    if (shadow != nullptr && k < magnitude_leaves.size() &&
        magnitude_leaves[k].second->shape().dimensions() == want.shape().dimensions()) {
      magnitude = magnitude_leaves[k].second;
    }
    const int64_t terms = k < reference.summed_terms.size() ? reference.summed_terms[k] : 0;
    const Literal* spread = nullptr;
    if (shadow != nullptr && k < spread_leaves.size() &&
        spread_leaves[k].second->shape().dimensions() == want.shape().dimensions()) {
      spread = spread_leaves[k].second;
    }
    OutputJudge judge(options, &out);
    std::optional<Literal> aligned;
    std::vector<bool> skip;
    if (k < reference.sign_free.size() && reference.sign_free[k].call != nullptr &&
        (IsFloat(want.shape().element_type()) || IsComplex(want.shape().element_type()))) {
      aligned = AlignSignFree(got, want, reference.sign_free[k], &sign_decisions, &skip, &out);
      judge.SkipElements(&skip);
    }
    judge.Judge(aligned ? *aligned : got, want, expected_is_interpreter ? shadow : nullptr, interpreter, shadow,
                magnitude, terms, spread);
    // Why the output may not count.
    const int64_t param = k < reference.pass_through_parameter.size() ? reference.pass_through_parameter[k] : -1;
    if (out.elements > 0 && out.basis_free == out.elements) {
      out.verdict = OutputVerdict::kSolverChoice;
      out.why = "is all in the basis of a complement the solver chooses (" + out.sign_free_what +
                " past min(m, n): any orthonormal basis of it is right)";
    } else if (out.elements > 0 && out.order_decided + out.class_decided + out.basis_free == out.elements) {
      out.verdict = OutputVerdict::kOrderDecided;
      out.why = "has every element decided by rounding (a float converted to an integer where a sum's order or "
                "an op's last bit moves it)";
    } else if (param >= 0) {
      out.verdict = OutputVerdict::kPassThrough;
      out.why = "parameter " + std::to_string(param) + " passed through";
    } else if (out.elements > 0 && out.reference_classes.finite == 0) {
      out.verdict = OutputVerdict::kNonFinite;
      const ValueClasses& c = out.reference_classes;
      out.why = c.nan == out.elements ? "is 100% NaN in " + report.reference_name
                                      : "is 100% non-finite in " + report.reference_name + " (" +
                                            std::to_string(c.nan) + " NaN, " +
                                            std::to_string(c.pos_inf + c.neg_inf) + " inf)";
    } else if (AllEqual(want)) {
      out.verdict = OutputVerdict::kConstant;
      out.why = "is constant (every element " + want.ElementToString(0) + ") in " + report.reference_name;
    } else if (const double largest = LargestFiniteMagnitude(want);
               out.summed_terms > 0 && largest > 0 &&
               kSumFactor * std::sqrt(static_cast<double>(out.summed_terms)) * out.unit_roundoff * out.max_magnitude >
                   kWideBoundFactor * largest) {
      out.verdict = OutputVerdict::kBoundTooWide;
      out.why = "its summation-order room (" + FormatDouble(kSumFactor) + "·√n·u·Σ|terms|, Σ|terms| up to " +
                Sci(out.max_magnitude) + ") is over " + FormatDouble(kWideBoundFactor) + " times its largest value (" +
                Sci(largest) + "): the magnitude shadow does not bound this computation (one that steers by its own " +
                "values, as an iterative solver's rotations do), and no error could fail a bound that wide";
    } else if (const double largest = LargestFiniteMagnitude(want);
               shadow != nullptr && largest > 0 && out.interpreter_error > kChoiceFactor * largest) {
      out.verdict = OutputVerdict::kBoundTooWide;
      out.why = "the reference and its f64 shadow differ by up to " + Sci(out.interpreter_error) + ", over " +
                FormatDouble(kChoiceFactor) + " of its largest value (" + Sci(largest) +
                "): no rounding moves a result that far; the two took different paths where the algorithm or "
                "rounding decides (a Schur form's order or a vector's phase, which LAPACK picks; a branch index or "
                "comparison that rounding tips), and no error could fail a bound of " +
                FormatDouble(out.k_factor) + " times that";
    } else if (got.element_count() >= 2) {
      // Judged on the interpreter's value: the user's expected values may round an
      // identity-like computation back to its input.
      const Literal& value = interpreter != nullptr && ShapesAgree(*interpreter, want) ? *interpreter : want;
      for (size_t a = 0; a < argument_leaves.size(); ++a) {
        if (SameBits(value, *argument_leaves[a])) {
          out.verdict = OutputVerdict::kPassThrough;
          out.why = "equals parameter " + std::to_string(argument_numbers[a]) + " bit for bit";
          break;
        }
      }
    }
    report.outputs.push_back(std::move(out));
  }
  return report;
}

// |perturbed - shadow| per element, the larger of two perturbed runs (f64_shadow.h's
// MakePerturbedShadow); nothing when the module cannot be perturbed or a run fails.
// One run of a module of the reference: the caller's runner, or one interpreter.
StatusOr<Literal> RunReference(const CheckOptions& check, const Module& module, const std::vector<Literal>& arguments,
                               const interpreter::InterpreterOptions& options) {
  if (check.run) return check.run(module, arguments, options);
  return interpreter::Interpreter(options).Run(module, arguments);
}

std::optional<Literal> SumSpread(const Module& module, const Module& shadow_module, const Literal& shadow,
                                 const std::vector<Literal>& wide_arguments, const CheckOptions& check) {
  const interpreter::InterpreterOptions& options = check.interpreter;
  auto perturbed_module = MakePerturbedShadow(shadow_module, module);
  if (!perturbed_module.ok()) return std::nullopt;
  Literal spread = shadow;
  ForEachArrayLeaf(spread, [](Literal& leaf) {
    for (int64_t i = 0; i < leaf.element_count(); ++i) leaf.SetBits(i, 0);
  });
  // Each run also nudges every rounding op's result by an ulp-sized amount of its own type,
  // the second run the other way (f64_shadow.h's NudgeByRounding): an integer the
  // rounding of elementwise math decides, not only a sum's order, then moves in one run.
  const std::unordered_map<const Instruction*, RoundingUnit> units = RoundingUnits(**perturbed_module, module);
  for (uint64_t seed : {uint64_t{1}, uint64_t{2}}) {
    interpreter::InterpreterOptions run_options = options;
    run_options.rng_seed = seed;
    const double direction = seed == 1 ? 1.0 : -1.0;
    run_options.on_result = [&units, direction](const Instruction& ins, Literal& result) {
      auto it = units.find(&ins);
      if (it != units.end()) NudgeByRounding(result, it->second, direction);
    };
    auto perturbed = RunReference(check, **perturbed_module, wide_arguments, run_options);
    if (!perturbed.ok()) return std::nullopt;
    const auto p_leaves = LeavesOf(*perturbed);
    const auto s_leaves = LeavesOf(shadow);
    const auto out_leaves = LeavesOf(spread);
    if (p_leaves.size() != s_leaves.size()) return std::nullopt;
    for (size_t k = 0; k < s_leaves.size(); ++k) {
      const Literal& p = *p_leaves[k].second;
      const Literal& s = *s_leaves[k].second;
      Literal& out = const_cast<Literal&>(*out_leaves[k].second);
      if (p.element_count() != s.element_count() || !s.shape().IsArray()) continue;
      const PrimitiveType type = s.shape().element_type();
      if (IsInteger(type) || IsPred(type)) {
        // 1 where the perturbed sums change an integer (a float converted to int).
        for (int64_t i = 0; i < s.element_count(); ++i) {
          if (p.GetBits(i) != s.GetBits(i)) out.SetBits(i, 1);
        }
        continue;
      }
      if (!IsFloat(type)) continue;
      for (int64_t i = 0; i < s.element_count(); ++i) {
        // inf where a run changes the element's class (finite, inf, NaN).
        if (ClassOf(p.GetDouble(i)) != ClassOf(s.GetDouble(i))) {
          out.SetDouble(i, std::numeric_limits<double>::infinity());
          continue;
        }
        const double d = std::fabs(p.GetDouble(i) - s.GetDouble(i));
        if (std::isfinite(d) && d > out.GetDouble(i)) out.SetDouble(i, d);
      }
    }
  }
  return spread;
}

}  // namespace

std::string_view OutputVerdictName(OutputVerdict verdict) {
  switch (verdict) {
    case OutputVerdict::kCompared: return "compared";
    case OutputVerdict::kNonFinite: return "non-finite";
    case OutputVerdict::kConstant: return "constant";
    case OutputVerdict::kPassThrough: return "passed through";
    case OutputVerdict::kShapeMismatch: return "shape mismatch";
    case OutputVerdict::kOrderDecided: return "decided by rounding";
    case OutputVerdict::kBoundTooWide: return "bound wider than its values";
    case OutputVerdict::kSolverChoice: return "the solver's choice";
  }
  return "?";
}

std::string OutputCheck::BoundString() const {
  if (k_factor == 0) return "exact";
  std::string s = "atol " + Sci(atol) + " + rtol " + Sci(rtol) + "·|x|";
  if (has_shadow) s += " + " + FormatDouble(k_factor) + " × interpreter error " + Sci(interpreter_error);
  if (summed_terms > 0) {
    s += " + " + FormatDouble(kSumFactor) + "·√n·u·Σ|terms| (n " + std::to_string(summed_terms) + ", u " + Sci(unit_roundoff) + ", Σ|terms| up to " +
         Sci(max_magnitude) + ")";
  }
  if (max_sum_spread > 0) {
    s += " + " + FormatDouble(kSpreadFactor) + " × rounding spread (up to " + Sci(max_sum_spread) + ")";
  }
  return s;
}

std::string OutputCheck::ToString() const {
  std::string s = name + " (" + shape + "): ";
  if (verdict == OutputVerdict::kShapeMismatch) return s + "shape mismatch: " + why;
  if (verdict != OutputVerdict::kCompared) s += "not counted: " + why + "; ";
  const ValueClasses& r = reference_classes;
  if (mismatches == 0) {
    s += elements == 1 ? "1 element matches" : std::to_string(elements) + " elements match";
  } else {
    s += std::to_string(mismatches) + " of " + std::to_string(elements) + " elements differ";
    if (class_mismatches > 0) s += " (" + std::to_string(class_mismatches) + " of another class: NaN/inf/finite)";
  }
  if (k_factor != 0 && r.finite > 0) {
    s += "; largest error " + Sci(max_abs_error) + " = " + Sci(max_error_over_bound) + " of the bound (" +
         BoundString() + (compared_with_shadow ? ", against the f64 shadow" : "") + ")";
  } else if (k_factor == 0) {
    s += " (exact)";
  }
  if (r.non_finite() > 0 && r.finite > 0) {
    s += "; " + Percent(r.non_finite(), elements) + " non-finite in the reference (" + std::to_string(r.nan) +
         " NaN, " + std::to_string(r.pos_inf + r.neg_inf) + " inf), compared by class";
  }
  if (order_decided > 0) {
    s += "; " + std::to_string(order_decided) +
         " integer element(s) not compared: rounding decides them (a float converted to an integer where a sum's "
         "order or an op's last bit moves it)";
  }
  if (class_decided > 0) {
    s += "; " + std::to_string(class_decided) +
         " element(s) not compared: rounding decides whether they are finite (a perturbed run moves them across "
         "inf or NaN)";
  }
  if (sign_free_vectors > 0) {
    s += "; " + std::to_string(sign_flipped_vectors) + " of " + std::to_string(sign_free_vectors) +
         (sign_free_phases ? " vector(s) given the reference's phase first (" : " vector(s) negated to the reference's sign first (") +
         sign_free_what + ": each solver picks its own)";
  }
  if (basis_free > 0) {
    s += "; " + std::to_string(basis_free) +
         " element(s) not compared: vectors past min(m, n) span a complement where any orthonormal basis is right";
  }
  for (size_t i = 0; i < first_mismatches.size(); ++i) {
    const interpreter::Mismatch& m = first_mismatches[i];
    s += i == 0 ? "; first: " : ", ";
    s += "[" + Join(m.index, ",") + "] actual " + m.actual + " expected " + m.expected;
  }
  return s;
}

int64_t CheckReport::compared_outputs() const {
  int64_t n = 0;
  for (const OutputCheck& o : outputs) n += o.verdict == OutputVerdict::kCompared ? 1 : 0;
  return n;
}

bool CheckReport::shapes_ok() const {
  for (const OutputCheck& o : outputs) {
    if (o.verdict == OutputVerdict::kShapeMismatch) return false;
  }
  return true;
}

bool CheckReport::ok() const {
  for (const OutputCheck& o : outputs) {
    if (!o.ok()) return false;
  }
  return true;
}

bool CheckReport::vacuous() const { return compared_outputs() == 0; }

std::string CheckReport::Summary() const {
  if (!ok()) {
    std::string s = "MISMATCH with " + reference_name + ": ";
    int shown = 0;
    int failing = 0;
    for (const OutputCheck& o : outputs) {
      if (o.ok()) continue;
      ++failing;
      if (shown++ < 2) s += (shown > 1 ? "; " : "") + o.ToString();
    }
    if (failing > shown) s += "; and " + std::to_string(failing - shown) + " more output(s) differ";
    return s;
  }
  int64_t counts[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t elements = 0;
  double worst = 0;
  for (const OutputCheck& o : outputs) {
    ++counts[static_cast<int>(o.verdict)];
    if (o.verdict == OutputVerdict::kCompared) {
      elements += o.elements - o.order_decided - o.class_decided - o.basis_free;
      worst = std::max(worst, o.max_error_over_bound);
    }
  }
  std::vector<std::string> skipped;
  if (counts[static_cast<int>(OutputVerdict::kPassThrough)] > 0)
    skipped.push_back(std::to_string(counts[static_cast<int>(OutputVerdict::kPassThrough)]) + " passed through");
  if (counts[static_cast<int>(OutputVerdict::kConstant)] > 0)
    skipped.push_back(std::to_string(counts[static_cast<int>(OutputVerdict::kConstant)]) + " constant");
  if (counts[static_cast<int>(OutputVerdict::kNonFinite)] > 0)
    skipped.push_back(std::to_string(counts[static_cast<int>(OutputVerdict::kNonFinite)]) + " all non-finite");
  if (counts[static_cast<int>(OutputVerdict::kOrderDecided)] > 0)
    skipped.push_back(std::to_string(counts[static_cast<int>(OutputVerdict::kOrderDecided)]) +
                      " decided by rounding");
  if (counts[static_cast<int>(OutputVerdict::kBoundTooWide)] > 0)
    skipped.push_back(std::to_string(counts[static_cast<int>(OutputVerdict::kBoundTooWide)]) +
                      " with a bound wider than its values");
  if (counts[static_cast<int>(OutputVerdict::kSolverChoice)] > 0)
    skipped.push_back(std::to_string(counts[static_cast<int>(OutputVerdict::kSolverChoice)]) +
                      " all in a basis the solver chooses");
  const std::string not_counted = skipped.empty() ? "" : "; not counted: " + Join(skipped, ", ");
  if (vacuous()) {
    std::string s = "the check would be vacuous: ";
    int shown = 0;
    for (const OutputCheck& o : outputs) {
      if (shown == 3) {
        s += "; and " + std::to_string(outputs.size() - 3) + " more";
        break;
      }
      s += (shown++ ? "; " : "") + o.name + " (" + o.shape + ") " +
           (o.why.rfind("parameter", 0) == 0 ? "is " + o.why : o.why);
    }
    if (outputs.empty()) s += "the module has no array output";
    return s + "; use other inputs";
  }
  return "matches " + reference_name + ": " + std::to_string(compared_outputs()) + " of " +
         std::to_string(outputs.size()) + " output(s) compared (" + std::to_string(elements) +
         " elements, largest error " + Sci(worst) + " of its bound)" + not_counted;
}

std::string CheckReport::Details() const {
  std::string s = Summary() + "\n";
  if (!shadow_note.empty()) s += "  no f64 shadow: " + shadow_note + "; bounds are the element types' floors\n";
  for (const OutputCheck& o : outputs) s += "  " + o.ToString() + "\n";
  return s;
}

StatusOr<CheckReference> ComputeCheckReference(const Module& module, const std::vector<Literal>& arguments,
                                               const CheckOptions& options) {
  CheckReference ref;
  const interpreter::InterpreterOptions& iopts = options.interpreter;
  ASSIGN_OR_RETURN(ref.reference, RunReference(options, module, arguments, iopts));
  StructuralPassThrough(module.entry()->root(), module.entry()->root()->shape(), &ref.pass_through_parameter);
  ref.sign_free = FindSignFreeVectors(module);
  bool any_float = false;
  ForEachArrayLeaf(ref.reference, [&](const Literal& leaf) {
    const PrimitiveType t = leaf.shape().element_type();
    any_float = any_float || IsFloat(t) || IsComplex(t);
  });
  // Integer or pred outputs computed from floats (a sum scaled and converted, a compare of
  // sums) need the shadow too: it is what tells the integers rounding decides.
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (any_float) break;
      ForEachSubshape(inst->shape(), [&](const Shape& leaf, const std::vector<int64_t>&) {
        any_float = any_float || (leaf.IsArray() && (IsFloat(leaf.element_type()) || IsComplex(leaf.element_type())));
      });
    }
  }
  if (!options.shadow) {
    ref.shadow_note = "turned off";
  } else if (any_float) {
    // XLA's library calls (cuBLAS, cuDNN) as the plain HLO they stand for: their dots and
    // convolutions widen, and count their terms, like the module's own.
    // The calls the reference runs through LAPACK stay calls (their f64 shadow LAPACK's
    // double routine): the CPU backend's LAPACK calls, and GPU solver calls LAPACK answers
    // alike, whose plain HLO (a Householder loop) would make the magnitude shadow bound
    // nothing.
    auto opened = OpenLibraryCalls(module, [&options](const Instruction& ins) {
      return interpreter::TakesLibraryCall(options.interpreter, ins);
    });
    const Module& plain = opened.ok() && *opened ? **opened : module;
    auto shadow_module = opened.ok() ? MakeF64Shadow(plain) : StatusOr<std::unique_ptr<Module>>(opened.status());
    if (!shadow_module.ok()) {
      ref.shadow_note = shadow_module.status().message();
    } else {
      std::vector<Literal> wide;
      wide.reserve(arguments.size());
      for (const Literal& a : arguments) wide.push_back(WidenLiteralToF64(a));
      // A module with nothing to widen is its own shadow (MakeF64Shadow changes no type and
      // the arguments stay as they are): its run would repeat the reference bit for bit.
      auto shadow = &plain == &module && !WidensAnything(module)
                        ? StatusOr<Literal>(ref.reference)
                        : RunReference(options, **shadow_module, wide, iopts);
      if (shadow.ok()) {
        ref.shadow = std::move(shadow).value();
        ref.summed_terms = SummedTermsPerOutput(plain);
        bool any_sum = false;
        for (int64_t n : ref.summed_terms) any_sum = any_sum || n > 0;
        if (any_sum) {
          // Without the magnitudes the check would be stricter than sums in another
          // order allow: say so rather than raise false alarms.
          auto magnitude_module = MakeMagnitudeShadow(**shadow_module);
          if (magnitude_module.ok()) {
            auto magnitude = RunReference(options, **magnitude_module, wide, iopts);
            if (magnitude.ok()) ref.magnitude = std::move(magnitude).value();
          }
          if (!ref.magnitude) ref.summed_terms.assign(ref.summed_terms.size(), 0);
        }
        if (any_sum || HasRoundingSensitiveOps(plain)) {
          ref.sum_spread = SumSpread(plain, **shadow_module, *ref.shadow, wide, options);
        }
      } else {
        ref.shadow_note = "the interpreter could not run it in f64: " + shadow.status().message();
      }
    }
  }
  return ref;
}

std::vector<SignFreeVectors> FindSignFreeVectors(const Module& module) {
  std::vector<SignFreeVectors> out;
  if (module.entry() == nullptr || module.entry()->root() == nullptr) return out;
  CollectSignFree(module.entry()->root(), module.entry()->root()->shape(), &out);
  return out;
}

CheckReport CheckOutputs(const Literal& actual, const CheckReference& reference,
                         const std::vector<Literal>& arguments, const CheckOptions& options) {
  std::vector<const Literal*> expected;
  ForEachArrayLeaf(reference.reference, [&](const Literal& leaf) { expected.push_back(&leaf); });
  return Check(actual, expected, reference, arguments, options, /*expected_is_interpreter=*/true);
}

CheckReport CheckOutputsAgainstExpected(const Literal& actual, const std::vector<Literal>& expected,
                                        const CheckReference& reference,
                                        const std::vector<Literal>& arguments, const CheckOptions& options) {
  std::vector<const Literal*> pointers;
  for (const Literal& e : expected) pointers.push_back(&e);
  return Check(actual, pointers, reference, arguments, options, /*expected_is_interpreter=*/false);
}

StatusOr<CheckReport> CheckAgainstInterpreter(const Module& module, const std::vector<Literal>& arguments,
                                              const Literal& actual, const CheckOptions& options) {
  ASSIGN_OR_RETURN(CheckReference reference, ComputeCheckReference(module, arguments, options));
  return CheckOutputs(actual, reference, arguments, options);
}

}  // namespace fusebox::check
