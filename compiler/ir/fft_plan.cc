// The cuFFT plan of an `fft` op, and the plan run on the host as cuFFT defines it.
#include "compiler/ir/fft_plan.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <numbers>

namespace fusebox {

namespace {

std::string Dims(const std::vector<int64_t>& dims) {
  std::string out;
  for (int64_t d : dims) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}

Status Refuse(const Instruction& fft, const std::string& why) {
  return InvalidArgument(fft.name() + " (fft): " + why);
}

}  // namespace

std::string_view FftPlanTypeName(FftPlanType type) {
  switch (type) {
    case FftPlanType::kR2C: return "R2C";
    case FftPlanType::kC2R: return "C2R";
    case FftPlanType::kC2C: return "C2C";
    case FftPlanType::kD2Z: return "D2Z";
    case FftPlanType::kZ2D: return "Z2D";
    case FftPlanType::kZ2Z: return "Z2Z";
  }
  return "?";
}

std::string FftPlan::ExecName() const { return "cufftExec" + std::string(FftPlanTypeName(type)); }

std::string FftPlan::ScalName() const {
  if (scale == 1) return "";
  switch (type) {
    case FftPlanType::kC2C: return "cublasCsscal";
    case FftPlanType::kZ2Z: return "cublasZdscal";
    case FftPlanType::kC2R: return "cublasSscal";
    case FftPlanType::kZ2D: return "cublasDscal";
    default: return "";
  }
}

std::string FftPlan::ToString() const {
  std::string out = ExecName() + (type == FftPlanType::kC2C || type == FftPlanType::kZ2Z
                                      ? (inverse ? " inverse" : " forward")
                                      : "") +
                    " n=" + Dims(lengths) + " batch=" + std::to_string(batch);
  if (scale != 1) {
    int64_t n = 1;
    for (int64_t l : lengths) n *= l;
    out += ", " + ScalName() + " 1/" + std::to_string(n);
  }
  return out;
}

StatusOr<FftPlan> PlanFft(const Instruction& fft) {
  if (fft.opcode() != Opcode::kFft) return InvalidArgument(fft.name() + " is not an fft");
  if (fft.operand_count() != 1) return Refuse(fft, "an fft takes one operand");
  const Shape& in = fft.operand(0)->shape();
  const Shape& out = fft.shape();
  if (!in.IsArray() || !out.IsArray()) return Refuse(fft, "its operand and result must be arrays");
  const FftType kind = fft.attrs().fft_type.value_or(FftType::kFft);
  FftPlan plan;
  plan.lengths = fft.attrs().fft_length;
  const int64_t rank = static_cast<int64_t>(plan.lengths.size());
  if (rank < 1 || rank > 3 || rank > in.rank() || out.rank() != in.rank()) {
    return Refuse(fft, "fft_length must name 1 to 3 trailing dimensions of the operand (cuFFT's ranks)");
  }
  const PrimitiveType from = in.element_type(), to = out.element_type();
  // cuFFT's transform of each fft_type and operand/result types.
  struct Form {
    FftType kind;
    PrimitiveType from, to;
    FftPlanType type;
  };
  static constexpr Form kForms[] = {
      {FftType::kFft, PrimitiveType::kC64, PrimitiveType::kC64, FftPlanType::kC2C},
      {FftType::kFft, PrimitiveType::kC128, PrimitiveType::kC128, FftPlanType::kZ2Z},
      {FftType::kIfft, PrimitiveType::kC64, PrimitiveType::kC64, FftPlanType::kC2C},
      {FftType::kIfft, PrimitiveType::kC128, PrimitiveType::kC128, FftPlanType::kZ2Z},
      {FftType::kRfft, PrimitiveType::kF32, PrimitiveType::kC64, FftPlanType::kR2C},
      {FftType::kRfft, PrimitiveType::kF64, PrimitiveType::kC128, FftPlanType::kD2Z},
      {FftType::kIrfft, PrimitiveType::kC64, PrimitiveType::kF32, FftPlanType::kC2R},
      {FftType::kIrfft, PrimitiveType::kC128, PrimitiveType::kF64, FftPlanType::kZ2D},
  };
  const Form* form = nullptr;
  for (const Form& f : kForms) {
    if (f.kind == kind && f.from == from && f.to == to) form = &f;
  }
  if (form == nullptr) {
    return Refuse(fft, std::string(FftTypeName(kind)) + " of " + std::string(PrimitiveTypeName(from)) + " to " +
                           std::string(PrimitiveTypeName(to)) +
                           " (cuFFT transforms c64/c128, and f32/f64 for RFFT and IRFFT)");
  }
  plan.type = form->type;
  plan.inverse = kind == FftType::kIfft || kind == FftType::kIrfft;
  plan.f64 = plan.type == FftPlanType::kZ2Z || plan.type == FftPlanType::kD2Z || plan.type == FftPlanType::kZ2D;
  const int64_t first = in.rank() - rank;
  int64_t points = 1;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = first + i;
    const int64_t n = plan.lengths[static_cast<size_t>(i)];
    const bool last = i == rank - 1;
    int64_t want_in = n, want_out = n;
    if (last && kind == FftType::kRfft) want_out = n / 2 + 1;
    if (last && kind == FftType::kIrfft) want_in = n / 2 + 1;
    if (n < 0 || in.dimensions(d) != want_in || out.dimensions(d) != want_out) {
      return Refuse(fft, "operand " + in.ToString() + " and result " + out.ToString() + " do not fit fft_length " +
                             Dims(plan.lengths));
    }
    plan.input_embed.push_back(want_in);
    plan.output_embed.push_back(want_out);
    plan.input_distance *= want_in;
    plan.output_distance *= want_out;
    points *= n;
  }
  for (int64_t d = 0; d < first; ++d) {
    if (in.dimensions(d) != out.dimensions(d)) {
      return Refuse(fft, "operand " + in.ToString() + " and result " + out.ToString() + " differ in batch dimension " +
                             std::to_string(d));
    }
    plan.batch *= in.dimensions(d);
  }
  plan.empty = in.ElementCount() == 0 || out.ElementCount() == 0;
  plan.output_elements = out.ElementCount();
  plan.input_bytes = in.ByteSize();
  plan.output_bytes = out.ByteSize();
  if (plan.inverse && points > 0) plan.scale = 1.0 / static_cast<double>(points);
  plan.copies_input = plan.type == FftPlanType::kC2R || plan.type == FftPlanType::kZ2D;
  // 5 N log2 N per complex transform of N points, half that for a real one.
  const double n = static_cast<double>(std::max<int64_t>(points, 1));
  const double per = 5 * n * std::log2(std::max(2.0, n)) *
                     (plan.type == FftPlanType::kC2C || plan.type == FftPlanType::kZ2Z ? 1.0 : 0.5);
  plan.flops = static_cast<int64_t>(per * static_cast<double>(plan.batch));
  return plan;
}

namespace {

using C = std::complex<double>;

// One-dimensional unnormalized DFTs of the lines of `data` ([outer, n, inner] with the
// line along the middle dimension), exponent sign -1 (forward) or +1 (inverse). Twiddles
// from the exact index product modulo n, so long lines keep their accuracy.
void TransformLines(std::vector<C>& data, int64_t outer, int64_t n, int64_t inner, int sign) {
  if (n <= 1) return;
  std::vector<C> twiddle(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const double angle = sign * 2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
    twiddle[static_cast<size_t>(k)] = C(std::cos(angle), std::sin(angle));
  }
  std::vector<C> line(static_cast<size_t>(n)), result(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) line[static_cast<size_t>(j)] = data[static_cast<size_t>(base + j * inner)];
      for (int64_t k = 0; k < n; ++k) {
        C sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += line[static_cast<size_t>(j)] * twiddle[static_cast<size_t>(j * k % n)];
        result[static_cast<size_t>(k)] = sum;
      }
      for (int64_t k = 0; k < n; ++k) data[static_cast<size_t>(base + k * inner)] = result[static_cast<size_t>(k)];
    }
  }
}

// Transforms of the `dims` trailing dimensions (batch leading) of `data`, all of them or
// all but the last.
void TransformDims(std::vector<C>& data, int64_t batch, const std::vector<int64_t>& dims, size_t count, int sign) {
  int64_t inner_total = 1;
  for (int64_t d : dims) inner_total *= d;
  for (size_t i = 0; i < count; ++i) {
    int64_t inner = 1;
    for (size_t j = i + 1; j < dims.size(); ++j) inner *= dims[j];
    const int64_t n = dims[i];
    const int64_t outer = n == 0 ? 0 : batch * inner_total / (n * inner);
    TransformLines(data, outer, n, inner, sign);
  }
}

template <typename R>
Status RunTyped(const FftPlan& plan, const void* input, void* output) {
  const int64_t rank = static_cast<int64_t>(plan.lengths.size());
  const int64_t last = plan.lengths.back();
  std::vector<C> work;
  const int sign = plan.inverse ? 1 : -1;
  switch (plan.type) {
    case FftPlanType::kC2C:
    case FftPlanType::kZ2Z: {
      const auto* in = static_cast<const std::complex<R>*>(input);
      work.assign(in, in + plan.batch * plan.input_distance);
      TransformDims(work, plan.batch, plan.lengths, static_cast<size_t>(rank), sign);
      auto* out = static_cast<std::complex<R>*>(output);
      for (size_t i = 0; i < work.size(); ++i) out[i] = std::complex<R>(work[i] * plan.scale);
      return Status::Ok();
    }
    case FftPlanType::kR2C:
    case FftPlanType::kD2Z: {
      const auto* in = static_cast<const R*>(input);
      work.assign(in, in + plan.batch * plan.input_distance);
      TransformDims(work, plan.batch, plan.lengths, static_cast<size_t>(rank), sign);
      // The last dimension keeps its first n/2 + 1 outputs.
      auto* out = static_cast<std::complex<R>*>(output);
      const int64_t kept = plan.output_embed.back();
      const int64_t lines = plan.batch * plan.input_distance / std::max<int64_t>(last, 1);
      for (int64_t l = 0; l < lines; ++l) {
        for (int64_t k = 0; k < kept; ++k) out[l * kept + k] = std::complex<R>(work[static_cast<size_t>(l * last + k)]);
      }
      return Status::Ok();
    }
    case FftPlanType::kC2R:
    case FftPlanType::kZ2D: {
      // The leading dimensions' inverses on the half spectrum, then each last-dimension
      // line filled to n by Hermitian symmetry and its real part kept.
      const auto* in = static_cast<const std::complex<R>*>(input);
      work.assign(in, in + plan.batch * plan.input_distance);
      TransformDims(work, plan.batch, plan.input_embed, static_cast<size_t>(rank - 1), sign);
      const int64_t half = plan.input_embed.back();
      const int64_t lines = plan.batch * plan.input_distance / std::max<int64_t>(half, 1);
      std::vector<C> full(static_cast<size_t>(lines * last));
      for (int64_t l = 0; l < lines; ++l) {
        for (int64_t k = 0; k < last; ++k) {
          full[static_cast<size_t>(l * last + k)] = k < half ? work[static_cast<size_t>(l * half + k)]
                                                             : std::conj(work[static_cast<size_t>(l * half + last - k)]);
        }
      }
      TransformLines(full, lines, last, 1, sign);
      auto* out = static_cast<R*>(output);
      for (size_t i = 0; i < full.size(); ++i) out[i] = static_cast<R>(full[i].real() * plan.scale);
      return Status::Ok();
    }
  }
  return Internal("fft plan of unknown type");
}

}  // namespace

Status RunFftPlanOnHost(const FftPlan& plan, const void* input, void* output) {
  if (plan.empty) return Status::Ok();
  if (plan.lengths.empty()) return Internal("fft plan without lengths");
  return plan.f64 ? RunTyped<double>(plan, input, output) : RunTyped<float>(plan, input, output);
}

}  // namespace fusebox
