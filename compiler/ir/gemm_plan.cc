// Gemm library calls as cuBLAS strided batched GEMMs (see gemm_plan.h).
#include "compiler/ir/gemm_plan.h"

#include <cmath>

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>

namespace fusebox {
namespace {

Status NoPlan(const std::string& why) { return Unimplemented("no cuBLAS plan: " + why); }

}  // namespace

std::optional<GemmDataType> GemmDataTypeOf(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF16:
      return GemmDataType::kF16;
    case PrimitiveType::kBF16:
      return GemmDataType::kBF16;
    case PrimitiveType::kF32:
      return GemmDataType::kF32;
    case PrimitiveType::kF64:
      return GemmDataType::kF64;
    default:
      return std::nullopt;
  }
}

namespace {

// Row-major strides, in elements.
std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(static_cast<size_t>(shape.rank()), 1);
  for (int64_t d = shape.rank() - 2; d >= 0; --d) {
    strides[static_cast<size_t>(d)] = strides[static_cast<size_t>(d + 1)] * shape.dimensions(d + 1);
  }
  return strides;
}

// An operand's free or contracting dimensions (outermost first) merged into one strided
// dimension: its size and stride. Dimensions of size 1 take no part; merging needs each
// dimension's stride to be the next one's stride times its size.
struct Strided {
  int64_t size = 1;
  int64_t stride = 0;  // meaningful only when size > 1
};

std::optional<Strided> Merge(const std::vector<int64_t>& dims, const Shape& shape, const std::vector<int64_t>& strides) {
  Strided out;
  bool first = true;
  for (int64_t d : dims) {
    const int64_t size = shape.dimensions(d);
    if (size == 1) continue;
    const int64_t stride = strides[static_cast<size_t>(d)];
    if (!first && out.stride != stride * size) return std::nullopt;
    out.stride = stride;
    out.size *= size;
    first = false;
  }
  return out;
}

// One operand as cuBLAS's column-major matrix: its free and contracting extents merged,
// and which of them is the unit-stride (row-major minor) one.
struct OperandMatrix {
  int64_t free = 1;
  int64_t contracting = 1;
  bool free_first = true;  // contracting unit-stride: row-major [free, contracting]
  int64_t ld = 1;          // the other extent's stride
};

StatusOr<OperandMatrix> MatrixOf(const Shape& shape, const std::vector<int64_t>& strides,
                                 const std::vector<int64_t>& batch, const std::vector<int64_t>& contracting,
                                 const char* which) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
      free.push_back(d);
    }
  }
  for (int64_t d : contracting) {
    if (d < 0 || d >= rank || std::find(batch.begin(), batch.end(), d) != batch.end()) {
      return NoPlan(std::string(which) + " contracts a batch or missing dimension");
    }
  }
  OperandMatrix m;
  if (shape.ElementCount() == 0) {  // nothing to read: sizes only
    for (int64_t d : free) m.free *= shape.dimensions(d);
    for (int64_t d : contracting) m.contracting *= shape.dimensions(d);
    m.ld = std::max<int64_t>(1, m.contracting);
    return m;
  }
  std::optional<Strided> f = Merge(free, shape, strides);
  if (!f) return NoPlan(std::string(which) + "'s free dimensions do not merge into one strided dimension");
  std::optional<Strided> k = Merge(contracting, shape, strides);
  if (!k) {
    return NoPlan(std::string(which) + "'s contracting dimensions do not merge into one strided dimension "
                  "(not adjacent and in order)");
  }
  m.free = f->size;
  m.contracting = k->size;
  const bool k_unit = k->size == 1 || k->stride == 1;
  const bool f_unit = f->size == 1 || f->stride == 1;
  if (k_unit && (f->size == 1 || f->stride >= k->size)) {
    m.free_first = true;
    m.ld = std::max<int64_t>(1, f->size == 1 ? k->size : f->stride);
  } else if (f_unit && (k->size == 1 || k->stride >= f->size)) {
    m.free_first = false;
    m.ld = std::max<int64_t>(1, k->size == 1 ? f->size : k->stride);
  } else {
    return NoPlan(std::string(which) + "'s free and contracting dimensions interleave (neither is its minor "
                  "dimension)");
  }
  return m;
}

}  // namespace

namespace {

// cuBLASLt's epilogue: it adds the bias along the rows of its column-major D (m, the
// product of the rhs's free dimensions); that is the row-major result's last dimension
// when m equals its size.
Status PlanEpilogue(const LibraryCall& call, const Shape& out, GemmPlan& plan) {
  plan.epilogue = call.epilogue;
  plan.bias_operand = call.bias_operand;
  if (call.epilogue == GemmEpilogue::kDefault) return Status::Ok();
  if (plan.c_type == GemmDataType::kF64) return NoPlan("cuBLASLt epilogues on f64 are not planned");
  if (call.bias_operand >= 0 && (out.rank() < 1 || out.dimensions(out.rank() - 1) != plan.m)) {
    return NoPlan("the bias runs along the result's last dimension, which is not cuBLASLt's m (" +
                  std::to_string(plan.m) + ")");
  }
  if (GemmEpilogueHasAux(call.epilogue)) {
    // The aux matrix is laid out as D; cuBLASLt wants its leading dimension and batch
    // stride (and so each call's offset) in multiples of 8 elements.
    bool aligned = plan.ldc % 8 == 0 && (plan.batch <= 1 || plan.c_batch_stride % 8 == 0);
    for (const GemmCallLoop& loop : plan.loops) aligned = aligned && loop.c_stride % 8 == 0;
    if (!aligned) {
      return NoPlan("cuBLASLt's GELU aux output needs a leading dimension and strides in multiples of 8 elements "
                    "(ld " + std::to_string(plan.ldc) + ")");
    }
  }
  return Status::Ok();
}

}  // namespace

std::string_view GemmEpilogueName(GemmEpilogue epilogue) {
  switch (epilogue) {
    case GemmEpilogue::kDefault:
      return "DEFAULT";
    case GemmEpilogue::kBias:
      return "BIAS";
    case GemmEpilogue::kRelu:
      return "RELU";
    case GemmEpilogue::kBiasRelu:
      return "BIAS_RELU";
    case GemmEpilogue::kGelu:
      return "GELU";
    case GemmEpilogue::kBiasGelu:
      return "BIAS_GELU";
    case GemmEpilogue::kGeluAux:
      return "GELU_AUX";
    case GemmEpilogue::kBiasGeluAux:
      return "BIAS_GELU_AUX";
  }
  return "?";
}

std::string_view GemmDataTypeName(GemmDataType type) {
  switch (type) {
    case GemmDataType::kF16:
      return "f16";
    case GemmDataType::kBF16:
      return "bf16";
    case GemmDataType::kF32:
      return "f32";
    case GemmDataType::kF64:
      return "f64";
  }
  return "?";
}

int64_t GemmDataTypeBytes(GemmDataType type) {
  switch (type) {
    case GemmDataType::kF16:
    case GemmDataType::kBF16:
      return 2;
    case GemmDataType::kF32:
      return 4;
    case GemmDataType::kF64:
      return 8;
  }
  return 4;
}

bool GemmPlanRunsOnCublasLt(const GemmPlan& plan) {
  if (plan.epilogue != GemmEpilogue::kDefault) return true;
  return !plan.empty && plan.compute != GemmComputeType::kF64 && plan.a.type != GemmDataType::kF64 &&
         plan.b.type != GemmDataType::kF64 && plan.c_type != GemmDataType::kF64;
}

std::string GemmPlan::ToString() const { return ToString(GemmPlanRunsOnCublasLt(*this)); }

std::string GemmPlan::ToString(bool through_cublas_lt) const {
  const char* compute_name = compute == GemmComputeType::kF32FastTf32 ? "tf32"
                             : compute == GemmComputeType::kF64      ? "f64 compute"
                                                                     : "f32 compute";
  char buf[320];
  const bool lt = epilogue != GemmEpilogue::kDefault;
  std::snprintf(buf, sizeof(buf), "%s m=%lld n=%lld k=%lld batch=%lld A=rhs(%s) B=lhs(%s) %s->%s %s%s%s",
                through_cublas_lt ? "cublasLtMatmul" : "cublasGemmStridedBatchedEx", static_cast<long long>(m),
                static_cast<long long>(n), static_cast<long long>(k), static_cast<long long>(batch),
                a.transpose ? "T" : "N", b.transpose ? "T" : "N", std::string(GemmDataTypeName(a.type)).c_str(),
                std::string(GemmDataTypeName(c_type)).c_str(), compute_name, lt ? " epilogue " : "",
                lt ? std::string(GemmEpilogueName(epilogue)).c_str() : "");
  std::string text = buf;
  // " x2 calls": batch dimensions that do not merge into cuBLAS's batch, as loops of calls.
  if (!loops.empty()) text += " x" + std::to_string(calls()) + " calls";
  return text;
}

int64_t GemmPlan::calls() const {
  int64_t n = 1;
  for (const GemmCallLoop& loop : loops) n *= loop.count;
  return n;
}

namespace {

// The largest power of two dividing both (a power of two) and `bytes`; `alignment` for 0.
int64_t LowerAlignment(int64_t alignment, int64_t bytes) {
  while (alignment > 1 && bytes % alignment != 0) alignment /= 2;
  return alignment;
}

}  // namespace

GemmCallAlignment GemmCallPointerAlignment(const GemmPlan& plan, int64_t base) {
  GemmCallAlignment out{base, base, base};
  for (const GemmCallLoop& loop : plan.loops) {
    if (loop.count <= 1) continue;
    out.a = LowerAlignment(out.a, loop.a_stride * GemmDataTypeBytes(plan.a.type));
    out.b = LowerAlignment(out.b, loop.b_stride * GemmDataTypeBytes(plan.b.type));
    out.c = LowerAlignment(out.c, loop.c_stride * GemmDataTypeBytes(plan.c_type));
  }
  return out;
}

GemmPlan::Offsets GemmPlan::CallOffsets(int64_t i) const {
  Offsets offsets;
  for (auto loop = loops.rbegin(); loop != loops.rend(); ++loop) {  // innermost loop first
    const int64_t index = i % loop->count;
    i /= loop->count;
    offsets.a += index * loop->a_stride;
    offsets.b += index * loop->b_stride;
    offsets.c += index * loop->c_stride;
  }
  return offsets;
}

StatusOr<GemmPlan> PlanGemm(const LibraryCall& call, const Shape& lhs, const Shape& rhs,
                            const GemmPlanOptions& options) {
  if (call.kind != LibraryCallKind::kGemm) return NoPlan("not a gemm");
  const Shape& out = call.result;
  if (!lhs.IsArray() || !rhs.IsArray() || !out.IsArray()) return NoPlan("operands are not arrays");
  if (lhs.is_dynamic() || rhs.is_dynamic() || out.is_dynamic()) return NoPlan("dynamic shapes");
  const DotDimensionNumbers& d = call.dot;
  if (d.lhs_batch_dimensions.size() != d.rhs_batch_dimensions.size() ||
      d.lhs_contracting_dimensions.size() != d.rhs_contracting_dimensions.size()) {
    return NoPlan("batch or contracting dimension counts differ between the operands");
  }
  const size_t nb = d.lhs_batch_dimensions.size();
  for (size_t i = 0; i < nb; ++i) {
    const int64_t ld = d.lhs_batch_dimensions[i], rd = d.rhs_batch_dimensions[i];
    if (ld < 0 || ld >= lhs.rank() || rd < 0 || rd >= rhs.rank()) return NoPlan("a batch dimension is missing");
    if (lhs.dimensions(ld) != rhs.dimensions(rd)) return NoPlan("batch sizes differ");
  }
  for (size_t i = 0; i < d.lhs_contracting_dimensions.size(); ++i) {
    const int64_t ld = d.lhs_contracting_dimensions[i], rd = d.rhs_contracting_dimensions[i];
    if (ld < 0 || ld >= lhs.rank() || rd < 0 || rd >= rhs.rank()) return NoPlan("a contracting dimension is missing");
    if (lhs.dimensions(ld) != rhs.dimensions(rd)) return NoPlan("contracting sizes differ");
  }
  const std::vector<int64_t> ls = RowMajorStrides(lhs), rs = RowMajorStrides(rhs), os = RowMajorStrides(out);
  if (out.rank() < static_cast<int64_t>(nb)) return NoPlan("the result has fewer dimensions than batch dimensions");
  ASSIGN_OR_RETURN(OperandMatrix l, MatrixOf(lhs, ls, d.lhs_batch_dimensions, d.lhs_contracting_dimensions, "lhs"));
  ASSIGN_OR_RETURN(OperandMatrix r, MatrixOf(rhs, rs, d.rhs_batch_dimensions, d.rhs_contracting_dimensions, "rhs"));
  // Batch dimensions in the dot's order (the result's leading ones), merged where their
  // strides allow in all three buffers; each group is [size, lhs, rhs, result stride].
  std::vector<std::array<int64_t, 4>> groups;
  int64_t batch = 1;
  for (size_t i = 0; i < nb; ++i) {
    const int64_t size = lhs.dimensions(d.lhs_batch_dimensions[i]);
    batch *= size;
    if (size == 1) continue;
    const std::array<int64_t, 4> dim = {size, ls[static_cast<size_t>(d.lhs_batch_dimensions[i])],
                                        rs[static_cast<size_t>(d.rhs_batch_dimensions[i])], os[i]};
    if (!groups.empty()) {
      std::array<int64_t, 4>& g = groups.back();
      if (g[1] == dim[1] * size && g[2] == dim[2] * size && g[3] == dim[3] * size) {
        g = {g[0] * size, dim[1], dim[2], dim[3]};
        continue;
      }
    }
    groups.push_back(dim);
  }
  if (l.contracting != r.contracting) return NoPlan("contracting sizes differ");
  // The result is [batch..., lhs free..., rhs free...]: row-major [batch, M, N].
  if (out.ElementCount() != batch * l.free * r.free) return NoPlan("the result's size is not batch x M x N");

  const std::optional<GemmDataType> lt = GemmDataTypeOf(lhs.element_type());
  const std::optional<GemmDataType> rt = GemmDataTypeOf(rhs.element_type());
  const std::optional<GemmDataType> ct = GemmDataTypeOf(out.element_type());
  if (!lt || !rt || !ct || *lt != *rt) {
    return NoPlan("element types " + std::string(PrimitiveTypeName(lhs.element_type())) + " x " +
                  std::string(PrimitiveTypeName(rhs.element_type())) + " -> " +
                  std::string(PrimitiveTypeName(out.element_type())) + " are not a cuBLAS GEMM");
  }
  const bool half = *lt == GemmDataType::kF16 || *lt == GemmDataType::kBF16;
  if (!(*ct == *lt || (half && *ct == GemmDataType::kF32))) {
    return NoPlan("a " + std::string(GemmDataTypeName(*lt)) + " GEMM does not give " +
                  std::string(GemmDataTypeName(*ct)));
  }

  GemmPlan plan;
  plan.m = r.free;  // cuBLAS's m: the rhs's free size (N)
  plan.n = l.free;  // cuBLAS's n: the lhs's free size (M)
  plan.k = l.contracting;
  // cuBLAS's batch is the largest group; the others are loops of calls around it.
  plan.batch = 1;
  plan.a.batch_stride = plan.m * plan.k;
  plan.b.batch_stride = plan.k * plan.n;
  plan.c_batch_stride = plan.m * plan.n;
  if (batch == 0) groups.clear();  // an empty result: no call
  if (!groups.empty()) {
    const auto largest = std::max_element(groups.begin(), groups.end(),
                                          [](const auto& x, const auto& y) { return x[0] < y[0]; });
    plan.batch = (*largest)[0];
    plan.b.batch_stride = (*largest)[1];
    plan.a.batch_stride = (*largest)[2];
    plan.c_batch_stride = (*largest)[3];
    int64_t calls = 1;
    for (auto g = groups.begin(); g != groups.end(); ++g) {
      if (g == largest) continue;
      plan.loops.push_back(GemmCallLoop{.count = (*g)[0], .a_stride = (*g)[2], .b_stride = (*g)[1], .c_stride = (*g)[3]});
      calls *= (*g)[0];
    }
    if (calls > kMaxGemmCalls) {
      return NoPlan("its batch dimensions do not merge into one strided batch and would take " +
                    std::to_string(calls) + " cuBLAS calls (at most " + std::to_string(kMaxGemmCalls) + ")");
    }
  }
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  if (plan.m > kIntMax || plan.n > kIntMax || plan.k > kIntMax || plan.batch > kIntMax || l.ld > kIntMax ||
      r.ld > kIntMax) {
    return NoPlan("a dimension is above cuBLAS's int range");
  }
  // cuBLAS's A = rhs^T (m x k column-major). Row-major [K, N] (N minor) reads column-major
  // as N x K, ld = K's stride: no transpose. Row-major [N, K] (K minor) reads as K x N,
  // ld = N's stride: transpose.
  plan.a.operand = 1;
  plan.a.transpose = r.free_first;
  plan.a.ld = r.ld;
  plan.a.type = *rt;
  // cuBLAS's B = lhs^T (k x n column-major). Row-major [M, K] (K minor) reads as K x M,
  // ld = M's stride: no transpose. Row-major [K, M] (M minor) reads as M x K: transpose.
  plan.b.operand = 0;
  plan.b.transpose = !l.free_first;
  plan.b.ld = l.ld;
  plan.b.type = *lt;
  plan.ldc = std::max<int64_t>(1, plan.m);
  plan.c_type = *ct;
  if (*lt == GemmDataType::kF64) {
    plan.compute = GemmComputeType::kF64;
  } else {
    const bool highest = std::any_of(call.precision.begin(), call.precision.end(),
                                     [](Precision p) { return p == Precision::kHighest; });
    plan.compute = *lt == GemmDataType::kF32 && options.allow_tf32 && !highest ? GemmComputeType::kF32FastTf32
                                                                              : GemmComputeType::kF32;
  }
  plan.alpha = call.alpha;
  plan.beta = call.beta;
  plan.empty = plan.m == 0 || plan.n == 0 || batch == 0;
  if (!plan.empty && plan.k == 0) return NoPlan("an empty contraction (K = 0)");
  plan.flops = 2 * plan.m * plan.n * plan.k * batch;
  RETURN_IF_ERROR(PlanEpilogue(call, out, plan));
  return plan;
}

StatusOr<GemmPlan> PlanGemmCall(const Instruction& instruction, const GemmPlanOptions& options) {
  ASSIGN_OR_RETURN(LibraryCall call, ParseLibraryCall(instruction));
  if (call.kind != LibraryCallKind::kGemm) return NoPlan(instruction.name() + " is not a gemm");
  if (instruction.operand_count() < 2) return NoPlan(instruction.name() + " has no two operands");
  StatusOr<GemmPlan> plan =
      PlanGemm(call, instruction.operand(0)->shape(), instruction.operand(1)->shape(), options);
  if (!plan.ok()) return plan.status().WithPrefix(instruction.name() + ": ");
  if (call.bias_operand >= 0 &&
      instruction.operand(call.bias_operand)->shape().element_type() != call.result.element_type()) {
    return NoPlan(instruction.name() + ": the bias's element type is not the result's");
  }
  return plan;
}

namespace {

template <typename Acc>
Acc ApplyEpilogue(GemmEpilogue epilogue, Acc v) {
  switch (epilogue) {
    case GemmEpilogue::kRelu:
    case GemmEpilogue::kBiasRelu:
      return v > Acc(0) ? v : Acc(0);
    case GemmEpilogue::kGelu:
    case GemmEpilogue::kBiasGelu:
    case GemmEpilogue::kGeluAux:
    case GemmEpilogue::kBiasGeluAux: {
      // cuBLASLt's GELU: the tanh approximation.
      const Acc inner = Acc(0.7978845608028654) * (v + Acc(0.044715) * v * v * v);
      return Acc(0.5) * v * (Acc(1) + std::tanh(inner));
    }
    default:
      return v;
  }
}

// A 16-bit float element (f16 or bf16) on the host: read as f32, written rounded from f32,
// as cuBLAS computes such plans (f32 compute, one rounding of the result).
template <PrimitiveType kType>
struct Narrow16 {
  uint16_t bits = 0;
  Narrow16() = default;
  explicit Narrow16(float value) : bits(static_cast<uint16_t>(DoubleToFloatBits(kType, value))) {}
  explicit operator float() const { return static_cast<float>(FloatBitsToDouble(kType, bits)); }
};
static_assert(sizeof(Narrow16<PrimitiveType::kBF16>) == 2);

template <typename T, typename Acc>
void HostGemm(const GemmPlan& plan, const T* a, const T* b, T* c, const T* bias, T* aux) {
  // Column-major: element (i, j) of an ld-major matrix is at i + j * ld.
  auto at = [](const T* base, bool transpose, int64_t ld, int64_t row, int64_t col) {
    return transpose ? base[col + row * ld] : base[row + col * ld];
  };
  for (int64_t call = 0; call < plan.calls(); ++call) {
    const GemmPlan::Offsets offsets = plan.CallOffsets(call);
    for (int64_t batch = 0; batch < plan.batch; ++batch) {
      const T* ab = a + offsets.a + batch * plan.a.batch_stride;
      const T* bb = b + offsets.b + batch * plan.b.batch_stride;
      T* cb = c + offsets.c + batch * plan.c_batch_stride;
      T* auxb = aux != nullptr ? aux + offsets.c + batch * plan.c_batch_stride : nullptr;  // laid out as D
      for (int64_t j = 0; j < plan.n; ++j) {
        for (int64_t i = 0; i < plan.m; ++i) {
          Acc sum = 0;
          for (int64_t p = 0; p < plan.k; ++p) {
            sum += static_cast<Acc>(at(ab, plan.a.transpose, plan.a.ld, i, p)) *
                   static_cast<Acc>(at(bb, plan.b.transpose, plan.b.ld, p, j));
          }
          T& out = cb[i + j * plan.ldc];
          const Acc prior = plan.beta != 0 ? static_cast<Acc>(out) * static_cast<Acc>(plan.beta) : Acc(0);
          // cuBLASLt adds the bias along D's rows (i), then applies the activation.
          const Acc shift = bias != nullptr ? static_cast<Acc>(bias[i]) : Acc(0);
          const Acc input = static_cast<Acc>(plan.alpha) * sum + prior + shift;
          if (auxb != nullptr) auxb[i + j * plan.ldc] = static_cast<T>(input);  // the activation's input
          out = static_cast<T>(ApplyEpilogue(plan.epilogue, input));
        }
      }
    }
  }
}

}  // namespace

Status RunGemmPlanOnHost(const GemmPlan& plan, const void* lhs, const void* rhs, void* out, const void* bias,
                         void* aux) {
  if (plan.empty) return Status::Ok();
  if (plan.bias_operand >= 0 && bias == nullptr) return InvalidArgument("the plan's bias epilogue has no bias");
  if (GemmEpilogueHasAux(plan.epilogue) && aux == nullptr) {
    return InvalidArgument("the plan's " + std::string(GemmEpilogueName(plan.epilogue)) + " epilogue has no aux buffer");
  }
  if (!GemmEpilogueHasAux(plan.epilogue)) aux = nullptr;
  const void* a = plan.a.operand == 0 ? lhs : rhs;
  const void* b = plan.b.operand == 0 ? lhs : rhs;
  if (plan.a.type != plan.c_type || plan.b.type != plan.c_type) {
    return Unimplemented("the host GEMM runs plans of one type only, not " + plan.ToString());
  }
  switch (plan.c_type) {
    case GemmDataType::kF16: {
      using H = Narrow16<PrimitiveType::kF16>;
      HostGemm<H, float>(plan, static_cast<const H*>(a), static_cast<const H*>(b), static_cast<H*>(out),
                         static_cast<const H*>(bias), static_cast<H*>(aux));
      return Status::Ok();
    }
    case GemmDataType::kBF16: {
      using B = Narrow16<PrimitiveType::kBF16>;
      HostGemm<B, float>(plan, static_cast<const B*>(a), static_cast<const B*>(b), static_cast<B*>(out),
                         static_cast<const B*>(bias), static_cast<B*>(aux));
      return Status::Ok();
    }
    case GemmDataType::kF32:
      HostGemm<float, float>(plan, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(out),
                             static_cast<const float*>(bias), static_cast<float*>(aux));
      return Status::Ok();
    case GemmDataType::kF64:
      HostGemm<double, double>(plan, static_cast<const double*>(a), static_cast<const double*>(b),
                               static_cast<double*>(out), static_cast<const double*>(bias),
                               static_cast<double*>(aux));
      return Status::Ok();
  }
  return Unimplemented("the host GEMM has no plan of this type: " + plan.ToString());
}

}  // namespace fusebox
