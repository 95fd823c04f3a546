// Writes plain HLO into one computation: the library calls' meanings (library_calls.cc,
// fused_attention.cc) and the decompositions some passes make. Shapes it makes carry no
// layout; the caller puts the shapes it must keep on what it returns.
#pragma once

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/module.h"

namespace fusebox::library_call_internal {

class PlainHloBuilder {
 public:
  PlainHloBuilder(Module& module, Computation* computation) : module_(module), computation_(computation) {}

  static Shape Plain(const Shape& shape) {
    Shape plain = shape;
    plain.clear_layout();
    return plain;
  }
  static Shape Array(PrimitiveType type, std::vector<int64_t> dims) { return Shape(type, std::move(dims)); }
  static Shape WithType(const Shape& shape, PrimitiveType type) {
    Shape out = Plain(shape);
    out.set_element_type(type);
    return out;
  }

  Instruction* Parameter(int64_t number, const Shape& shape) {
    auto inst = std::make_unique<Instruction>(Opcode::kParameter, module_.UniqueName("p"), shape);
    inst->set_parameter_number(number);
    return computation_->AddInstruction(std::move(inst));
  }
  Instruction* Add(Opcode opcode, const Shape& shape, const std::vector<Instruction*>& operands) {
    auto inst = std::make_unique<Instruction>(opcode, module_.UniqueName(std::string(OpcodeName(opcode))), shape);
    for (Instruction* operand : operands) inst->AppendOperand(operand);
    return computation_->AddInstruction(std::move(inst));
  }
  Instruction* Scalar(double value, PrimitiveType type) {
    const Shape scalar = Shape::Scalar(type);
    auto constant = std::make_unique<Instruction>(Opcode::kConstant, module_.UniqueName("constant"), scalar);
    auto literal = std::make_unique<Literal>(scalar);
    literal->SetDouble(0, value);
    constant->set_literal(std::move(literal));
    return computation_->AddInstruction(std::move(constant));
  }
  // `value` of `like`'s type, broadcast to its shape.
  Instruction* Splat(double value, const Shape& like) {
    Instruction* b = Add(Opcode::kBroadcast, Plain(like), {Scalar(value, like.element_type())});
    b->mutable_attrs().dimensions = std::vector<int64_t>{};
    return b;
  }
  Instruction* Zeros(const Shape& shape) {
    auto constant = std::make_unique<Instruction>(Opcode::kConstant, module_.UniqueName("workspace"), shape);
    constant->set_literal(std::make_unique<Literal>(shape));
    return computation_->AddInstruction(std::move(constant));
  }
  // A constant holding `literal` (its shape without a layout).
  Instruction* Constant(std::unique_ptr<Literal> literal, const std::string& name) {
    auto constant = std::make_unique<Instruction>(Opcode::kConstant, module_.UniqueName(name), Plain(literal->shape()));
    constant->set_literal(std::move(literal));
    return computation_->AddInstruction(std::move(constant));
  }
  // The operands one after the other along `dimension`.
  Instruction* Concatenate(const std::vector<Instruction*>& operands, int64_t dimension) {
    Shape shape = Plain(operands.front()->shape());
    int64_t length = 0;
    for (Instruction* op : operands) length += op->shape().dimensions(dimension);
    shape.set_dimension(dimension, length);
    Instruction* c = Add(Opcode::kConcatenate, shape, operands);
    c->mutable_attrs().dimensions = std::vector<int64_t>{dimension};
    return c;
  }
  Instruction* Convert(Instruction* x, PrimitiveType type) {
    if (x->shape().element_type() == type) return x;
    return Add(Opcode::kConvert, WithType(x->shape(), type), {x});
  }
  Instruction* Binary(Opcode opcode, Instruction* a, Instruction* b) { return Add(opcode, Plain(a->shape()), {a, b}); }
  Instruction* Unary(Opcode opcode, Instruction* a) { return Add(opcode, Plain(a->shape()), {a}); }
  Instruction* Scale(Instruction* x, double factor) {
    return factor == 1 ? x : Binary(Opcode::kMultiply, x, Splat(factor, x->shape()));
  }
  Instruction* Compare(Instruction* a, Instruction* b, ComparisonDirection direction) {
    Instruction* compare = Add(Opcode::kCompare, WithType(a->shape(), PrimitiveType::kPred), {a, b});
    compare->mutable_attrs().comparison_direction = direction;
    return compare;
  }
  Instruction* GreaterThanZero(Instruction* x) { return Compare(x, Splat(0, x->shape()), ComparisonDirection::kGt); }
  Instruction* Select(Instruction* pred, Instruction* on_true, Instruction* on_false) {
    return Add(Opcode::kSelect, Plain(on_true->shape()), {pred, on_true, on_false});
  }
  Instruction* Slice(Instruction* x, const std::vector<SliceDimension>& slice) {
    Shape shape = Plain(x->shape());
    for (size_t d = 0; d < slice.size(); ++d) shape.set_dimension(static_cast<int64_t>(d), slice[d].limit - slice[d].start);
    Instruction* s = Add(Opcode::kSlice, shape, {x});
    s->mutable_attrs().slice = slice;
    return s;
  }
  // x[start:limit] along `dimension`, the other dimensions whole.
  Instruction* SliceAlong(Instruction* x, int64_t dimension, int64_t start, int64_t limit) {
    std::vector<SliceDimension> slice;
    for (int64_t d = 0; d < x->shape().rank(); ++d) slice.push_back({0, x->shape().dimensions(d), 1});
    slice[dimension] = {start, limit, 1};
    return Slice(x, slice);
  }
  // x padded with `value` by `padding` (one entry per dimension).
  Instruction* Pad(Instruction* x, const std::vector<PaddingDimension>& padding, double value) {
    Shape shape = Plain(x->shape());
    for (size_t d = 0; d < padding.size(); ++d) {
      const int64_t size = shape.dimensions(static_cast<int64_t>(d));
      shape.set_dimension(static_cast<int64_t>(d), padding[d].low + size + padding[d].high +
                                                       std::max<int64_t>(0, size - 1) * padding[d].interior);
    }
    Instruction* pad = Add(Opcode::kPad, shape, {x, Scalar(value, shape.element_type())});
    pad->mutable_attrs().padding = padding;
    return pad;
  }
  // An s32 iota of `dims` counting along `dimension`.
  Instruction* Iota(const std::vector<int64_t>& dims, int64_t dimension) {
    Instruction* iota = Add(Opcode::kIota, Array(PrimitiveType::kS32, dims), {});
    iota->mutable_attrs().iota_dimension = dimension;
    return iota;
  }
  // `x` broadcast to `shape`, its dimensions becoming `dimensions` of it.
  Instruction* Broadcast(Instruction* x, const Shape& shape, std::vector<int64_t> dimensions) {
    Instruction* b = Add(Opcode::kBroadcast, Plain(shape), {x});
    b->mutable_attrs().dimensions = std::move(dimensions);
    return b;
  }
  Instruction* Reshape(Instruction* x, std::vector<int64_t> dims) {
    if (x->shape().dimensions() == dims) return x;
    return Add(Opcode::kReshape, Array(x->shape().element_type(), std::move(dims)), {x});
  }
  // Result dimension i is operand dimension permutation[i]; no instruction for the identity.
  Instruction* Transpose(Instruction* x, const std::vector<int64_t>& permutation) {
    bool identity = true;
    std::vector<int64_t> dims;
    for (size_t i = 0; i < permutation.size(); ++i) {
      identity = identity && permutation[i] == static_cast<int64_t>(i);
      dims.push_back(x->shape().dimensions(permutation[i]));
    }
    if (identity) return x;
    Instruction* t = Add(Opcode::kTranspose, Array(x->shape().element_type(), dims), {x});
    t->mutable_attrs().dimensions = permutation;
    return t;
  }
  Instruction* Dot(const Shape& shape, Instruction* lhs, Instruction* rhs, DotDimensionNumbers dims) {
    Instruction* dot = Add(Opcode::kDot, Plain(shape), {lhs, rhs});
    dot->mutable_attrs().dot_dimension_numbers = std::move(dims);
    return dot;
  }
  // The sum (kAdd) or maximum (kMaximum) of `x` over `dimensions`, from `init`.
  Instruction* Reduce(Instruction* x, const std::vector<int64_t>& dimensions, Opcode combiner, double init) {
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < x->shape().rank(); ++d) {
      bool reduced = false;
      for (int64_t r : dimensions) reduced = reduced || r == d;
      if (!reduced) kept.push_back(x->shape().dimensions(d));
    }
    const PrimitiveType type = x->shape().element_type();
    Instruction* r = Add(Opcode::kReduce, Array(type, kept), {x, Scalar(init, type)});
    r->mutable_attrs().dimensions = dimensions;
    r->AppendCalledComputation(Combiner(combiner, type));
    r->set_call_form(CallForm::kToApply);
    return r;
  }
  static double Infinity() { return std::numeric_limits<double>::infinity(); }

  // Batches of matrices: the last two dimensions of [..., rows, cols] are a matrix, the
  // leading ones its batch.
  //
  // [..., r, c] -> [..., c, r].
  Instruction* SwapMinor(Instruction* x) {
    const int64_t rank = x->shape().rank();
    std::vector<int64_t> permutation(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) permutation[static_cast<size_t>(d)] = d;
    std::swap(permutation[static_cast<size_t>(rank - 1)], permutation[static_cast<size_t>(rank - 2)]);
    return Transpose(x, permutation);
  }
  // A dot over the leading (batch) dimensions of both, contracting lhs dimension `lc` with
  // rhs dimension `rc` (each one of the last two), at HIGHEST precision.
  Instruction* BatchDot(Instruction* lhs, Instruction* rhs, int64_t lc, int64_t rc) {
    const int64_t rank = lhs->shape().rank();
    DotDimensionNumbers dims;
    for (int64_t d = 0; d + 2 < rank; ++d) {
      dims.lhs_batch_dimensions.push_back(d);
      dims.rhs_batch_dimensions.push_back(d);
    }
    dims.lhs_contracting_dimensions = {lc};
    dims.rhs_contracting_dimensions = {rc};
    std::vector<int64_t> out(lhs->shape().dimensions().begin(), lhs->shape().dimensions().end() - 2);
    out.push_back(lhs->shape().dimensions(lc == rank - 1 ? rank - 2 : rank - 1));
    out.push_back(rhs->shape().dimensions(rc == rank - 1 ? rank - 2 : rank - 1));
    Instruction* dot = Dot(Array(lhs->shape().element_type(), out), lhs, rhs, std::move(dims));
    dot->mutable_attrs().operand_precision = {Precision::kHighest, Precision::kHighest};
    return dot;
  }
  // x[..., row:row + rows, col:col + cols] (s32 scalar starts), the batch whole.
  Instruction* DynamicSliceMinor(Instruction* x, Instruction* row, Instruction* col, int64_t rows, int64_t cols) {
    std::vector<int64_t> sizes(x->shape().dimensions().begin(), x->shape().dimensions().end() - 2);
    sizes.push_back(rows);
    sizes.push_back(cols);
    std::vector<Instruction*> operands = {x};
    for (Instruction* s : MinorStarts(x->shape().rank(), row, col)) operands.push_back(s);
    Instruction* slice = Add(Opcode::kDynamicSlice, Array(x->shape().element_type(), sizes), operands);
    slice->mutable_attrs().dynamic_slice_sizes = sizes;
    return slice;
  }
  // x with `update` written at [..., row, col].
  Instruction* DynamicUpdateMinor(Instruction* x, Instruction* update, Instruction* row, Instruction* col) {
    std::vector<Instruction*> operands = {x, update};
    for (Instruction* s : MinorStarts(x->shape().rank(), row, col)) operands.push_back(s);
    return Add(Opcode::kDynamicUpdateSlice, Plain(x->shape()), operands);
  }
  // [..., 1, 1] -> [..., rows, cols] (the one value of each matrix everywhere).
  Instruction* SpreadScalar(Instruction* x, int64_t rows, int64_t cols) {
    std::vector<int64_t> batch(x->shape().dimensions().begin(), x->shape().dimensions().end() - 2);
    Instruction* flat = Reshape(x, batch);
    std::vector<int64_t> out = batch;
    out.push_back(rows);
    out.push_back(cols);
    std::vector<int64_t> dims(batch.size());
    for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int64_t>(d);
    return Broadcast(flat, Array(x->shape().element_type(), out), dims);
  }
  // The real part of a complex x (x itself when real).
  Instruction* RealPart(Instruction* x) {
    const PrimitiveType type = x->shape().element_type();
    if (!IsComplex(type)) return x;
    return Add(Opcode::kReal, WithType(x->shape(), ComplexComponentType(type)), {x});
  }
  // The complex conjugate of x (x itself when real).
  Instruction* Conjugate(Instruction* x) {
    const PrimitiveType type = x->shape().element_type();
    if (!IsComplex(type)) return x;
    const Shape part = WithType(x->shape(), ComplexComponentType(type));
    Instruction* imag = Unary(Opcode::kNegate, Add(Opcode::kImag, part, {x}));
    return Add(Opcode::kComplex, Plain(x->shape()), {Add(Opcode::kReal, part, {x}), imag});
  }

  // A sort comparator over scalars of `types` (keys first, then the values it carries,
  // each a pair of parameters in turn: a0, b0, a1, b1, ...): compare(a0, b0) LT, or GT when
  // `descending`, floats in total order (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN).
  static Computation* TotalOrderComparator(Module& module, const std::vector<PrimitiveType>& types, bool descending,
                                           const std::string& name) {
    auto comp = std::make_unique<Computation>(module.UniqueName(name));
    comp->set_parent(&module);
    std::vector<Instruction*> params;
    for (size_t i = 0; i < 2 * types.size(); ++i) {
      Shape s = Shape::Scalar(types[i / 2]);
      s.SetDefaultLayout();
      auto p = std::make_unique<Instruction>(Opcode::kParameter, module.UniqueName(i % 2 == 0 ? "a" : "b"), s);
      p->set_parameter_number(static_cast<int64_t>(i));
      params.push_back(comp->AddInstruction(std::move(p)));
    }
    Shape pred = Shape::Scalar(PrimitiveType::kPred);
    pred.SetDefaultLayout();
    auto compare = std::make_unique<Instruction>(Opcode::kCompare, module.UniqueName("compare"), pred);
    compare->AppendOperand(params[0]);
    compare->AppendOperand(params[1]);
    compare->mutable_attrs().comparison_direction = descending ? ComparisonDirection::kGt : ComparisonDirection::kLt;
    if (IsFloat(types[0])) compare->mutable_attrs().comparison_type = ComparisonType::kTotalOrder;
    comp->set_root(comp->AddInstruction(std::move(compare)));
    return module.AddComputation(std::move(comp));
  }

 private:
  // Start indices (0, ..., 0, row, col) of a rank-`rank` array.
  std::vector<Instruction*> MinorStarts(int64_t rank, Instruction* row, Instruction* col) {
    std::vector<Instruction*> starts;
    for (int64_t d = 0; d + 2 < rank; ++d) starts.push_back(Scalar(0, PrimitiveType::kS32));
    starts.push_back(row);
    starts.push_back(col);
    return starts;
  }
  Computation* Combiner(Opcode opcode, PrimitiveType type) {
    auto comp = std::make_unique<Computation>(module_.UniqueName(std::string(OpcodeName(opcode)) + "_combiner"));
    comp->set_parent(&module_);
    Instruction* p[2];
    for (int64_t i = 0; i < 2; ++i) {
      auto param = std::make_unique<Instruction>(Opcode::kParameter, module_.UniqueName(i == 0 ? "a" : "b"),
                                                 Shape::Scalar(type));
      param->set_parameter_number(i);
      p[i] = comp->AddInstruction(std::move(param));
    }
    auto combined = std::make_unique<Instruction>(opcode, module_.UniqueName(std::string(OpcodeName(opcode))),
                                                  Shape::Scalar(type));
    combined->AppendOperand(p[0]);
    combined->AppendOperand(p[1]);
    comp->set_root(comp->AddInstruction(std::move(combined)));
    return module_.AddComputation(std::move(comp));
  }

  Module& module_;
  Computation* computation_;
};

// A while loop of `steps` steps, written into `parent`, over the state (s32 step,
// carried...): `body(builder, step, carried)` writes the body and returns the next carried
// values. Run returns the carried values after the loop.
class PlainHloLoop {
 public:
  PlainHloLoop(Module& module, Computation* parent, std::string name)
      : module_(module), parent_(parent), name_(std::move(name)) {}

  template <typename Body>
  std::vector<Instruction*> Run(int64_t steps, const std::vector<Instruction*>& init, Body body) {
    return RunWhile(steps, init, nullptr, body);
  }

  // As Run, but the loop also stops before a step where `keep_going(builder, carried)`
  // (written into the condition: a pred scalar from the carried values) is false.
  template <typename Body>
  std::vector<Instruction*> RunWhile(
      int64_t steps, const std::vector<Instruction*>& init,
      const std::function<Instruction*(PlainHloBuilder&, const std::vector<Instruction*>&)>& keep_going, Body body) {
    PlainHloBuilder outer(module_, parent_);
    std::vector<Shape> shapes = {Shape::Scalar(PrimitiveType::kS32)};
    for (Instruction* x : init) shapes.push_back(PlainHloBuilder::Plain(x->shape()));
    const Shape state = Shape::Tuple(shapes);

    auto condition = std::make_unique<Computation>(module_.UniqueName(name_ + "_condition"));
    condition->set_parent(&module_);
    Computation* cond = module_.AddComputation(std::move(condition));
    PlainHloBuilder c(module_, cond);
    Instruction* cp = c.Parameter(0, state);
    Instruction* step = Element(c, cp, 0, shapes[0]);
    Instruction* more = c.Compare(step, c.Scalar(static_cast<double>(steps), PrimitiveType::kS32), ComparisonDirection::kLt);
    if (keep_going) more = c.Binary(Opcode::kAnd, more, keep_going(c, Carried(c, cp, shapes)));
    cond->set_root(more);

    auto body_owner = std::make_unique<Computation>(module_.UniqueName(name_ + "_body"));
    body_owner->set_parent(&module_);
    Computation* body_comp = module_.AddComputation(std::move(body_owner));
    PlainHloBuilder bb(module_, body_comp);
    Instruction* bp = bb.Parameter(0, state);
    Instruction* i = Element(bb, bp, 0, shapes[0]);
    std::vector<Instruction*> next = body(bb, i, Carried(bb, bp, shapes));
    next.insert(next.begin(), bb.Binary(Opcode::kAdd, i, bb.Scalar(1, PrimitiveType::kS32)));
    body_comp->set_root(bb.Add(Opcode::kTuple, state, next));

    std::vector<Instruction*> start = {outer.Scalar(0, PrimitiveType::kS32)};
    start.insert(start.end(), init.begin(), init.end());
    Instruction* tuple = outer.Add(Opcode::kTuple, state, start);
    Instruction* loop = outer.Add(Opcode::kWhile, state, {tuple});
    loop->AppendCalledComputation(cond);
    loop->AppendCalledComputation(body_comp);
    loop->set_call_form(CallForm::kConditionBody);
    return Carried(outer, loop, shapes);
  }

 private:
  static Instruction* Element(PlainHloBuilder& b, Instruction* tuple, int64_t index, const Shape& shape) {
    Instruction* e = b.Add(Opcode::kGetTupleElement, shape, {tuple});
    e->mutable_attrs().tuple_index = index;
    return e;
  }
  // The carried values of a loop state (elements 1.. of `tuple`; element 0 is the step).
  static std::vector<Instruction*> Carried(PlainHloBuilder& b, Instruction* tuple, const std::vector<Shape>& shapes) {
    std::vector<Instruction*> carried;
    for (size_t k = 1; k < shapes.size(); ++k) carried.push_back(Element(b, tuple, static_cast<int64_t>(k), shapes[k]));
    return carried;
  }

  Module& module_;
  Computation* parent_;
  std::string name_;
};

}  // namespace fusebox::library_call_internal
