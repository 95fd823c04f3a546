#include "compiler/interpreter/collective_hub.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <type_traits>

#include "compiler/interpreter/interpreter.h"
#include "compiler/ir/collectives.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"

namespace fusebox::interpreter {
namespace {

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Leaves of a literal in order (the literal itself when it is an array).
void Leaves(const Literal& l, std::vector<const Literal*>& out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) Leaves(e, out);
  } else {
    out.push_back(&l);
  }
}

std::string DeviceList(const std::vector<int64_t>& ids) {
  std::string s = "{";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return s + "}";
}

// The elementwise combiner of an all-reduce / reduce-scatter: a recognised binary op of
// the two parameters, or the computation itself run by an interpreter.
class Combiner {
 public:
  explicit Combiner(const Computation* computation) : computation_(computation) {
    if (computation == nullptr) return;
    const Instruction* root = computation->root();
    if (root != nullptr && root->operand_count() == 2 &&
        root->operand(0)->opcode() == Opcode::kParameter && root->operand(1)->opcode() == Opcode::kParameter) {
      op_ = root->opcode();
    }
  }

  // acc = combine(acc, x), element by element, rounded to the element type each step.
  Status Apply(Literal& acc, const Literal& x) {
    const PrimitiveType type = acc.shape().element_type();
    const bool is_float = IsFloat(type);
    const bool is_pred = type == PrimitiveType::kPred;
    const int64_t n = acc.element_count();
    switch (op_) {
      case Opcode::kAdd:
      case Opcode::kMultiply:
      case Opcode::kMaximum:
      case Opcode::kMinimum:
      case Opcode::kAnd:
      case Opcode::kOr:
        break;
      default:
        return ApplyByInterpreter(acc, x);
    }
    if (IsComplex(type)) return ApplyByInterpreter(acc, x);
    // The common element types run as typed loops (the same arithmetic, in the type).
    switch (type) {
      case PrimitiveType::kF32: return Typed<float>(acc, x, is_float);
      case PrimitiveType::kF64: return Typed<double>(acc, x, is_float);
      case PrimitiveType::kS32: return Typed<int32_t>(acc, x, is_float);
      case PrimitiveType::kS64: return Typed<int64_t>(acc, x, is_float);
      case PrimitiveType::kU32: return Typed<uint32_t>(acc, x, is_float);
      default: break;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (is_float) {
        double a = acc.GetDouble(i), b = x.GetDouble(i), r = 0;
        switch (op_) {
          case Opcode::kAdd: r = a + b; break;
          case Opcode::kMultiply: r = a * b; break;
          // XLA's max/min propagate NaN.
          case Opcode::kMaximum: r = (a != a || b != b) ? (a != a ? a : b) : std::max(a, b); break;
          case Opcode::kMinimum: r = (a != a || b != b) ? (a != a ? a : b) : std::min(a, b); break;
          default: return ApplyByInterpreter(acc, x);
        }
        acc.SetDouble(i, r);
      } else if (is_pred) {
        bool a = acc.GetBool(i), b = x.GetBool(i);
        acc.SetBool(i, op_ == Opcode::kAnd || op_ == Opcode::kMultiply || op_ == Opcode::kMinimum ? (a && b) : (a || b));
      } else if (IsUnsignedInt(type)) {
        uint64_t a = acc.GetUint64(i), b = x.GetUint64(i), r = 0;
        switch (op_) {
          case Opcode::kAdd: r = a + b; break;
          case Opcode::kMultiply: r = a * b; break;
          case Opcode::kMaximum: r = std::max(a, b); break;
          case Opcode::kMinimum: r = std::min(a, b); break;
          case Opcode::kAnd: r = a & b; break;
          case Opcode::kOr: r = a | b; break;
          default: break;
        }
        acc.SetUint64(i, r);
      } else {
        int64_t a = acc.GetInt64(i), b = x.GetInt64(i), r = 0;
        switch (op_) {
          // Wrapping arithmetic, as the device's integer add does.
          case Opcode::kAdd: r = static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); break;
          case Opcode::kMultiply: r = static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); break;
          case Opcode::kMaximum: r = std::max(a, b); break;
          case Opcode::kMinimum: r = std::min(a, b); break;
          case Opcode::kAnd: r = a & b; break;
          case Opcode::kOr: r = a | b; break;
          default: break;
        }
        acc.SetInt64(i, r);
      }
    }
    return Status::Ok();
  }

  template <typename T>
  Status Typed(Literal& acc, const Literal& x, bool is_float) {
    T* a = reinterpret_cast<T*>(acc.untyped_data());
    const T* b = reinterpret_cast<const T*>(x.untyped_data());
    const int64_t n = acc.element_count();
    using U = std::make_unsigned_t<std::conditional_t<std::is_integral_v<T>, T, int>>;
    switch (op_) {
      case Opcode::kAdd:
        if constexpr (std::is_integral_v<T>) {
          for (int64_t i = 0; i < n; ++i) a[i] = static_cast<T>(static_cast<U>(a[i]) + static_cast<U>(b[i]));
        } else {
          for (int64_t i = 0; i < n; ++i) a[i] = a[i] + b[i];
        }
        return Status::Ok();
      case Opcode::kMultiply:
        if constexpr (std::is_integral_v<T>) {
          for (int64_t i = 0; i < n; ++i) a[i] = static_cast<T>(static_cast<U>(a[i]) * static_cast<U>(b[i]));
        } else {
          for (int64_t i = 0; i < n; ++i) a[i] = a[i] * b[i];
        }
        return Status::Ok();
      case Opcode::kMaximum:
        for (int64_t i = 0; i < n; ++i) {
          if (is_float && (a[i] != a[i] || b[i] != b[i])) a[i] = a[i] != a[i] ? a[i] : b[i];  // NaN wins
          else a[i] = std::max(a[i], b[i]);
        }
        return Status::Ok();
      case Opcode::kMinimum:
        for (int64_t i = 0; i < n; ++i) {
          if (is_float && (a[i] != a[i] || b[i] != b[i])) a[i] = a[i] != a[i] ? a[i] : b[i];
          else a[i] = std::min(a[i], b[i]);
        }
        return Status::Ok();
      case Opcode::kAnd:
      case Opcode::kOr:
        if constexpr (std::is_integral_v<T>) {
          for (int64_t i = 0; i < n; ++i) a[i] = op_ == Opcode::kAnd ? (a[i] & b[i]) : (a[i] | b[i]);
          return Status::Ok();
        }
        return InvalidArgument("and/or of floating-point values");
      default:
        return ApplyByInterpreter(acc, x);
    }
  }

 private:
  Status ApplyByInterpreter(Literal& acc, const Literal& x) {
    if (computation_ == nullptr) return InvalidArgument("the collective has no reduction computation");
    Shape scalar = Shape::Scalar(acc.shape().element_type());
    for (int64_t i = 0; i < acc.element_count(); ++i) {
      Literal a(scalar), b(scalar);
      a.SetBits(0, acc.GetBits(i));
      b.SetBits(0, x.GetBits(i));
      ASSIGN_OR_RETURN(Literal r, interpreter_.RunComputation(*computation_, {&a, &b}));
      if (r.shape().IsTuple()) return Unimplemented("a reduction computation with a tuple result");
      acc.SetBits(i, r.GetBits(0));
    }
    return Status::Ok();
  }

  const Computation* computation_;
  Opcode op_ = Opcode::kParameter;
  Interpreter interpreter_;
};

int64_t LeafBytes(const Literal& l) {
  std::vector<const Literal*> leaves;
  Leaves(l, leaves);
  int64_t b = 0;
  for (const Literal* x : leaves) b += x->size_bytes();
  return b;
}

}  // namespace

Literal SliceAlong(const Literal& literal, int64_t dim, int64_t start, int64_t size) {
  Shape shape = literal.shape();
  const std::vector<int64_t>& dims = literal.shape().dimensions();
  shape.set_dimension(dim, size);
  Literal out(shape);
  int64_t outer = 1, inner = literal.slot_bytes();
  for (int64_t d = 0; d < dim; ++d) outer *= dims[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(dim) + 1; d < dims.size(); ++d) inner *= dims[d];
  const int64_t full = dims[static_cast<size_t>(dim)];
  const uint8_t* src = literal.untyped_data();
  uint8_t* dst = out.untyped_data();
  for (int64_t o = 0; o < outer; ++o) {
    int64_t take = std::max<int64_t>(0, std::min(size, full - start));
    if (take > 0) {
      std::memcpy(dst + o * size * inner, src + (o * full + start) * inner, static_cast<size_t>(take * inner));
    }
  }
  return out;
}

Literal ConcatAlong(const std::vector<const Literal*>& parts, int64_t dim) {
  Shape shape = parts[0]->shape();
  int64_t total = 0;
  for (const Literal* p : parts) total += p->shape().dimensions(dim);
  shape.set_dimension(dim, total);
  Literal out(shape);
  const std::vector<int64_t>& dims = shape.dimensions();
  int64_t outer = 1, inner = out.slot_bytes();
  for (int64_t d = 0; d < dim; ++d) outer *= dims[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(dim) + 1; d < dims.size(); ++d) inner *= dims[d];
  uint8_t* dst = out.untyped_data();
  for (int64_t o = 0; o < outer; ++o) {
    int64_t at = 0;
    for (const Literal* p : parts) {
      int64_t n = p->shape().dimensions(dim);
      std::memcpy(dst + (o * total + at) * inner, p->untyped_data() + o * n * inner, static_cast<size_t>(n * inner));
      at += n;
    }
  }
  return out;
}

CollectiveHub::CollectiveHub(int64_t devices)
    : devices_(devices),
      start_ns_(SteadyNs()),
      occurrences_(static_cast<size_t>(devices)),
      state_(static_cast<size_t>(devices), 0),
      waiting_at_(static_cast<size_t>(devices)),
      stopped_status_(static_cast<size_t>(devices)) {}

int64_t CollectiveHub::NowNs() const { return SteadyNs(); }

StatusOr<std::vector<int64_t>> CollectiveHub::GroupOf(const Instruction& inst, int64_t device,
                                                      bool* permute) const {
  ASSIGN_OR_RETURN(CollectiveDevices cd, DevicesOfCollective(inst));
  *permute = cd.pairs;
  std::vector<int64_t> all(static_cast<size_t>(devices_));
  for (int64_t i = 0; i < devices_; ++i) all[static_cast<size_t>(i)] = i;
  if (cd.pairs) return all;  // every device runs the permute; pairs say who sends where
  if (cd.groups.empty()) return all;
  for (const auto& g : cd.groups) {
    if (std::find(g.begin(), g.end(), device) != g.end()) {
      for (int64_t id : g) {
        if (id < 0 || id >= devices_) {
          return InvalidArgument("%" + inst.name() + ": group " + DeviceList(g) + " names device " +
                                 std::to_string(id) + "; this run has " + std::to_string(devices_));
        }
      }
      return g;
    }
  }
  return InvalidArgument("%" + inst.name() + " (" + std::string(OpcodeName(inst.opcode())) + ", " + cd.written +
                         "): device " + std::to_string(device) + " is in none of its groups");
}

StatusOr<Literal> CollectiveHub::Exchange(const Instruction& inst, int64_t device,
                                          const std::vector<const Literal*>& operands) {
  if (device < 0 || device >= devices_) return Internal("collective hub: device out of range");
  bool permute = false;
  ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(inst, device, &permute));
  const std::string base = (inst.parent() ? inst.parent()->name() : std::string("?")) + "/" + inst.name();
  CollectiveEvent event;
  event.device = device;
  event.instruction = inst.name();
  event.kind = std::string(OpcodeName(inst.opcode()));
  event.group = group;
  for (const Literal* op : operands) event.bytes_sent += LeafBytes(*op);
  std::unique_lock<std::mutex> lock(mu_);
  event.start_ns = NowNs();
  int64_t occurrence = occurrences_[static_cast<size_t>(device)][base]++;
  event.occurrence = occurrence;
  const std::string key = base + "#" + std::to_string(occurrence) + "@" + std::to_string(group[0]);
  Round& round = rounds_[key];
  if (round.group.empty()) round.group = group;
  if (round.group != group) {
    return InvalidArgument("%" + inst.name() + ": devices disagree on its group (" + DeviceList(round.group) +
                           " vs " + DeviceList(group) + ")");
  }
  std::vector<Literal>& mine = round.in[device];
  mine.clear();
  for (const Literal* op : operands) mine.push_back(*op);
  if (static_cast<int64_t>(round.in.size()) == static_cast<int64_t>(group.size())) {
    round.error = Compute(inst, round, permute);
    round.complete = true;
    // The members are running again from now on (before they wake), so that a deadlock
    // check made meanwhile does not count them as waiting.
    for (int64_t d : group) {
      if (state_[static_cast<size_t>(d)] == 1 && waiting_at_[static_cast<size_t>(d)] == key)
        state_[static_cast<size_t>(d)] = 0;
    }
    cv_.notify_all();
  } else {
    state_[static_cast<size_t>(device)] = 1;
    waiting_at_[static_cast<size_t>(device)] = key;
    CheckDeadlockLocked();
    cv_.wait(lock, [&] { return round.complete; });
    state_[static_cast<size_t>(device)] = 0;
    waiting_at_[static_cast<size_t>(device)].clear();
  }
  Status error = round.error;
  Literal result;
  if (error.ok()) {
    auto it = round.out.find(device);
    if (it == round.out.end()) error = Internal("collective hub: no result for device " + std::to_string(device));
    else result = std::move(it->second);
  }
  event.end_ns = NowNs();
  if (error.ok()) event.bytes_received = LeafBytes(result);
  if (++round.taken == static_cast<int64_t>(round.group.size()) || !error.ok()) {
    if (round.taken == static_cast<int64_t>(round.group.size())) rounds_.erase(key);
  }
  events_.push_back(std::move(event));
  if (!error.ok()) return error;
  return result;
}

void CollectiveHub::DeviceStopped(int64_t device, const Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (device < 0 || device >= devices_) return;
  state_[static_cast<size_t>(device)] = 2;
  stopped_status_[static_cast<size_t>(device)] = status;
  CheckDeadlockLocked();
}

void CollectiveHub::CheckDeadlockLocked() {
  // Progress is possible while some device runs. Once every device waits or has stopped,
  // no waiting round can complete: fail them all, saying who is missing.
  for (int s : state_) {
    if (s == 0) return;
  }
  bool any = false;
  for (auto& [key, round] : rounds_) {
    if (round.complete) continue;
    std::string missing;
    for (int64_t d : round.group) {
      if (round.in.count(d)) continue;
      if (!missing.empty()) missing += "; ";
      missing += "device " + std::to_string(d);
      if (state_[static_cast<size_t>(d)] == 2) {
        const Status& st = stopped_status_[static_cast<size_t>(d)];
        missing += st.ok() ? " finished without reaching it" : " failed: " + std::string(st.message());
      } else {
        const std::string& at = waiting_at_[static_cast<size_t>(d)];
        missing += " waits at " + at.substr(0, at.find('@'));
      }
    }
    const std::string name = key.substr(0, key.find('@'));
    round.error = Unavailable("collective " + name + " over " + DeviceList(round.group) +
                          " cannot complete: " + missing);
    round.complete = true;
    any = true;
  }
  if (any) cv_.notify_all();
}

std::vector<CollectiveEvent> CollectiveHub::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

namespace {

// One round's inputs, flattened for the exchange rules below: the group in order, every
// member's operands as array leaves (the same count everywhere), the collective's own
// result shape, and its name for messages.
struct ExchangeInputs {
  const Instruction& inst;
  const std::vector<int64_t>& group;
  std::vector<std::vector<const Literal*>> leaves;  // [member][leaf]
  size_t n_leaves = 0;
  Shape result_shape;  // a -start form's tuple (operands, result, ...) holds it as element 1
  std::string what;    // "%name (opcode)"

  size_t members() const { return group.size(); }
  // `results` as the collective's result: the literal itself, or a tuple of them.
  Literal Pack(std::vector<Literal> results) const {
    if (results.size() == 1 && !result_shape.IsTuple()) return std::move(results[0]);
    std::vector<Shape> shapes;
    for (const Literal& r : results) shapes.push_back(r.shape());
    Literal t(Shape::Tuple(shapes));
    for (size_t i = 0; i < results.size(); ++i) t.tuple_elements()[i] = std::move(results[i]);
    return t;
  }
};
using Results = std::map<int64_t, Literal>;  // by member

// all-reduce: every member gets the combination of all; reduce-scatter: member m gets block
// m of it along the scatter dimension.
Status ExchangeReduce(const ExchangeInputs& x, bool scatter, Results& out) {
  const size_t k = x.members();
  Combiner combiner(x.inst.to_apply());
  std::vector<Literal> reduced;
  for (size_t i = 0; i < x.n_leaves; ++i) {
    Literal acc = *x.leaves[0][i];
    for (size_t m = 1; m < k; ++m) {
      if (x.leaves[m][i]->shape().dimensions() != acc.shape().dimensions())
        return Internal(x.what + ": devices passed operands of different shapes");
      RETURN_IF_ERROR(combiner.Apply(acc, *x.leaves[m][i]));
    }
    reduced.push_back(std::move(acc));
  }
  const std::vector<int64_t>& dims = x.inst.dimensions();
  for (size_t m = 0; m < k; ++m) {
    std::vector<Literal> mine;
    for (size_t i = 0; i < x.n_leaves; ++i) {
      if (!scatter) {
        mine.push_back(reduced[i]);
        continue;
      }
      if (dims.empty()) return InvalidArgument(x.what + " has no scatter dimension");
      int64_t d = dims[0];
      if (d < 0 || d >= reduced[i].shape().rank()) return InvalidArgument(x.what + ": scatter dimension out of range");
      int64_t full = reduced[i].shape().dimensions(d);
      if (full % static_cast<int64_t>(k) != 0)
        return InvalidArgument(x.what + ": dimension " + std::to_string(d) + " (" + std::to_string(full) +
                               ") does not split " + std::to_string(k) + " ways");
      int64_t block = full / static_cast<int64_t>(k);
      mine.push_back(SliceAlong(reduced[i], d, static_cast<int64_t>(m) * block, block));
    }
    out[x.group[m]] = x.Pack(std::move(mine));
  }
  return Status::Ok();
}

// all-gather: every member gets the members' operands concatenated along the dimension.
Status ExchangeAllGather(const ExchangeInputs& x, Results& out) {
  const std::vector<int64_t>& dims = x.inst.dimensions();
  if (dims.empty()) return InvalidArgument(x.what + " has no gather dimension");
  int64_t d = dims[0];
  std::vector<Literal> gathered;
  for (size_t i = 0; i < x.n_leaves; ++i) {
    std::vector<const Literal*> parts;
    for (size_t m = 0; m < x.members(); ++m) parts.push_back(x.leaves[m][i]);
    if (d < 0 || d >= parts[0]->shape().rank()) return InvalidArgument(x.what + ": gather dimension out of range");
    for (const Literal* p : parts) {
      for (int64_t a = 0; a < p->shape().rank(); ++a) {
        if (a != d && p->shape().dimensions(a) != parts[0]->shape().dimensions(a))
          return Internal(x.what + ": devices passed operands of different shapes");
      }
    }
    gathered.push_back(ConcatAlong(parts, d));
  }
  for (size_t m = 0; m < x.members(); ++m) out[x.group[m]] = x.Pack(gathered);
  return Status::Ok();
}

// all-to-all. Array form: each operand split along the dimension into k blocks, block j to
// member j. Tuple form: operand j of every member goes to member j.
Status ExchangeAllToAll(const ExchangeInputs& x, Results& out) {
  const size_t k = x.members();
  const std::vector<int64_t>& dims = x.inst.dimensions();
  if (!dims.empty()) {
    int64_t d = dims[0];
    if (x.n_leaves != 1) return Unimplemented(x.what + ": array all-to-all with several operands");
    const Shape& s = x.leaves[0][0]->shape();
    if (d < 0 || d >= s.rank()) return InvalidArgument(x.what + ": split dimension out of range");
    if (s.dimensions(d) % static_cast<int64_t>(k) != 0)
      return InvalidArgument(x.what + ": dimension " + std::to_string(d) + " does not split " + std::to_string(k) + " ways");
    int64_t block = s.dimensions(d) / static_cast<int64_t>(k);
    for (size_t j = 0; j < k; ++j) {
      std::vector<Literal> blocks;
      for (size_t m = 0; m < k; ++m) blocks.push_back(SliceAlong(*x.leaves[m][0], d, static_cast<int64_t>(j) * block, block));
      std::vector<const Literal*> parts;
      for (const Literal& b : blocks) parts.push_back(&b);
      out[x.group[j]] = ConcatAlong(parts, d);
    }
    return Status::Ok();
  }
  if (x.n_leaves != k)
    return InvalidArgument(x.what + ": tuple all-to-all needs one operand per group member (" +
                           std::to_string(x.n_leaves) + " operands, " + std::to_string(k) + " members)");
  for (size_t j = 0; j < k; ++j) {
    std::vector<Literal> received;
    for (size_t m = 0; m < k; ++m) received.push_back(*x.leaves[m][j]);
    out[x.group[j]] = x.Pack(std::move(received));
  }
  return Status::Ok();
}

// collective-permute: each member gets its source's operands, or zeros when no pair names
// it as a target.
Status ExchangePermute(const ExchangeInputs& x, Results& out) {
  for (size_t m = 0; m < x.members(); ++m) {
    int64_t me = x.group[m];
    const std::vector<const Literal*>* from = nullptr;
    for (const auto& [src, dst] : x.inst.attrs().source_target_pairs) {
      if (dst == me) {
        auto it = std::find(x.group.begin(), x.group.end(), src);
        if (it == x.group.end()) return InvalidArgument(x.what + ": source " + std::to_string(src) + " is not a device of the run");
        from = &x.leaves[static_cast<size_t>(it - x.group.begin())];
      }
    }
    std::vector<Literal> got;
    for (size_t i = 0; i < x.n_leaves; ++i) {
      got.push_back(from ? *(*from)[i] : Literal(x.leaves[m][i]->shape()));
    }
    out[me] = x.Pack(std::move(got));
  }
  return Status::Ok();
}

// collective-broadcast: every member gets the first member's operands.
Status ExchangeBroadcast(const ExchangeInputs& x, Results& out) {
  for (size_t m = 0; m < x.members(); ++m) {
    std::vector<Literal> got;
    for (size_t i = 0; i < x.n_leaves; ++i) got.push_back(*x.leaves[0][i]);
    out[x.group[m]] = x.Pack(std::move(got));
  }
  return Status::Ok();
}

}  // namespace

Status CollectiveHub::Compute(const Instruction& inst, Round& round, bool permute) {
  (void)permute;
  const Opcode opcode = inst.opcode();
  const bool start_form = opcode == Opcode::kAllReduceStart || opcode == Opcode::kAllGatherStart ||
                          opcode == Opcode::kCollectivePermuteStart;
  ExchangeInputs x{inst, round.group, {}, 0,
                   start_form && inst.shape().IsTuple() && inst.shape().tuple_size() >= 2 ? inst.shape().tuple_shapes(1)
                                                                                          : inst.shape(),
                   "%" + inst.name() + " (" + std::string(OpcodeName(opcode)) + ")"};
  x.leaves.resize(x.members());
  for (size_t m = 0; m < x.members(); ++m) {
    for (const Literal& l : round.in.at(x.group[m])) Leaves(l, x.leaves[m]);
    if (x.leaves[m].size() != x.leaves[0].size()) return Internal(x.what + ": devices passed different operands");
  }
  x.n_leaves = x.leaves[0].size();
  switch (opcode) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart: return ExchangeReduce(x, /*scatter=*/false, round.out);
    case Opcode::kReduceScatter: return ExchangeReduce(x, /*scatter=*/true, round.out);
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart: return ExchangeAllGather(x, round.out);
    case Opcode::kAllToAll: return ExchangeAllToAll(x, round.out);
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart: return ExchangePermute(x, round.out);
    case Opcode::kCollectiveBroadcast: return ExchangeBroadcast(x, round.out);
    default:
      return Unimplemented(x.what + ": not a collective the multi-device runtime exchanges");
  }
}

}  // namespace fusebox::interpreter
