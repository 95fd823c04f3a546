#include "compiler/passes/batch_norm_expander.h"

#include <memory>
#include <vector>

namespace fusebox::passes {

namespace {

Shape Array(PrimitiveType type, std::vector<int64_t> dims) {
  Shape shape(type, std::move(dims));
  shape.SetDefaultLayout();
  return shape;
}

// Builds one batch norm's replacement next to it, in type `type` (the computation type).
class Expansion {
 public:
  Expansion(Module& module, Instruction* norm, PrimitiveType type)
      : module_(module), norm_(norm), computation_(norm->parent()), type_(type) {
    const Shape& x = norm->operand(0)->shape();
    dims_ = x.dimensions();
    feature_ = norm->attrs().feature_index;
    for (int64_t d = 0; d < static_cast<int64_t>(dims_.size()); ++d) {
      if (d != feature_) {
        reduced_.push_back(d);
        count_ *= dims_[d];
      }
    }
    features_ = dims_[feature_];
  }

  Instruction* Add(Opcode opcode, const Shape& shape, const std::vector<Instruction*>& operands) {
    auto inst = std::make_unique<Instruction>(opcode, module_.UniqueName(std::string(OpcodeName(opcode))), shape);
    for (Instruction* operand : operands) inst->AppendOperand(operand);
    inst->set_location(norm_->location());
    if (norm_->metadata() != nullptr) inst->set_metadata(*norm_->metadata());
    return computation_->AddInstruction(std::move(inst));
  }
  Shape Full() const { return Array(type_, dims_); }
  Shape Vector() const { return Array(type_, {features_}); }

  // `x` in the computation type.
  Instruction* In(Instruction* x) {
    if (x->shape().element_type() == type_) return x;
    return Add(Opcode::kConvert, Array(type_, x->shape().dimensions()), {x});
  }
  // `x` (the computation type) in `to`.
  Instruction* Out(Instruction* x, PrimitiveType to) {
    if (to == type_) return x;
    return Add(Opcode::kConvert, Array(to, x->shape().dimensions()), {x});
  }
  Instruction* Scalar(double value) {
    auto constant = std::make_unique<Instruction>(Opcode::kConstant, module_.UniqueName("constant"), Array(type_, {}));
    auto literal = std::make_unique<Literal>(Array(type_, {}));
    literal->SetDouble(0, value);
    constant->set_literal(std::move(literal));
    return computation_->AddInstruction(std::move(constant));
  }
  // A per-feature vector along the feature dimension of the full shape.
  Instruction* Spread(Instruction* vector) {
    Instruction* b = Add(Opcode::kBroadcast, Full(), {vector});
    b->mutable_attrs().dimensions = std::vector<int64_t>{feature_};
    return b;
  }
  Instruction* Splat(double value, const Shape& shape) {
    Instruction* b = Add(Opcode::kBroadcast, shape, {Scalar(value)});
    b->mutable_attrs().dimensions = std::vector<int64_t>{};
    return b;
  }
  Instruction* Binary(Opcode op, Instruction* a, Instruction* b) { return Add(op, a->shape(), {a, b}); }
  // The per-feature sum of a full-shaped value.
  Instruction* Sum(Instruction* full) {
    Instruction* r = Add(Opcode::kReduce, Vector(), {full, Scalar(0)});
    r->mutable_attrs().dimensions = reduced_;
    r->AppendCalledComputation(Adder());
    r->set_call_form(CallForm::kToApply);
    return r;
  }
  // variance + epsilon.
  Instruction* Epsilon(Instruction* variance) {
    return Binary(Opcode::kAdd, variance, Splat(*norm_->attrs().epsilon, Vector()));
  }
  double count() const { return static_cast<double>(count_); }

 private:
  Computation* Adder() {
    auto comp = std::make_unique<Computation>(module_.UniqueName("batch_norm_add"));
    comp->set_parent(&module_);
    Instruction* p[2];
    for (int64_t i = 0; i < 2; ++i) {
      auto param = std::make_unique<Instruction>(Opcode::kParameter, module_.UniqueName(i == 0 ? "a" : "b"),
                                                 Array(type_, {}));
      param->set_parameter_number(i);
      p[i] = comp->AddInstruction(std::move(param));
    }
    auto sum = std::make_unique<Instruction>(Opcode::kAdd, module_.UniqueName("add"), Array(type_, {}));
    sum->AppendOperand(p[0]);
    sum->AppendOperand(p[1]);
    comp->set_root(comp->AddInstruction(std::move(sum)));
    return module_.AddComputation(std::move(comp));
  }

  Module& module_;
  Instruction* norm_;
  Computation* computation_;
  PrimitiveType type_;
  std::vector<int64_t> dims_, reduced_;
  int64_t feature_ = 0, features_ = 0, count_ = 1;
};

bool Expandable(const Instruction& norm) {
  const int64_t operands = norm.opcode() == Opcode::kBatchNormTraining ? 3 : 5;
  if (norm.operand_count() != operands || !norm.attrs().epsilon) return false;
  const Shape& x = norm.operand(0)->shape();
  if (!x.IsArray()) return false;
  const PrimitiveType type = x.element_type();
  if (type != PrimitiveType::kF16 && type != PrimitiveType::kBF16 && type != PrimitiveType::kF32 &&
      type != PrimitiveType::kF64) {
    return false;
  }
  const int64_t f = norm.attrs().feature_index;
  if (f < 0 || f >= x.rank()) return false;
  for (int64_t i = 1; i < operands; ++i) {
    const Shape& s = norm.operand(i)->shape();
    const bool full = norm.opcode() == Opcode::kBatchNormGrad && i == 4;
    if (!s.IsArray() || s.element_type() != type ||
        s.dimensions() != (full ? x.dimensions() : std::vector<int64_t>{x.dimensions(f)})) {
      return false;
    }
  }
  const Shape& result = norm.shape();
  if (norm.opcode() == Opcode::kBatchNormInference) return result.IsArray() && result.dimensions() == x.dimensions();
  return result.IsTuple() && result.tuple_size() == 3;
}

void Expand(Module& module, Instruction* norm) {
  const PrimitiveType type = norm->operand(0)->shape().element_type();
  const PrimitiveType compute = type == PrimitiveType::kF64 ? type : PrimitiveType::kF32;
  Expansion e(module, norm, compute);
  Instruction* x = e.In(norm->operand(0));
  Instruction* replacement = nullptr;
  switch (norm->opcode()) {
    case Opcode::kBatchNormInference: {
      Instruction* scale = e.In(norm->operand(1));
      Instruction* offset = e.In(norm->operand(2));
      Instruction* mean = e.In(norm->operand(3));
      Instruction* rs = e.Add(Opcode::kRsqrt, e.Vector(), {e.Epsilon(e.In(norm->operand(4)))});
      Instruction* xc = e.Binary(Opcode::kSubtract, x, e.Spread(mean));
      Instruction* y = e.Binary(Opcode::kMultiply, xc, e.Spread(e.Binary(Opcode::kMultiply, rs, scale)));
      replacement = e.Out(e.Binary(Opcode::kAdd, y, e.Spread(offset)), type);
      break;
    }
    case Opcode::kBatchNormTraining: {
      Instruction* scale = e.In(norm->operand(1));
      Instruction* offset = e.In(norm->operand(2));
      Instruction* mean = e.Binary(Opcode::kDivide, e.Sum(x), e.Splat(e.count(), e.Vector()));
      Instruction* xc = e.Binary(Opcode::kSubtract, x, e.Spread(mean));
      Instruction* variance =
          e.Binary(Opcode::kDivide, e.Sum(e.Binary(Opcode::kMultiply, xc, xc)), e.Splat(e.count(), e.Vector()));
      Instruction* rs = e.Add(Opcode::kRsqrt, e.Vector(), {e.Epsilon(variance)});
      Instruction* y = e.Binary(Opcode::kMultiply, xc, e.Spread(e.Binary(Opcode::kMultiply, rs, scale)));
      y = e.Binary(Opcode::kAdd, y, e.Spread(offset));
      replacement = e.Add(Opcode::kTuple, norm->shape(), {e.Out(y, type), e.Out(mean, type), e.Out(variance, type)});
      break;
    }
    default: {  // grad
      Instruction* scale = e.In(norm->operand(1));
      Instruction* mean = e.In(norm->operand(2));
      Instruction* v = e.Epsilon(e.In(norm->operand(3)));
      Instruction* dy = e.In(norm->operand(4));
      Instruction* rs = e.Add(Opcode::kRsqrt, e.Vector(), {v});
      Instruction* xc = e.Binary(Opcode::kSubtract, x, e.Spread(mean));
      Instruction* sum_dy = e.Sum(dy);
      Instruction* sum_dy_xc = e.Sum(e.Binary(Opcode::kMultiply, dy, xc));
      Instruction* grad_scale = e.Binary(Opcode::kMultiply, sum_dy_xc, rs);
      // dy - sum(dy) / N - xc * sum(dy * xc) / (N * v)
      Instruction* mean_dy = e.Binary(Opcode::kDivide, sum_dy, e.Splat(e.count(), e.Vector()));
      Instruction* slope =
          e.Binary(Opcode::kDivide, sum_dy_xc, e.Binary(Opcode::kMultiply, v, e.Splat(e.count(), e.Vector())));
      Instruction* inner = e.Binary(Opcode::kSubtract, dy, e.Spread(mean_dy));
      inner = e.Binary(Opcode::kSubtract, inner, e.Binary(Opcode::kMultiply, xc, e.Spread(slope)));
      Instruction* dx = e.Binary(Opcode::kMultiply, inner, e.Spread(e.Binary(Opcode::kMultiply, scale, rs)));
      replacement = e.Add(Opcode::kTuple, norm->shape(), {e.Out(dx, type), e.Out(grad_scale, type), e.Out(sum_dy, type)});
      break;
    }
  }
  norm->parent()->ReplaceInstruction(norm, replacement);
}

}  // namespace

StatusOr<bool> BatchNormExpander::Run(Module& module, PassContext&) {
  std::vector<Instruction*> norms;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      const Opcode op = inst->opcode();
      if ((op == Opcode::kBatchNormTraining || op == Opcode::kBatchNormInference || op == Opcode::kBatchNormGrad) &&
          Expandable(*inst)) {
        norms.push_back(inst.get());
      }
    }
  }
  for (Instruction* norm : norms) Expand(module, norm);
  return !norms.empty();
}

}  // namespace fusebox::passes
