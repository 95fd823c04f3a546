#include "compiler/ir/fused_attention.h"

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "compiler/ir/backend_config.h"

namespace fusebox {
namespace {

using nlohmann::json;
using library_call_internal::PlainHloBuilder;

Status CallError(const Instruction& inst, const std::string& what) {
  return InvalidArgument("custom-call " + inst.name() + " (" + inst.attrs().custom_call_target + "): " + what);
}

Status CallUnsupported(const Instruction& inst, const std::string& what) {
  return Unimplemented("custom-call " + inst.name() + " (" + inst.attrs().custom_call_target + "): " + what);
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

struct Product {
  std::vector<int64_t> lhs_contracting, rhs_contracting, lhs_batch, rhs_batch;
};

StatusOr<Product> ReadProduct(const Instruction& inst, const json& config, const char* key) {
  if (!config.contains(key) || !config.at(key).is_object()) {
    return CallError(inst, std::string("cudnn_fmha_backend_config has no ") + key);
  }
  const json& dims = config.at(key);
  Product p;
  for (auto [field, out] : {std::pair{"lhs_contracting_dimensions", &p.lhs_contracting},
                            std::pair{"rhs_contracting_dimensions", &p.rhs_contracting},
                            std::pair{"lhs_batch_dimensions", &p.lhs_batch},
                            std::pair{"rhs_batch_dimensions", &p.rhs_batch}}) {
    StatusOr<std::vector<int64_t>> list = JsonIntegerList(dims, field);
    if (!list.ok()) return CallError(inst, std::string(key) + ": " + list.status().message());
    *out = *list;
  }
  return p;
}

// One side of a product over a rank-4 operand: batch dimensions (batch, head) and one
// contracted dimension, which is the operand's sequence (`contracts_sequence`) or its
// feature dimension; the one left is the other.
StatusOr<AttentionDims> SideDims(const Instruction& inst, const char* product, const char* operand,
                                 const std::vector<int64_t>& batch, const std::vector<int64_t>& contracting,
                                 bool contracts_sequence) {
  if (batch.size() != 2 || contracting.size() != 1) {
    return CallError(inst, std::string(product) + " must have two batch dimensions and one contracting dimension for " +
                               operand);
  }
  bool used[4] = {false, false, false, false};
  for (int64_t d : {batch[0], batch[1], contracting[0]}) {
    if (d < 0 || d > 3 || used[d]) {
      return CallError(inst, std::string(product) + " names dimensions " + DimsText(batch) + " and " +
                                 DimsText(contracting) + " of " + operand + ", which is rank 4");
    }
    used[d] = true;
  }
  int64_t left = 0;
  while (used[left]) ++left;
  AttentionDims dims;
  dims.batch = batch[0];
  dims.head = batch[1];
  dims.sequence = contracts_sequence ? contracting[0] : left;
  dims.feature = contracts_sequence ? left : contracting[0];
  return dims;
}

// The [B,N,T,S] side of a product: contracting `contracting`, batch {0,1}.
Status ExpectScoresSide(const Instruction& inst, const char* product, const std::vector<int64_t>& batch,
                        const std::vector<int64_t>& contracting, int64_t expected_contracting) {
  if (batch != std::vector<int64_t>{0, 1} || contracting != std::vector<int64_t>{expected_contracting}) {
    return CallUnsupported(inst, std::string(product) + " takes the scores in an order other than [B,N,T,S] (batch " +
                                     DimsText(batch) + ", contracting " + DimsText(contracting) + ")");
  }
  return Status::Ok();
}

bool IsWorkspace(const Shape& shape) {
  return shape.IsArray() && shape.rank() == 1 &&
         (shape.element_type() == PrimitiveType::kS8 || shape.element_type() == PrimitiveType::kU8);
}

bool IsAttentionType(PrimitiveType type) {
  return type == PrimitiveType::kF16 || type == PrimitiveType::kBF16 || type == PrimitiveType::kF32;
}

int64_t Size(const Shape& shape, int64_t dim) { return shape.dimensions(dim); }

}  // namespace

bool IsFusedAttentionTarget(std::string_view target) { return target.rfind("__cudnn$fmha", 0) == 0; }

bool IsFusedAttentionBackwardTarget(std::string_view target) {
  return IsFusedAttentionTarget(target) && target.find("Backward") != std::string_view::npos;
}

StatusOr<FusedAttention> ParseFusedAttention(const Instruction& inst) {
  const std::string& target = inst.attrs().custom_call_target;
  if (!IsFusedAttentionTarget(target)) return CallError(inst, "is not a cuDNN fused attention call");
  FusedAttention a;
  a.backward = IsFusedAttentionBackwardTarget(target);
  const std::string_view kind = std::string_view(target).substr(std::string_view("__cudnn$fmha").size());
  if (kind.find("F8") != std::string_view::npos) {
    return CallUnsupported(inst, "fp8 fused attention (its scales and amax outputs) is not modelled");
  }
  const std::string_view base = a.backward ? kind.substr(0, kind.size() - std::string_view("Backward").size()) : kind;
  if (base == "ScaleBiasSoftmax" || base == "ScaleBiasSoftmaxDropout") {
    a.has_bias = true;
  } else if (base != "Softmax" && base != "SoftmaxDropout") {
    return CallUnsupported(inst, "fused attention " + target + " is not one Fusebox knows");
  }

  std::optional<json> whole = BackendConfigJson(inst);
  if (!whole || !whole->is_object() || !whole->contains("cudnn_fmha_backend_config") ||
      !whole->at("cudnn_fmha_backend_config").is_object()) {
    return CallError(inst, "has no cudnn_fmha_backend_config in its backend_config (XLA writes the attention's "
                           "scale, mask and dimensions there)");
  }
  const json& config = whole->at("cudnn_fmha_backend_config");
  if (JsonNumberOr(config, "dropout_rate", 0) != 0) {
    return CallUnsupported(inst, "dropout (rate " + std::to_string(JsonNumberOr(config, "dropout_rate", 0)) +
                                     ") draws cuDNN's own random numbers, which Fusebox does not reproduce");
  }
  if (!JsonBoolOr(config, "is_flash_attention", true)) {
    return CallUnsupported(inst, "pre-flash fused attention (is_flash_attention false) is not modelled");
  }
  if (JsonNumberOr(config, "max_seg_per_batch", 1) > 1) {
    return CallUnsupported(inst, "packed sequences (max_seg_per_batch " +
                                     std::to_string(static_cast<int64_t>(JsonNumberOr(config, "max_seg_per_batch", 1))) +
                                     ", with offsets) are not modelled");
  }
  if (JsonBoolOr(config, "is_paged_attention", false)) return CallUnsupported(inst, "paged attention is not modelled");
  a.scale = JsonNumberOr(config, "fmha_scale", 1);
  const std::string mask = JsonStringOr(config, "mask_type", JsonBoolOr(config, "is_causal_mask", false) ? "CAUSAL" : "NO_MASK");
  if (mask == "NO_MASK") a.mask = AttentionMask::kNone;
  else if (mask == "CAUSAL") a.mask = AttentionMask::kCausal;
  else if (mask == "PADDING") a.mask = AttentionMask::kPadding;
  else if (mask == "PADDING_CAUSAL") a.mask = AttentionMask::kPaddingCausal;
  else return CallUnsupported(inst, "mask_type " + mask + " is not modelled");
  const double window = JsonNumberOr(config, "sliding_window_length", 0);
  if (window < 0 || window != static_cast<double>(static_cast<int64_t>(window))) {
    return CallError(inst, "sliding_window_length is not a count");
  }
  a.sliding_window = static_cast<int64_t>(window);
  const bool padding = a.mask == AttentionMask::kPadding || a.mask == AttentionMask::kPaddingCausal;

  // Operands.
  int64_t next = a.backward ? 5 : 3;
  if (a.backward) {
    a.stats = 3;
    a.d_output = 4;
  }
  if (a.has_bias) a.bias = next++;
  if (a.backward) a.output = next++;
  if (padding) {
    a.q_seqlen = next++;
    a.kv_seqlen = next++;
  }
  if (inst.operand_count() != next) {
    return CallError(inst, "has " + std::to_string(inst.operand_count()) + " operands; with mask " + mask +
                               (a.has_bias ? " and a bias" : "") + " it takes " + std::to_string(next));
  }
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    if (!inst.operand(i)->shape().IsArray()) return CallError(inst, "operand " + std::to_string(i) + " is not an array");
  }
  for (int64_t i : {0, 1, 2}) {
    const Shape& s = inst.operand(i)->shape();
    if (s.rank() != 4 || !IsAttentionType(s.element_type())) {
      return CallError(inst, "operand " + std::to_string(i) + " (" + s.ToString(false) +
                                 ") is not a rank-4 f16, bf16 or f32 array of q, k or v");
    }
  }

  // Where batch, head, sequence and feature are, from the products' dimension numbers.
  if (!a.backward) {
    ASSIGN_OR_RETURN(Product bmm1, ReadProduct(inst, config, "bmm1_dot_dimension_numbers"));
    ASSIGN_OR_RETURN(Product bmm2, ReadProduct(inst, config, "bmm2_dot_dimension_numbers"));
    ASSIGN_OR_RETURN(a.q, SideDims(inst, "bmm1", "q", bmm1.lhs_batch, bmm1.lhs_contracting, false));
    ASSIGN_OR_RETURN(a.k, SideDims(inst, "bmm1", "k", bmm1.rhs_batch, bmm1.rhs_contracting, false));
    RETURN_IF_ERROR(ExpectScoresSide(inst, "bmm2", bmm2.lhs_batch, bmm2.lhs_contracting, 3));
    ASSIGN_OR_RETURN(a.v, SideDims(inst, "bmm2", "v", bmm2.rhs_batch, bmm2.rhs_contracting, true));
  } else {
    // bmm1_grad_gemm1: dS^T.q -> dK; bmm1_grad_gemm2: dS.k -> dQ;
    // bmm2_grad_gemm1: P^T.dO -> dV; bmm2_grad_gemm2: dO.v^T -> dP.
    ASSIGN_OR_RETURN(Product g11, ReadProduct(inst, config, "bmm1_grad_gemm1_dot_dimension_numbers"));
    ASSIGN_OR_RETURN(Product g12, ReadProduct(inst, config, "bmm1_grad_gemm2_dot_dimension_numbers"));
    ASSIGN_OR_RETURN(Product g21, ReadProduct(inst, config, "bmm2_grad_gemm1_dot_dimension_numbers"));
    ASSIGN_OR_RETURN(Product g22, ReadProduct(inst, config, "bmm2_grad_gemm2_dot_dimension_numbers"));
    RETURN_IF_ERROR(ExpectScoresSide(inst, "bmm1_grad_gemm1", g11.lhs_batch, g11.lhs_contracting, 2));
    RETURN_IF_ERROR(ExpectScoresSide(inst, "bmm1_grad_gemm2", g12.lhs_batch, g12.lhs_contracting, 3));
    RETURN_IF_ERROR(ExpectScoresSide(inst, "bmm2_grad_gemm1", g21.lhs_batch, g21.lhs_contracting, 2));
    ASSIGN_OR_RETURN(a.q, SideDims(inst, "bmm1_grad_gemm1", "q", g11.rhs_batch, g11.rhs_contracting, true));
    ASSIGN_OR_RETURN(a.k, SideDims(inst, "bmm1_grad_gemm2", "k", g12.rhs_batch, g12.rhs_contracting, true));
    ASSIGN_OR_RETURN(a.v, SideDims(inst, "bmm2_grad_gemm2", "v", g22.rhs_batch, g22.rhs_contracting, false));
    ASSIGN_OR_RETURN(a.grad_output, SideDims(inst, "bmm2_grad_gemm2", "dO", g22.lhs_batch, g22.lhs_contracting, false));
    ASSIGN_OR_RETURN(AttentionDims again, SideDims(inst, "bmm2_grad_gemm1", "dO", g21.rhs_batch, g21.rhs_contracting, true));
    if (again.AsArray() != a.grad_output.AsArray()) {
      return CallError(inst, "bmm2_grad_gemm1 and bmm2_grad_gemm2 disagree on where dO's dimensions are");
    }
  }

  // Sizes.
  const Shape& q = inst.operand(0)->shape();
  const Shape& k = inst.operand(1)->shape();
  const Shape& v = inst.operand(2)->shape();
  a.batch = Size(q, a.q.batch);
  a.heads = Size(q, a.q.head);
  a.q_length = Size(q, a.q.sequence);
  a.qk_features = Size(q, a.q.feature);
  a.kv_heads = Size(k, a.k.head);
  a.kv_length = Size(k, a.k.sequence);
  a.v_features = Size(v, a.v.feature);
  if (Size(k, a.k.batch) != a.batch || Size(v, a.v.batch) != a.batch || Size(k, a.k.feature) != a.qk_features ||
      Size(v, a.v.head) != a.kv_heads || Size(v, a.v.sequence) != a.kv_length) {
    return CallError(inst, "q " + q.ToString(false) + ", k " + k.ToString(false) + " and v " + v.ToString(false) +
                               " disagree on batch, heads, key length or features");
  }
  if (a.kv_heads <= 0 || a.heads % a.kv_heads != 0) {
    return CallError(inst, "q's " + std::to_string(a.heads) + " heads are not a multiple of k's " +
                               std::to_string(a.kv_heads));
  }
  if (q.element_type() != k.element_type() || q.element_type() != v.element_type()) {
    return CallError(inst, "q, k and v are not of one element type");
  }
  const std::vector<int64_t> scores = {a.batch, a.heads, a.q_length, a.kv_length};
  if (a.has_bias) {
    const Shape& bias = inst.operand(a.bias)->shape();
    bool fits = bias.rank() == 4 && IsAttentionType(bias.element_type());
    for (int64_t d = 0; fits && d < 4; ++d) fits = bias.dimensions(d) == scores[d] || bias.dimensions(d) == 1;
    if (!fits) {
      return CallError(inst, "the bias " + bias.ToString(false) + " does not broadcast to the scores " +
                                 DimsText(scores) + " (each dimension that size or 1)");
    }
  }
  for (int64_t operand : {a.q_seqlen, a.kv_seqlen}) {
    if (operand < 0) continue;
    const Shape& s = inst.operand(operand)->shape();
    if (s.element_type() != PrimitiveType::kS32 || s.rank() != 1 || s.dimensions(0) != a.batch) {
      return CallError(inst, "operand " + std::to_string(operand) + " (" + s.ToString(false) +
                                 ") is not the s32[" + std::to_string(a.batch) + "] sequence lengths mask " + mask +
                                 " needs");
    }
  }
  const std::vector<int64_t> rows = {a.batch, a.heads, a.q_length};
  if (a.backward) {
    const Shape& stats = inst.operand(a.stats)->shape();
    if (stats.element_type() != PrimitiveType::kF32 || stats.dimensions() != rows) {
      return CallError(inst, "operand 3 (" + stats.ToString(false) + ") is not the forward's softmax statistics f32" +
                                 DimsText(rows));
    }
    const Shape& d_out = inst.operand(a.d_output)->shape();
    const Shape& out = inst.operand(a.output)->shape();
    const AttentionDims& g = a.grad_output;
    if (d_out.rank() != 4 || !IsAttentionType(d_out.element_type()) || out.dimensions() != d_out.dimensions() ||
        !IsAttentionType(out.element_type()) || Size(d_out, g.batch) != a.batch || Size(d_out, g.head) != a.heads ||
        Size(d_out, g.sequence) != a.q_length || Size(d_out, g.feature) != a.v_features) {
      return CallError(inst, "dO " + d_out.ToString(false) + " and the forward's output " + out.ToString(false) +
                                 " are not the attention's output shape");
    }
  }

  // Results.
  const Shape& shape = inst.shape();
  auto element = [&](int64_t i) -> const Shape& { return shape.IsTuple() ? shape.tuple_shapes(i) : shape; };
  const int64_t count = shape.IsTuple() ? shape.tuple_size() : 1;
  auto expect = [&](int64_t i, const std::vector<int64_t>& dims, const char* what) -> Status {
    if (i >= count || !element(i).IsArray() || element(i).dimensions() != dims || !IsAttentionType(element(i).element_type())) {
      return CallError(inst, "result element " + std::to_string(i) + " must be " + what + ", a float array " +
                                 DimsText(dims) + "; the result is " + shape.ToString(false));
    }
    return Status::Ok();
  };
  int64_t first_workspace = 1;
  if (!a.backward) {
    RETURN_IF_ERROR(expect(0, {a.batch, a.heads, a.q_length, a.v_features}, "the output [B,N,T,H]"));
    if (count > 1 && element(1).IsArray() && !IsWorkspace(element(1))) {
      if (element(1).element_type() == PrimitiveType::kF32 && element(1).dimensions() == rows) {
        a.writes_stats = true;
      } else if (element(1).dimensions() == scores && IsAttentionType(element(1).element_type())) {
        a.writes_probabilities = true;
      } else {
        return CallError(inst, "result element 1 (" + element(1).ToString(false) +
                                   ") is neither the softmax statistics f32" + DimsText(rows) +
                                   " nor the probabilities " + DimsText(scores));
      }
      first_workspace = 2;
    }
  } else {
    RETURN_IF_ERROR(expect(0, {a.batch, a.heads, a.q_length, a.qk_features}, "dQ"));
    RETURN_IF_ERROR(expect(1, {a.batch, a.kv_heads, a.kv_length, a.qk_features}, "dK"));
    RETURN_IF_ERROR(expect(2, {a.batch, a.kv_heads, a.kv_length, a.v_features}, "dV"));
    first_workspace = 3;
    if (count > 3 && !IsWorkspace(element(3))) {
      if (!a.has_bias || !element(3).IsArray() ||
          element(3).dimensions() != inst.operand(a.bias)->shape().dimensions()) {
        return CallError(inst, "result element 3 (" + element(3).ToString(false) + ") is not dbias of the bias's shape");
      }
      a.writes_dbias = true;
      first_workspace = 4;
    }
  }
  for (int64_t i = first_workspace; i < count; ++i) {
    if (!IsWorkspace(element(i))) {
      return CallUnsupported(inst, "result element " + std::to_string(i) + " (" + element(i).ToString(false) +
                                       ") is not a workspace; no such output of fused attention is modelled");
    }
  }
  return a;
}

namespace {

// The attention's pieces in the canonical orders: q [B,N,T,H], k and v [B,N,S,H] (key
// heads repeated for grouped-query attention), scores [B,N,T,S] in f32.
class AttentionEmitter {
 public:
  AttentionEmitter(const FusedAttention& a, PlainHloBuilder& b, const std::vector<Instruction*>& params)
      : a_(a), b_(b), params_(params) {}

  std::vector<int64_t> Scores() const { return {a_.batch, a_.heads, a_.q_length, a_.kv_length}; }
  std::vector<int64_t> Rows() const { return {a_.batch, a_.heads, a_.q_length}; }

  Instruction* Canonical(Instruction* x, const AttentionDims& dims) {
    return b_.Transpose(x, {dims.batch, dims.head, dims.sequence, dims.feature});
  }
  // [B,Nk,S,H] -> [B,N,S,H]: key head n / G for query head n.
  Instruction* RepeatHeads(Instruction* x) {
    if (a_.kv_heads == a_.heads) return x;
    const int64_t group = a_.heads / a_.kv_heads;
    const std::vector<int64_t>& d = x->shape().dimensions();
    Instruction* wide = b_.Broadcast(x, PlainHloBuilder::Array(x->shape().element_type(), {d[0], d[1], group, d[2], d[3]}),
                                     {0, 1, 3, 4});
    return b_.Reshape(wide, {d[0], a_.heads, d[2], d[3]});
  }
  // [B,N,S,H] -> [B,Nk,S,H]: the sum over each key head's group.
  Instruction* SumGroups(Instruction* x) {
    if (a_.kv_heads == a_.heads) return x;
    const std::vector<int64_t>& d = x->shape().dimensions();
    Instruction* grouped = b_.Reshape(x, {d[0], a_.kv_heads, a_.heads / a_.kv_heads, d[2], d[3]});
    return b_.Reduce(grouped, {2}, Opcode::kAdd, 0);
  }
  // lhs [B,N,a,b] . rhs [B,N,c,d] over lhs dimension `lc` and rhs dimension `rc`, in f32.
  Instruction* Product(Instruction* lhs, Instruction* rhs, int64_t lc, int64_t rc) {
    DotDimensionNumbers dims;
    dims.lhs_batch_dimensions = {0, 1};
    dims.rhs_batch_dimensions = {0, 1};
    dims.lhs_contracting_dimensions = {lc};
    dims.rhs_contracting_dimensions = {rc};
    const std::vector<int64_t>& l = lhs->shape().dimensions();
    const std::vector<int64_t>& r = rhs->shape().dimensions();
    return b_.Dot(PlainHloBuilder::Array(PrimitiveType::kF32, {l[0], l[1], l[lc == 2 ? 3 : 2], r[rc == 2 ? 3 : 2]}), lhs,
                  rhs, std::move(dims));
  }
  // scale * q.k^T (+ bias), f32 [B,N,T,S].
  Instruction* Logits(Instruction* q, Instruction* k) {
    Instruction* logits = b_.Scale(Product(q, k, 3, 3), a_.scale);
    if (!a_.has_bias) return logits;
    Instruction* bias = b_.Convert(params_[a_.bias], PrimitiveType::kF32);
    std::vector<int64_t> kept, kept_dims;
    const std::vector<int64_t> scores = Scores();
    for (int64_t d = 0; d < 4; ++d) {
      if (bias->shape().dimensions(d) == scores[d]) {
        kept.push_back(d);
        kept_dims.push_back(scores[d]);
      }
    }
    Instruction* wide = b_.Broadcast(b_.Reshape(bias, kept_dims), logits->shape(), kept);
    return b_.Binary(Opcode::kAdd, logits, wide);
  }
  // Which scores a query sees: pred [B,N,T,S], or nullptr when all.
  Instruction* Mask() {
    const std::vector<int64_t> scores = Scores();
    Instruction* mask = nullptr;
    auto both = [&](Instruction* m) { mask = mask == nullptr ? m : b_.Binary(Opcode::kAnd, mask, m); };
    const bool causal = a_.mask == AttentionMask::kCausal || a_.mask == AttentionMask::kPaddingCausal;
    Instruction* rows = nullptr;
    Instruction* cols = nullptr;
    auto iotas = [&] {
      if (rows == nullptr) {
        rows = b_.Iota(scores, 2);
        cols = b_.Iota(scores, 3);
      }
    };
    if (causal || a_.sliding_window > 0) {
      iotas();
      both(b_.Compare(cols, rows, ComparisonDirection::kLe));
    }
    if (a_.sliding_window > 0) {
      Instruction* reach = b_.Binary(Opcode::kAdd, cols, b_.Splat(static_cast<double>(a_.sliding_window), cols->shape()));
      both(b_.Compare(reach, rows, ComparisonDirection::kGt));
    }
    if (a_.q_seqlen >= 0) {
      iotas();
      const Shape s32 = PlainHloBuilder::Array(PrimitiveType::kS32, scores);
      both(b_.Compare(rows, b_.Broadcast(params_[a_.q_seqlen], s32, {0}), ComparisonDirection::kLt));
      both(b_.Compare(cols, b_.Broadcast(params_[a_.kv_seqlen], s32, {0}), ComparisonDirection::kLt));
    }
    return mask;
  }
  Instruction* AlongRows(Instruction* rows) {
    return b_.Broadcast(rows, PlainHloBuilder::WithType(PlainHloBuilder::Array(PrimitiveType::kF32, Scores()),
                                                        rows->shape().element_type()),
                        {0, 1, 2});
  }
  // Where `mask` (may be nullptr) is false: `otherwise`.
  Instruction* Masked(Instruction* mask, Instruction* x, double otherwise) {
    return mask == nullptr ? x : b_.Select(mask, x, b_.Splat(otherwise, x->shape()));
  }

  const FusedAttention& a_;
  PlainHloBuilder& b_;
  const std::vector<Instruction*>& params_;
};

}  // namespace

std::vector<Instruction*> EmitFusedAttention(const Instruction& call, const FusedAttention& a, PlainHloBuilder& b,
                                             const std::vector<Instruction*>& params) {
  AttentionEmitter e(a, b, params);
  const Shape& shape = call.shape();
  auto element = [&](int64_t i) -> const Shape& { return shape.IsTuple() ? shape.tuple_shapes(i) : shape; };
  const int64_t count = shape.IsTuple() ? shape.tuple_size() : 1;
  const PrimitiveType f32 = PrimitiveType::kF32;
  const double inf = PlainHloBuilder::Infinity();

  Instruction* q = e.Canonical(params[0], a.q);
  Instruction* k = e.RepeatHeads(e.Canonical(params[1], a.k));
  Instruction* v = e.RepeatHeads(e.Canonical(params[2], a.v));
  Instruction* logits = e.Logits(q, k);
  Instruction* mask = e.Mask();
  std::vector<Instruction*> results;
  if (!a.backward) {
    Instruction* seen = e.Masked(mask, logits, -inf);
    Instruction* max = b.Reduce(seen, {3}, Opcode::kMaximum, -inf);
    if (mask != nullptr) {  // a row that sees no key: 0, so that its exponentials are 0, not NaN
      max = b.Select(b.Compare(max, b.Splat(-inf, max->shape()), ComparisonDirection::kEq), b.Splat(0, max->shape()), max);
    }
    Instruction* exp = b.Unary(Opcode::kExp, b.Binary(Opcode::kSubtract, seen, e.AlongRows(max)));
    Instruction* sum = b.Reduce(exp, {3}, Opcode::kAdd, 0);
    Instruction* probabilities = b.Binary(Opcode::kDivide, exp, e.AlongRows(sum));
    if (mask != nullptr) {  // and its probabilities 0 (0/0 otherwise)
      probabilities = b.Select(e.AlongRows(b.GreaterThanZero(sum)), probabilities, b.Splat(0, probabilities->shape()));
    }
    Instruction* output = e.Product(b.Convert(probabilities, v->shape().element_type()), v, 3, 2);
    results.push_back(b.Convert(output, element(0).element_type()));
    if (a.writes_stats) results.push_back(b.Binary(Opcode::kAdd, max, b.Unary(Opcode::kLog, sum)));
    if (a.writes_probabilities) results.push_back(b.Convert(probabilities, element(1).element_type()));
  } else {
    Instruction* stats = b.Convert(params[a.stats], f32);
    Instruction* probabilities = e.Masked(mask, b.Unary(Opcode::kExp, b.Binary(Opcode::kSubtract, logits, e.AlongRows(stats))), 0);
    Instruction* d_output = e.Canonical(params[a.d_output], a.grad_output);
    Instruction* output = e.Canonical(params[a.output], a.grad_output);
    Instruction* dv = e.Product(b.Convert(probabilities, d_output->shape().element_type()), d_output, 2, 2);
    Instruction* dp = e.Product(d_output, v, 3, 3);
    Instruction* row_dot = b.Reduce(b.Binary(Opcode::kMultiply, b.Convert(d_output, f32), b.Convert(output, f32)), {3},
                                    Opcode::kAdd, 0);
    Instruction* ds = b.Binary(Opcode::kMultiply, probabilities, b.Binary(Opcode::kSubtract, dp, e.AlongRows(row_dot)));
    Instruction* ds_low = b.Convert(ds, q->shape().element_type());
    Instruction* dq = b.Scale(e.Product(ds_low, k, 3, 2), a.scale);
    Instruction* dk = b.Scale(e.Product(ds_low, q, 2, 2), a.scale);
    results.push_back(b.Convert(dq, element(0).element_type()));
    results.push_back(b.Convert(e.SumGroups(dk), element(1).element_type()));
    results.push_back(b.Convert(e.SumGroups(dv), element(2).element_type()));
    if (a.writes_dbias) {
      const std::vector<int64_t>& bias = params[a.bias]->shape().dimensions();
      const std::vector<int64_t> scores = e.Scores();
      std::vector<int64_t> summed;
      for (int64_t d = 0; d < 4; ++d) {
        if (bias[d] != scores[d]) summed.push_back(d);
      }
      Instruction* db = summed.empty() ? ds : b.Reduce(ds, summed, Opcode::kAdd, 0);
      results.push_back(b.Convert(b.Reshape(db, bias), element(3).element_type()));
    }
  }
  for (int64_t i = static_cast<int64_t>(results.size()); i < count; ++i) results.push_back(b.Zeros(element(i)));
  return results;
}

}  // namespace fusebox
