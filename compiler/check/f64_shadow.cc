// Widening a module to f64 for the numeric check's shadow run.
#include "compiler/check/f64_shadow.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/library_calls.h"

namespace fusebox::check {

namespace {

bool Widens(PrimitiveType type) {
  return (IsFloat(type) && type != PrimitiveType::kF64) || type == PrimitiveType::kC64;
}

bool HasWideningLeaf(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      if (HasWideningLeaf(element)) return true;
    }
    return false;
  }
  return shape.IsArray() && Widens(shape.element_type());
}

// Ops whose result depends on the bits of their types, not only on values.
bool KeepsTypes(Opcode opcode) {
  switch (opcode) {
    case Opcode::kBitcastConvert:
    case Opcode::kReducePrecision:
    case Opcode::kCustomCall:
    case Opcode::kStochasticConvert:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
    case Opcode::kSend:
    case Opcode::kRecv:
    case Opcode::kRngBitGenerator:
      return true;
    default:
      return false;
  }
}

Instruction* AddOp(Module& module, Computation& computation, Opcode opcode, const std::string& name,
                   const Shape& shape, const std::vector<Instruction*>& operands) {
  auto ins = std::make_unique<Instruction>(opcode, module.UniqueName(name), shape);
  for (Instruction* op : operands) ins->AppendOperand(op);
  return computation.AddInstruction(std::move(ins));
}

Instruction* AddScalarBroadcast(Module& module, Computation& computation, const std::string& name,
                                const Shape& shape, double value) {
  auto constant = std::make_unique<Instruction>(Opcode::kConstant, module.UniqueName(name),
                                                Shape::Scalar(PrimitiveType::kF64));
  auto literal = std::make_unique<Literal>(Shape::Scalar(PrimitiveType::kF64));
  literal->SetDouble(0, value);
  constant->set_literal(std::move(literal));
  Instruction* scalar = computation.AddInstruction(std::move(constant));
  if (shape.rank() == 0) return scalar;
  Instruction* broadcast = AddOp(module, computation, Opcode::kBroadcast, name, shape, {scalar});
  broadcast->mutable_attrs().dimensions = std::vector<int64_t>{};
  return broadcast;
}


Instruction* AddConvert(Module& module, Computation& computation, Instruction* operand,
                        const Shape& shape) {
  return AddOp(module, computation, Opcode::kConvert, operand->name() + ".shadow", shape, {operand});
}

// Points every user of `from` that `users` lists (taken before `to` was made from it), and
// the computation's root, at `to`.
void Redirect(Computation& computation, Instruction* from, Instruction* to,
              const std::vector<Instruction*>& users, bool was_root) {
  for (Instruction* user : users) {
    for (int64_t i = 0; i < user->operand_count(); ++i) {
      if (user->operand(i) == from) user->ReplaceOperand(i, to);
    }
  }
  if (was_root) computation.set_root(to);
}

// True for a reducer computation that adds its two parameters.
bool AddsItsParameters(const Computation* c) {
  if (c == nullptr || c->root() == nullptr || c->parameter_count() != 2) return false;
  const Instruction* root = c->root();
  return root->opcode() == Opcode::kAdd && root->operand(0)->opcode() == Opcode::kParameter &&
         root->operand(1)->opcode() == Opcode::kParameter;
}

// A sum over terms: which operands hold the terms (the others are init values).
std::vector<int64_t> SummedOperands(const Instruction& ins) {
  switch (ins.opcode()) {
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
      if (ins.operand_count() == 2 && AddsItsParameters(ins.to_apply())) return {0};
      return {};
    default:
      // Dots and convolutions: the interpreter accumulates them in the element type in
      // sequential order, so its own error already measures theirs.
      return {};
  }
}

int64_t Product(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d >= 0 && d < shape.rank()) n *= std::max<int64_t>(shape.dimensions(d), 1);
  }
  return n;
}

// How many terms one element of `ins` sums (0: not a sum).
int64_t TermsOf(const Instruction& ins) {
  if (SummedOperands(ins).empty() || !ins.has_attributes()) return 0;
  const InstructionAttributes& a = ins.attrs();
  switch (ins.opcode()) {
    case Opcode::kReduce:
      return a.dimensions ? Product(ins.operand(0)->shape(), *a.dimensions) : 0;
    case Opcode::kReduceWindow: {
      if (!a.window) return 0;
      int64_t n = 1;
      for (const WindowDimension& w : a.window->dimensions) n *= std::max<int64_t>(w.size, 1);
      return n;
    }
    default:
      return 0;
  }
}

// Longest chain of summed terms ending at each instruction; called computations count
// with their roots' chains (their parameters start at 0).
class SumDepth {
 public:
  int64_t Of(const Instruction* ins) {
    auto it = depth_.find(ins);
    if (it != depth_.end()) return it->second;
    // Operands first, without recursion (deep graphs).
    std::vector<const Instruction*> stack = {ins};
    while (!stack.empty()) {
      const Instruction* top = stack.back();
      bool ready = true;
      for (const Instruction* op : top->operands()) {
        if (!depth_.count(op)) {
          stack.push_back(op);
          ready = false;
        }
      }
      if (!ready) continue;
      stack.pop_back();
      if (depth_.count(top)) continue;
      int64_t d = 0;
      for (const Instruction* op : top->operands()) d = std::max(d, depth_.at(op));
      int64_t called = 0;
      for (const Computation* c : top->called_computations()) called = std::max(called, OfComputation(c));
      depth_[top] = d + called + TermsOf(*top);
    }
    return depth_.at(ins);
  }

 private:
  int64_t OfComputation(const Computation* c) {
    if (c == nullptr || c->root() == nullptr) return 0;
    auto it = computation_depth_.find(c);
    if (it != computation_depth_.end()) return it->second;
    computation_depth_[c] = 0;  // guards against (invalid) recursion
    const int64_t d = Of(c->root());
    computation_depth_[c] = d;
    return d;
  }

  std::unordered_map<const Instruction*, int64_t> depth_;
  std::unordered_map<const Computation*, int64_t> computation_depth_;
};

void LeafDepths(const Instruction* ins, const Shape& shape, SumDepth& depth, std::vector<int64_t>* out) {
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      const Instruction* element =
          ins->opcode() == Opcode::kTuple && i < ins->operand_count() ? ins->operand(i) : ins;
      LeafDepths(element, shape.tuple_shapes(i), depth, out);
    }
    return;
  }
  if (shape.IsArray()) out->push_back(depth.Of(ins));
}

}  // namespace

Shape WidenToF64(const Shape& shape) {
  Shape out = shape;
  if (out.IsTuple()) {
    for (Shape& element : *out.mutable_tuple_shapes()) element = WidenToF64(element);
    return out;
  }
  if (!out.IsArray() || !Widens(out.element_type())) return out;
  out.set_element_type(IsComplex(out.element_type()) ? PrimitiveType::kC128 : PrimitiveType::kF64);
  if (out.has_layout()) out.mutable_layout()->element_size_in_bits = 0;
  return out;
}

Literal WidenLiteralToF64(const Literal& literal) {
  if (literal.shape().IsTuple()) {
    Literal out(WidenToF64(literal.shape()));
    for (size_t i = 0; i < literal.tuple_elements().size(); ++i) {
      out.tuple_elements()[i] = WidenLiteralToF64(literal.tuple_elements()[i]);
    }
    return out;
  }
  const PrimitiveType type = literal.shape().element_type();
  if (!literal.shape().IsArray() || !Widens(type)) return literal;
  Literal out = Literal::CreateUninitialized(WidenToF64(literal.shape()));
  const int64_t count = literal.element_count();
  if (IsComplex(type)) {
    for (int64_t i = 0; i < count; ++i) out.SetComplex(i, literal.GetComplex(i));
  } else {
    for (int64_t i = 0; i < count; ++i) out.SetDouble(i, literal.GetDouble(i));
  }
  return out;
}

bool WidensAnything(const Module& module) {
  for (const auto& computation : module.computations()) {
    for (const auto& ins : computation->instructions()) {
      if (HasWideningLeaf(ins->shape())) return true;
    }
  }
  return false;
}

StatusOr<std::unique_ptr<Module>> MakeF64Shadow(const Module& module) {
  std::unique_ptr<Module> shadow = module.Clone();
  if (!shadow || !shadow->entry()) return Internal("the module has no entry computation to widen");
  // The shadows' messages give lines of the printed module (copies used to be reparsed).
  shadow->LocateInPrintedText();
  shadow->entry_computation_layout.reset();
  for (const auto& computation : shadow->computations()) {
    // Snapshot the instruction list: converts are added while walking.
    std::vector<Instruction*> instructions;
    for (const auto& ins : computation->instructions()) instructions.push_back(ins.get());
    std::unordered_map<const Instruction*, Shape> original;
    // jax's LAPACK calls the CPU backend runs and the GPU solver calls LAPACK answers alike
    // (kept by OpenLibraryCalls for the check) widen like any op: the reference's LAPACK
    // hook runs their f64 shadow (library_kernels.h).
    std::unordered_set<const Instruction*> keeps;
    for (Instruction* ins : instructions) {
      if (KeepsTypes(ins->opcode()) && !IsCpuLapackTarget(*ins) && !IsLapackTwinGpuCall(*ins) &&
          !IsLapackTwinGpuVectorCall(*ins)) {
        keeps.insert(ins);
      }
    }
    for (Instruction* ins : instructions) {
      original.emplace(ins, ins->shape());
      if (keeps.count(ins)) continue;
      if (!HasWideningLeaf(ins->shape())) continue;
      ins->set_shape(WidenToF64(ins->shape()));
      if (ins->opcode() == Opcode::kConstant && ins->literal() != nullptr) {
        ins->set_literal(std::make_unique<Literal>(WidenLiteralToF64(*ins->literal())));
      }
    }
    for (Instruction* ins : instructions) {
      if (!keeps.count(ins)) continue;
      for (int64_t i = 0; i < ins->operand_count(); ++i) {
        Instruction* operand = ins->operand(i);
        const Shape& wanted = original.at(operand);
        if (operand->shape() == wanted) continue;
        if (wanted.IsTuple()) {
          return Unimplemented("%" + ins->name() + " (" + std::string(OpcodeName(ins->opcode())) +
                               ") takes a tuple of floating values; the f64 shadow keeps its types "
                               "and cannot convert a tuple");
        }
        ins->ReplaceOperand(i, AddConvert(*shadow, *computation, operand, wanted));
      }
      if (!HasWideningLeaf(ins->shape())) continue;
      if (ins->shape().IsTuple()) {
        return Unimplemented("%" + ins->name() + " (" + std::string(OpcodeName(ins->opcode())) +
                             ") returns a tuple of floating values; the f64 shadow keeps its types "
                             "and cannot convert a tuple");
      }
      std::vector<Instruction*> users = ins->users();
      const bool was_root = computation->root() == ins;
      Instruction* widened = AddConvert(*shadow, *computation, ins, WidenToF64(ins->shape()));
      Redirect(*computation, ins, widened, users, was_root);
    }
  }
  return shadow;
}

StatusOr<std::unique_ptr<Module>> OpenLibraryCalls(const Module& module,
                                                   const std::function<bool(const Instruction&)>& keep) {
  auto opens = [&keep](const Instruction& ins) { return IsLibraryCall(ins) && !(keep && keep(ins)); };
  bool any = false;
  for (const auto& computation : module.computations()) {
    for (const auto& ins : computation->instructions()) any = any || opens(*ins);
  }
  if (!any) return std::unique_ptr<Module>();
  std::unique_ptr<Module> opened = module.Clone();
  if (!opened || !opened->entry()) return Internal("the module has no entry computation");
  std::vector<Instruction*> calls;
  for (const auto& computation : opened->computations()) {
    for (const auto& ins : computation->instructions()) {
      if (opens(*ins)) calls.push_back(ins.get());
    }
  }
  for (Instruction* library_call : calls) {
    // Under the custom call's own name: the perturbed shadow finds sums by name.
    const std::string name = library_call->name();
    RETURN_IF_ERROR(ReplaceLibraryCallWithPlainCall(*library_call, *opened, name).status());
  }
  return opened;
}

StatusOr<std::unique_ptr<Module>> MakeMagnitudeShadow(const Module& shadow) {
  std::unique_ptr<Module> magnitude = shadow.Clone();
  if (!magnitude || !magnitude->entry()) return Internal("the module has no entry computation");
  magnitude->LocateInPrintedText();
  for (const auto& computation : magnitude->computations()) {
    std::vector<Instruction*> instructions;
    for (const auto& ins : computation->instructions()) instructions.push_back(ins.get());
    for (Instruction* ins : instructions) {
      for (int64_t i : SummedOperands(*ins)) {
        Instruction* operand = ins->operand(i);
        const PrimitiveType type = operand->shape().element_type();
        if (!operand->shape().IsArray() || !(IsFloat(type) || IsComplex(type))) continue;
        // |x| of a complex value is real: keep the type by squaring nothing, use abs only
        // for real terms.
        if (IsComplex(type)) continue;
        auto abs = std::make_unique<Instruction>(Opcode::kAbs, magnitude->UniqueName(operand->name() + ".abs"),
                                                 operand->shape());
        abs->AppendOperand(operand);
        ins->ReplaceOperand(i, computation->AddInstruction(std::move(abs)));
      }
    }
    // A complex dot's or convolution's parts are differences of real sums (re = Σ ar·br -
    // Σ ai·bi): a backend that accumulates the two sums apart (a GEMM of parts) and
    // subtracts them at the end rounds to u·(|Σ ar·br| + |Σ ai·bi|), which the cancelling
    // value itself does not bound. Each part's magnitude is Σ|z||w| (at least
    // |ar·br| + |ai·bi| a term, by Cauchy-Schwarz): the same dot of the operands' moduli, as
    // both parts.
    for (Instruction* ins : instructions) {
      const Shape& shape = ins->shape();
      if ((ins->opcode() != Opcode::kDot && ins->opcode() != Opcode::kConvolution) || ins->operand_count() != 2 ||
          !shape.IsArray() || !IsComplex(shape.element_type())) {
        continue;
      }
      Module& m = *magnitude;
      Computation& c = *computation;
      const std::string base = ins->name() + ".modulus";
      std::vector<Instruction*> moduli;
      for (Instruction* operand : ins->operands()) {
        Shape modulus_shape = operand->shape();
        if (!modulus_shape.IsArray() || !IsComplex(modulus_shape.element_type())) break;
        modulus_shape.set_element_type(ComplexComponentType(modulus_shape.element_type()));
        moduli.push_back(AddOp(m, c, Opcode::kAbs, base, modulus_shape, {operand}));
      }
      if (moduli.size() != 2) continue;
      const std::vector<Instruction*> users = ins->users();
      const bool was_root = c.root() == ins;
      Instruction* sum = c.AddInstruction(ins->CloneWithOperands(moduli, m.UniqueName(base)));
      sum->mutable_shape()->set_element_type(ComplexComponentType(shape.element_type()));
      Redirect(c, ins, AddOp(m, c, Opcode::kComplex, base, shape, {sum, sum}), users, was_root);
    }
  }
  return magnitude;
}


StatusOr<std::unique_ptr<Module>> MakePerturbedShadow(const Module& shadow, const Module& original) {
  for (const auto& computation : original.computations()) {
    for (const auto& ins : computation->instructions()) {
      if (ins->opcode() == Opcode::kRng || ins->opcode() == Opcode::kRngGetAndUpdateState) {
        return Unimplemented("%" + ins->name() + " draws random numbers; perturbed runs would shift its draws");
      }
    }
  }
  std::unique_ptr<Module> perturbed = shadow.Clone();
  if (!perturbed || !perturbed->entry()) return Internal("the module has no entry computation");
  perturbed->LocateInPrintedText();
  for (const auto& computation : perturbed->computations()) {
    const Computation* original_computation = original.FindComputation(computation->name());
    std::vector<Instruction*> instructions;
    for (const auto& ins : computation->instructions()) instructions.push_back(ins.get());
    for (Instruction* sum : instructions) {
      if (SummedOperands(*sum).empty()) continue;
      const Shape& shape = sum->shape();
      if (!shape.IsArray() || shape.element_type() != PrimitiveType::kF64 ||
          sum->operand(0)->shape().element_type() != PrimitiveType::kF64) {
        continue;
      }
      const Instruction* before =
          original_computation != nullptr ? original_computation->FindInstruction(sum->name()) : nullptr;
      if (before == nullptr || !before->shape().IsArray() || !IsFloat(before->shape().element_type())) continue;
      const int64_t terms = TermsOf(*sum);
      if (terms < 2) continue;
      const double room = std::sqrt(static_cast<double>(terms)) *
                          std::ldexp(1.0, -(MantissaBits(before->shape().element_type()) + 1));
      Module& m = *perturbed;
      Computation& c = *computation;
      const std::string base = sum->name() + ".perturbed";
      std::vector<Instruction*> users = sum->users();
      const bool was_root = c.root() == sum;
      // Σ|x|: the same sum over the absolute values.
      Instruction* terms_abs = AddOp(m, c, Opcode::kAbs, base, sum->operand(0)->shape(), {sum->operand(0)});
      std::vector<Instruction*> operands = sum->operands();
      operands[0] = terms_abs;
      Instruction* magnitude = c.AddInstruction(sum->CloneWithOperands(operands, m.UniqueName(base)));
      // s: a random sign times a size in [0.5, 1).
      Instruction* lo = AddScalarBroadcast(m, c, base, Shape::Scalar(PrimitiveType::kF64), -1.0);
      Instruction* hi = AddScalarBroadcast(m, c, base, Shape::Scalar(PrimitiveType::kF64), 1.0);
      Instruction* draw = AddOp(m, c, Opcode::kRng, base, shape, {lo, hi});
      draw->mutable_attrs().distribution = RandomDistribution::kUniform;
      Instruction* sign = AddOp(m, c, Opcode::kSign, base, shape, {draw});
      Instruction* size = AddOp(m, c, Opcode::kAbs, base, shape, {draw});
      Instruction* half = AddScalarBroadcast(m, c, base, shape, 0.5);
      Instruction* half_size = AddOp(m, c, Opcode::kMultiply, base, shape, {size, half});
      Instruction* span = AddOp(m, c, Opcode::kAdd, base, shape, {half_size, half});
      Instruction* s = AddOp(m, c, Opcode::kMultiply, base, shape, {sign, span});
      Instruction* scale = AddScalarBroadcast(m, c, base, shape, room);
      Instruction* error = AddOp(m, c, Opcode::kMultiply, base, shape,
                                 {AddOp(m, c, Opcode::kMultiply, base, shape, {s, scale}), magnitude});
      Instruction* moved = AddOp(m, c, Opcode::kAdd, base, shape, {sum, error});
      Redirect(c, sum, moved, users, was_root);
    }
  }
  return perturbed;
}

namespace {

// Whether `ins` (of the original module) rounds its result: a floating result narrower
// than f64 that the operation's exact value would not always fit.
bool RoundsItsResult(const Instruction& ins) {
  const Shape& shape = ins.shape();
  if (!shape.IsArray() || !Widens(shape.element_type())) return false;
  switch (ins.opcode()) {
    case Opcode::kAdd:
    case Opcode::kSubtract:
    case Opcode::kMultiply:
    case Opcode::kDivide:
    case Opcode::kPower:
    case Opcode::kAtan2:
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kSqrt:
    case Opcode::kRsqrt:
    case Opcode::kCbrt:
    case Opcode::kSin:
    case Opcode::kCos:
    case Opcode::kTan:
    case Opcode::kTanh:
    case Opcode::kSinh:
    case Opcode::kCosh:
    case Opcode::kAsin:
    case Opcode::kAcos:
    case Opcode::kAtan:
    case Opcode::kAsinh:
    case Opcode::kAcosh:
    case Opcode::kAtanh:
    case Opcode::kErf:
    case Opcode::kDot:
    case Opcode::kConvolution:
    case Opcode::kFft:
    case Opcode::kCholesky:
    case Opcode::kTriangularSolve:
      return true;
    case Opcode::kAbs:
    case Opcode::kSign:
      // |z| and z/|z| of a complex value round; of a real value they are exact.
      return ins.operand_count() == 1 && ins.operand(0)->shape().IsArray() &&
             IsComplex(ins.operand(0)->shape().element_type());
    case Opcode::kConvert: {
      if (ins.operand_count() != 1 || !ins.operand(0)->shape().IsArray()) return false;
      const PrimitiveType from = ins.operand(0)->shape().element_type();
      const PrimitiveType to = shape.element_type();
      const PrimitiveType to_real = IsComplex(to) ? ComplexComponentType(to) : to;
      if (IsFloat(from) || IsComplex(from)) {
        const PrimitiveType from_real = IsComplex(from) ? ComplexComponentType(from) : from;
        return MantissaBits(from_real) > MantissaBits(to_real) || ExponentBits(from_real) > ExponentBits(to_real);
      }
      // From an integer: rounds once it has more bits than the mantissa holds.
      return IsInteger(from) && BitWidth(from) > MantissaBits(to_real) + 1;
    }
    default:
      return false;
  }
}

// Computations applied per element or per pair (reducers, comparators, mapped and
// scattered computations) and everything they call.
std::unordered_set<const Computation*> AppliedPerElement(const Module& module) {
  std::unordered_set<const Computation*> applied;
  for (const auto& computation : module.computations()) {
    for (const auto& ins : computation->instructions()) {
      switch (ins->opcode()) {
        case Opcode::kWhile:
        case Opcode::kConditional:
        case Opcode::kCall:
        case Opcode::kFusion:
          break;
        default:
          for (const Computation* called : ins->called_computations()) applied.insert(called);
      }
    }
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& computation : module.computations()) {
      if (applied.count(computation.get()) == 0) continue;
      for (const auto& ins : computation->instructions()) {
        for (const Computation* called : ins->called_computations()) grew |= applied.insert(called).second;
      }
    }
  }
  return applied;
}

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::unordered_map<const Instruction*, RoundingUnit> RoundingUnits(const Module& perturbed, const Module& original) {
  std::unordered_map<const Instruction*, RoundingUnit> units;
  const std::unordered_set<const Computation*> applied = AppliedPerElement(original);
  for (const auto& computation : perturbed.computations()) {
    const Computation* before_computation = original.FindComputation(computation->name());
    if (before_computation == nullptr || applied.count(before_computation) != 0) continue;
    for (const auto& ins : computation->instructions()) {
      const Instruction* before = before_computation->FindInstruction(ins->name());
      if (before == nullptr || !RoundsItsResult(*before)) continue;
      const PrimitiveType type = before->shape().element_type();
      const PrimitiveType real = IsComplex(type) ? ComplexComponentType(type) : type;
      RoundingUnit unit;
      unit.unit_roundoff = std::ldexp(1.0, -(MantissaBits(real) + 1));
      unit.key = SplitMix(std::hash<std::string>{}(computation->name() + "/" + ins->name()));
      if (before->opcode() == Opcode::kFft && before->has_attributes()) {
        // The result's transformed dimensions (the trailing ones) make one line.
        const int64_t transformed = static_cast<int64_t>(before->attrs().fft_length.size());
        unit.line = 1;
        for (int64_t d = before->shape().rank() - transformed; d < before->shape().rank(); ++d) {
          unit.line *= std::max<int64_t>(before->shape().dimensions(std::max<int64_t>(d, 0)), 1);
        }
      }
      units.emplace(ins.get(), unit);
    }
  }
  return units;
}

bool HasRoundingSensitiveOps(const Module& module) {
  for (const auto& computation : module.computations()) {
    for (const auto& ins : computation->instructions()) {
      if (ins->operand_count() == 0 || !ins->operand(0)->shape().IsArray()) continue;
      const PrimitiveType from = ins->operand(0)->shape().element_type();
      if (!IsFloat(from) && !IsComplex(from)) continue;
      switch (ins->opcode()) {
        case Opcode::kFft:  // outputs 0 in exact arithmetic, 1e-17 in the interpreter (RoundingUnit::line)
        case Opcode::kFloor:
        case Opcode::kCeil:
        case Opcode::kRoundNearestAfz:
        case Opcode::kRoundNearestEven:
        case Opcode::kSign:
        case Opcode::kCompare:
          return true;
        case Opcode::kConvert:
          if (ins->shape().IsArray() && (IsInteger(ins->shape().element_type()) || IsPred(ins->shape().element_type()))) {
            return true;
          }
          break;
        default:
          break;
      }
    }
  }
  return false;
}

void NudgeByRounding(Literal& result, const RoundingUnit& unit, double direction) {
  if (!result.shape().IsArray()) return;
  const PrimitiveType type = result.shape().element_type();
  int64_t n = result.element_count();
  if (type == PrimitiveType::kC128) {
    n *= 2;
  } else if (type != PrimitiveType::kF64) {
    return;
  }
  double* values = reinterpret_cast<double*>(result.untyped_data());
  const double u = direction * unit.unit_roundoff;
  // A Fourier transform's absolute error per element, line by line (reals per line: twice
  // the elements for c128).
  const int64_t reals_per_line = unit.line > 0 ? unit.line * (type == PrimitiveType::kC128 ? 2 : 1) : 0;
  std::vector<double> absolute;
  if (reals_per_line > 0 && n % reals_per_line == 0) {
    const double l = static_cast<double>(unit.line);
    const double growth = std::max(1.0, std::log2(l)) / std::sqrt(l);
    for (int64_t start = 0; start < n; start += reals_per_line) {
      double squares = 0;
      for (int64_t i = start; i < start + reals_per_line; ++i) squares += values[i] * values[i];
      absolute.push_back(growth * std::sqrt(squares));
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t h = SplitMix(unit.key ^ static_cast<uint64_t>(i));
    const double size = 0.5 + std::ldexp(static_cast<double>(h >> 12), -53);  // [0.5, 1)
    const double d = ((h & 1) != 0 ? u : -u) * size;
    if (absolute.empty()) {
      values[i] *= 1 + d;
      continue;
    }
    const double line_error = absolute[static_cast<size_t>(i / reals_per_line)];
    // A value inside the transform's error of zero may be exactly zero in a backend (an
    // output of a symmetric input): zero in one of the two runs.
    if (std::fabs(values[i]) <= unit.unit_roundoff * line_error && direction < 0) {
      values[i] = 0;
      continue;
    }
    values[i] = values[i] * (1 + d) + d * line_error;
  }
}

std::vector<int64_t> SummedTermsPerOutput(const Module& module) {
  std::vector<int64_t> out;
  if (module.entry() == nullptr || module.entry()->root() == nullptr) return out;
  SumDepth depth;
  LeafDepths(module.entry()->root(), module.entry()->root()->shape(), depth, &out);
  return out;
}

}  // namespace fusebox::check
