// The random module generator: builds HLO text instruction by instruction, keeping the
// shape of every value it made, so each operation picks operands it can legally take.
#include "fuzz/module_generator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "compiler/ir/opcode.h"
#include "compiler/parser/parser.h"

namespace fusebox::fuzz {
namespace {

enum class Type { kF32, kF16, kBF16, kS32, kPred, kC64 };  // c64 only inside complex islands
constexpr Type kAllTypes[] = {Type::kF32, Type::kF16, Type::kBF16, Type::kS32, Type::kPred};

const char* TypeName(Type t) {
  switch (t) {
    case Type::kF32:
      return "f32";
    case Type::kF16:
      return "f16";
    case Type::kBF16:
      return "bf16";
    case Type::kS32:
      return "s32";
    case Type::kPred:
      return "pred";
    case Type::kC64:
      return "c64";
  }
  return "f32";
}

bool IsFloat(Type t) { return t == Type::kF32 || t == Type::kF16 || t == Type::kBF16; }

using Dims = std::vector<int64_t>;

int64_t Elements(const Dims& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

std::string ShapeText(Type t, const Dims& dims) {
  std::string s = std::string(TypeName(t)) + "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string List(const std::vector<int64_t>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "}";
}

// splitmix64: the same stream on every host (std's distributions are not portable).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int64_t Below(int64_t n) {
    return n <= 1 ? 0 : static_cast<int64_t>(Next() % static_cast<uint64_t>(n));
  }
  int64_t Range(int64_t lo, int64_t hi) { return lo + Below(hi - lo + 1); }  // inclusive
  bool Chance(int percent) { return Below(100) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Below(static_cast<int64_t>(v.size())))];
  }

 private:
  uint64_t state_;
};

struct Value {
  std::string name;
  Type type;
  Dims dims;
  bool is_parameter = false;
  bool varies = false;  // depends on a parameter (not a constant or iota only)
};

// What all computations of one module share: the random stream, unique names, the
// called computations already written (reducers once per kind).
struct ModuleState {
  explicit ModuleState(uint64_t seed, const GeneratorOptions& o) : rng(seed), options(o) {}
  Rng rng;
  GeneratorOptions options;
  int64_t next_id = 0;
  std::vector<std::string> computations;  // text, callees before callers
  std::map<std::string, bool> reducers;
  std::string Fresh(const std::string& prefix) { return prefix + "." + std::to_string(next_id++); }
};

// One computation being built.
class Builder {
 public:
  Builder(ModuleState& m, bool entry, int depth)
      : m_(m), rng_(m.rng), entry_(entry), depth_(depth) {}

  std::vector<std::string>& lines() { return lines_; }
  std::vector<Value>& values() { return values_; }

  Value Emit(Type t, const Dims& dims, const std::string& rhs, const std::string& prefix) {
    Value v{m_.Fresh(prefix), t, dims};
    std::string layout;
    // Now and then a layout other than row-major on an entry value (the CPU backend
    // normalizes layouts; the interpreter ignores them).
    if (entry_ && dims.size() >= 2 && rng_.Chance(12)) {
      std::vector<int64_t> minor_to_major(dims.size());
      std::iota(minor_to_major.begin(), minor_to_major.end(), 0);
      for (size_t i = minor_to_major.size(); i > 1; --i) {
        std::swap(minor_to_major[i - 1],
                  minor_to_major[static_cast<size_t>(rng_.Below(static_cast<int64_t>(i)))]);
      }
      layout = List(minor_to_major);
    }
    // Operands are the names inside the first parentheses.
    size_t open = rhs.find('('), close = rhs.find(')');
    bool leaf = rhs.rfind("constant(", 0) == 0 || rhs.rfind("iota(", 0) == 0;
    std::string operands =
        open == std::string::npos || leaf ? "" : rhs.substr(open + 1, close - open - 1);
    for (size_t at = 0; at < operands.size();) {
      size_t end = std::min(operands.find(", ", at), operands.size());
      std::string name = operands.substr(at, end - at);
      auto known = std::find_if(values_.begin(), values_.end(),
                                [&](const Value& o) { return o.name == name; });
      // Tuples, while loops and conditionals are no values here: count them as varying.
      if (known == values_.end() || known->varies) v.varies = true;
      at = end + 2;
    }
    lines_.push_back("  " + v.name + " = " + ShapeText(t, dims) + layout + " " + rhs);
    values_.push_back(v);
    return v;
  }

  Value Parameter(Type t, const Dims& dims) {
    Value v = Emit(t, dims, "parameter(" + std::to_string(parameters_++) + ")", "p");
    values_.back().is_parameter = values_.back().varies = true;
    v.is_parameter = v.varies = true;
    return v;
  }

  Dims RandomDims(int max_rank, int64_t max_elements) {
    int rank = static_cast<int>(rng_.Below(100) < 10 ? 0 : rng_.Range(1, max_rank));
    Dims dims;
    // Dimensions up to 9 at the default size limit, longer for larger limits.
    int64_t longest = std::max<int64_t>(
        9, static_cast<int64_t>(std::cbrt(static_cast<double>(m_.options.max_elements))));
    for (int i = 0; i < rank; ++i)
      dims.push_back(rng_.Chance(15) ? 1 : rng_.Range(2, rng_.Chance(70) ? 9 : longest));
    while (Elements(dims) > max_elements) {
      auto it = std::max_element(dims.begin(), dims.end());
      *it = std::max<int64_t>(1, *it / 2);
    }
    return dims;
  }

  Type RandomType() {
    int r = static_cast<int>(rng_.Below(100));
    if (r < 55) return Type::kF32;
    if (r < 65) return Type::kF16;
    if (r < 73) return Type::kBF16;
    if (r < 90) return Type::kS32;
    return Type::kPred;
  }

  std::string ScalarConstantText(Type t, double value) {
    if (t == Type::kPred) return value != 0 ? "true" : "false";
    if (t == Type::kS32) return std::to_string(static_cast<int64_t>(value));
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g", value);
    return buf;
  }

  // A scalar constant other than a small integer now and then: the values where backends
  // and the interpreter part ways (NaN, infinities, -0, overflow in f16, denormals,
  // shift counts past the width, INT_MIN).
  Value EdgeConstant(Type t) {
    if (t == Type::kPred) return Constant(t, static_cast<double>(rng_.Below(2)));
    if (t == Type::kS32) {
      static const std::vector<std::string> values = {"-2147483648", "2147483647", "-1",  "0", "31",
                                                      "32",          "33",         "-33", "7"};
      return Emit(t, {}, "constant(" + rng_.Pick(values) + ")", "c");
    }
    static const std::vector<std::string> values = {"nan",   "inf",   "-inf",  "-0",    "0",
                                                    "0.5",   "-1",    "3",     "1e+30", "-1e+30",
                                                    "65504", "70000", "1e-40", "3e+09", "-2.5"};
    return Emit(t, {}, "constant(" + rng_.Pick(values) + ")", "c");
  }

  Value Constant(Type t, double value) {
    return Emit(t, {}, "constant(" + ScalarConstantText(t, value) + ")", "c");
  }

  Value Splat(Type t, double value, const Dims& dims) {
    Value c = Constant(t, value);
    if (dims.empty()) return c;
    return Emit(t, dims, "broadcast(" + c.name + "), dimensions={}", "bcast");
  }

  Value Convert(const Value& v, Type t) {
    if (v.type == t) return v;
    return Emit(t, v.dims, "convert(" + v.name + ")", "convert");
  }

  Value Reshape(const Value& v, const Dims& dims) {
    if (v.dims == dims) return v;
    return Emit(v.type, dims, "reshape(" + v.name + ")", "reshape");
  }

  // A value of exactly this type and shape: one already made, a new parameter, or one
  // derived from another value by convert, slice, pad, broadcast and reshape.
  Value Get(Type t, const Dims& dims) {
    std::vector<size_t> exact;
    for (size_t i = 0; i < values_.size(); ++i) {
      if (values_[i].type == t && values_[i].dims == dims && values_[i].varies) exact.push_back(i);
    }
    if (!exact.empty() && rng_.Chance(60)) return values_[rng_.Pick(exact)];
    if (entry_ && parameters_ < m_.options.max_parameters && (values_.empty() || rng_.Chance(20))) {
      return Parameter(t, dims);
    }
    if (values_.empty()) return Splat(t, 1, dims);
    // Prefer recent values: chains get deep instead of wide.
    size_t n = values_.size();
    size_t pick =
        rng_.Chance(60)
            ? n - 1 - static_cast<size_t>(rng_.Below(std::min<int64_t>(4, static_cast<int64_t>(n))))
            : static_cast<size_t>(rng_.Below(static_cast<int64_t>(n)));
    for (int tries = 0; tries < 4 && !values_[pick].varies; ++tries)
      pick = static_cast<size_t>(rng_.Below(static_cast<int64_t>(n)));
    Value v = Convert(values_[pick], t);
    int64_t have = Elements(v.dims), need = Elements(dims);
    if (have == need) return Reshape(v, dims);
    if (have == 1 || (rng_.Chance(20) && have < need)) {
      int64_t at = rng_.Below(have);
      Value s = have == 1 ? Reshape(v, {}) : Reshape(Slice1D(Reshape(v, {have}), at, at + 1), {});
      return dims.empty() ? s : Emit(t, dims, "broadcast(" + s.name + "), dimensions={}", "bcast");
    }
    // Same rank and every dimension at least as large: a slice keeps the structure.
    if (v.dims.size() == dims.size() && have > need) {
      bool fits = true;
      for (size_t i = 0; i < dims.size(); ++i) fits = fits && v.dims[i] >= dims[i];
      if (fits) {
        std::string spec;
        for (size_t i = 0; i < dims.size(); ++i) {
          int64_t start = rng_.Below(v.dims[i] - dims[i] + 1);
          spec += std::string(i ? ", " : "") + "[" + std::to_string(start) + ":" +
                  std::to_string(start + dims[i]) + "]";
        }
        return Emit(t, dims, "slice(" + v.name + "), slice={" + spec + "}", "slice");
      }
    }
    Value flat = Reshape(v, {have});
    if (have > need) {
      int64_t start = rng_.Below(have - need + 1);
      return Reshape(Slice1D(flat, start, start + need), dims);
    }
    Value pad_value = Constant(t, t == Type::kPred ? 0 : static_cast<double>(rng_.Range(-1, 1)));
    int64_t low = rng_.Below(need - have + 1);
    Value padded =
        Emit(t, {need},
             "pad(" + flat.name + ", " + pad_value.name + "), padding=" + std::to_string(low) +
                 "_" + std::to_string(need - have - low),
             "pad");
    return Reshape(padded, dims);
  }

  Value Slice1D(const Value& v, int64_t start, int64_t limit) {
    return Emit(v.type, {limit - start},
                "slice(" + v.name + "), slice={[" + std::to_string(start) + ":" +
                    std::to_string(limit) + "]}",
                "slice");
  }

  Value AnyValue() {
    if (values_.empty() || (entry_ && parameters_ == 0))
      return Get(RandomType(), RandomDims(3, m_.options.max_elements / 4));
    size_t n = values_.size();
    if (rng_.Chance(70))
      return values_[n - 1 -
                     static_cast<size_t>(
                         rng_.Below(std::min<int64_t>(3, static_cast<int64_t>(n))))];
    return values_[static_cast<size_t>(rng_.Below(static_cast<int64_t>(n)))];
  }

  // --- Operations --------------------------------------------------------------------

  Value Unary(const Value& v) {
    if (v.type == Type::kPred) return Emit(v.type, v.dims, "not(" + v.name + ")", "not");
    if (v.type == Type::kS32) {
      static const std::vector<std::string> ops = {"negate", "abs", "sign", "not", "popcnt"};
      const std::string& op = rng_.Pick(ops);
      return Emit(v.type, v.dims, op + "(" + v.name + ")", op);
    }
    static const std::vector<std::string> ops = {"negate",
                                                 "abs",
                                                 "exponential",
                                                 "tanh",
                                                 "logistic",
                                                 "sine",
                                                 "cosine",
                                                 "floor",
                                                 "ceil",
                                                 "sign",
                                                 "round-nearest-even",
                                                 "sqrt",
                                                 "rsqrt",
                                                 "log",
                                                 "log-plus-one",
                                                 "exponential-minus-one"};
    const std::string& op = rng_.Pick(ops);
    Value x = v;
    if (op == "sqrt" || op == "rsqrt" || op == "log" || op == "log-plus-one") {
      // Keep the argument in the domain: |x| + 1 (or |x| for sqrt).
      x = Emit(v.type, v.dims, "abs(" + v.name + ")", "abs");
      if (op != "sqrt") x = Binary2("add", x, Splat(v.type, 1, v.dims));
    } else if (op == "exponential" || op == "exponential-minus-one") {
      x = Emit(v.type, v.dims, "tanh(" + v.name + ")", "tanh");  // bounded: no overflow
    }
    return Emit(v.type, v.dims, op + "(" + x.name + ")", op == "round-nearest-even" ? "round" : op);
  }

  Value Binary2(const std::string& op, const Value& a, const Value& b) {
    return Emit(a.type, a.dims, op + "(" + a.name + ", " + b.name + ")", op);
  }

  Value Binary(const Value& a) {
    Value b = Get(a.type, a.dims);
    if (rng_.Chance(15)) {
      b = Splat(a.type, a.type == Type::kPred ? 1 : static_cast<double>(rng_.Range(-2, 3)), a.dims);
    } else if (rng_.Chance(8)) {
      Value c = EdgeConstant(a.type);
      b = a.dims.empty()
              ? c
              : Emit(a.type, a.dims, "broadcast(" + c.name + "), dimensions={}", "bcast");
    }
    if (a.type == Type::kPred) {
      static const std::vector<std::string> ops = {"and", "or", "xor"};
      return Binary2(rng_.Pick(ops), a, b);
    }
    if (a.type == Type::kS32) {
      static const std::vector<std::string> ops = {"add",
                                                   "subtract",
                                                   "multiply",
                                                   "maximum",
                                                   "minimum",
                                                   "and",
                                                   "or",
                                                   "xor",
                                                   "divide",
                                                   "remainder",
                                                   "shift-left",
                                                   "shift-right-arithmetic",
                                                   "shift-right-logical"};
      const std::string& op = rng_.Pick(ops);
      Value rhs = b;
      if (op == "divide" || op == "remainder") {
        // Nonzero divisors mostly; XLA defines x / 0 and INT_MIN / -1, so some stay raw.
        if (rng_.Chance(80))
          rhs = Binary2("maximum", Emit(b.type, b.dims, "abs(" + b.name + ")", "abs"),
                        Splat(b.type, 1, b.dims));
      }
      return Binary2(op, a, rhs);
    }
    static const std::vector<std::string> ops = {"add",     "subtract", "multiply",
                                                 "maximum", "minimum",  "divide",
                                                 "power",   "atan2",    "remainder"};
    const std::string& op = rng_.Pick(ops);
    Value lhs = a, rhs = b;
    if (op == "divide" || op == "remainder") {
      rhs = Binary2("add", Emit(b.type, b.dims, "abs(" + b.name + ")", "abs"),
                    Splat(b.type, 1, b.dims));
    } else if (op == "power") {
      lhs = Binary2("add", Emit(a.type, a.dims, "abs(" + a.name + ")", "abs"),
                    Splat(a.type, 1, a.dims));
      rhs = Emit(b.type, b.dims, "tanh(" + b.name + ")", "tanh");
    }
    return Binary2(op, lhs, rhs);
  }

  Value CompareSelect(const Value& a) {
    static const std::vector<std::string> dirs = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    Value b = Get(a.type, a.dims);
    Value p =
        Emit(Type::kPred, a.dims,
             "compare(" + a.name + ", " + b.name + "), direction=" + rng_.Pick(dirs), "compare");
    if (rng_.Chance(25)) return p;
    Value on_true = rng_.Chance(50) ? a : b;
    Value on_false = Get(a.type, a.dims);
    if (rng_.Chance(20)) {
      // A scalar predicate chooses whole arrays.
      Value sp = Get(Type::kPred, {});
      return Emit(a.type, a.dims,
                  "select(" + sp.name + ", " + on_true.name + ", " + on_false.name + ")", "select");
    }
    return Emit(a.type, a.dims,
                "select(" + p.name + ", " + on_true.name + ", " + on_false.name + ")", "select");
  }

  Value ConvertOp(const Value& v) {
    Type t = v.type;
    while (t == v.type) t = kAllTypes[rng_.Below(5)];
    Value x = v;
    if (IsFloat(v.type) && (t == Type::kS32 || IsFloat(t)) && rng_.Chance(70)) {
      // Integers other than 0 too; now and then past the target's range (s32 saturates,
      // f16 overflows to inf).
      x = Binary2("multiply", v, Splat(v.type, rng_.Chance(80) ? 8 : 1e10, v.dims));
    }
    return Convert(x, t);
  }

  Value Broadcast(const Value& v) {
    int64_t elements = Elements(v.dims);
    Dims out = v.dims;
    std::vector<bool> is_new(out.size(), false);
    int extra = static_cast<int>(rng_.Range(1, 2));
    for (int i = 0; i < extra && out.size() < 4; ++i) {
      int64_t size = rng_.Range(1, 6);
      if (elements * size > m_.options.max_elements) break;
      elements *= size;
      size_t pos = static_cast<size_t>(rng_.Below(static_cast<int64_t>(out.size()) + 1));
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(pos), size);
      is_new.insert(is_new.begin() + static_cast<std::ptrdiff_t>(pos), true);
    }
    std::vector<int64_t> dimensions;
    for (size_t i = 0; i < out.size(); ++i) {
      if (!is_new[i]) dimensions.push_back(static_cast<int64_t>(i));
    }
    if (out == v.dims) return Unary(v);
    return Emit(v.type, out, "broadcast(" + v.name + "), dimensions=" + List(dimensions),
                "broadcast");
  }

  std::string Reducer(const std::string& kind, Type t) {
    std::string name = kind + "_" + TypeName(t);
    if (m_.reducers[name]) return name;
    m_.reducers[name] = true;
    std::string s = ShapeText(t, {});
    m_.computations.push_back(name + " {\n  a = " + s + " parameter(0)\n  b = " + s +
                              " parameter(1)\n  ROOT r = " + s + " " + kind + "(a, b)\n}\n");
    return name;
  }

  Value Reduce(const Value& v) {
    if (v.dims.empty()) return Unary(v);
    std::vector<int64_t> reduced, kept_dims;
    Dims out;
    for (size_t i = 0; i < v.dims.size(); ++i) {
      if (rng_.Chance(50)) {
        reduced.push_back(static_cast<int64_t>(i));
      } else {
        out.push_back(v.dims[i]);
      }
    }
    if (reduced.empty()) {
      reduced.push_back(static_cast<int64_t>(v.dims.size()) - 1);
      out.pop_back();
    }
    std::string kind;
    std::string init;
    if (v.type == Type::kPred) {
      kind = rng_.Chance(50) ? "and" : "or";
      init = kind == "and" ? "true" : "false";
    } else {
      static const std::vector<std::string> kinds = {"add", "add", "maximum", "minimum"};
      kind = rng_.Pick(kinds);
      bool is_int = v.type == Type::kS32;
      if (kind == "add") init = "0";
      if (kind == "maximum") init = is_int ? "-2147483648" : "-inf";
      if (kind == "minimum") init = is_int ? "2147483647" : "inf";
    }
    Value c = Emit(v.type, {}, "constant(" + init + ")", "init");
    return Emit(v.type, out,
                "reduce(" + v.name + ", " + c.name + "), dimensions=" + List(reduced) +
                    ", to_apply=" + Reducer(kind, v.type),
                "reduce");
  }

  Value Dot(const Value& hint) {
    Type t = IsFloat(hint.type) ? hint.type : (rng_.Chance(80) ? Type::kF32 : Type::kS32);
    int batch = rng_.Chance(35) ? 1 : 0;
    int contracting = rng_.Chance(15) ? 2 : 1;
    int lhs_free = static_cast<int>(rng_.Below(3) > 0 ? 1 : 0);
    int rhs_free = static_cast<int>(rng_.Below(3) > 0 ? 1 : 0);
    // Logical dimensions: batch, contracting, free; sizes small.
    Dims batch_sizes, k_sizes, m_sizes, n_sizes;
    for (int i = 0; i < batch; ++i) batch_sizes.push_back(rng_.Range(1, 4));
    for (int i = 0; i < contracting; ++i)
      k_sizes.push_back(rng_.Range(1, contracting == 2 ? 5 : 16));
    for (int i = 0; i < lhs_free; ++i) m_sizes.push_back(rng_.Range(1, 12));
    for (int i = 0; i < rhs_free; ++i) n_sizes.push_back(rng_.Range(1, 12));
    // Lay each operand's logical dimensions out in a random order.
    struct Role {
      char kind;  // 'b', 'k', 'f'
      int index;
      int64_t size;
    };
    auto layout = [&](const Dims& free) {
      std::vector<Role> roles;
      for (int i = 0; i < batch; ++i)
        roles.push_back({'b', i, batch_sizes[static_cast<size_t>(i)]});
      for (int i = 0; i < contracting; ++i)
        roles.push_back({'k', i, k_sizes[static_cast<size_t>(i)]});
      for (size_t i = 0; i < free.size(); ++i) roles.push_back({'f', static_cast<int>(i), free[i]});
      for (size_t i = roles.size(); i > 1; --i)
        std::swap(roles[i - 1], roles[static_cast<size_t>(rng_.Below(static_cast<int64_t>(i)))]);
      return roles;
    };
    std::vector<Role> lr = layout(m_sizes), rr = layout(n_sizes);
    auto dims_of = [](const std::vector<Role>& roles) {
      Dims d;
      for (const Role& r : roles) d.push_back(r.size);
      return d;
    };
    auto positions = [](const std::vector<Role>& roles, char kind, int count) {
      std::vector<int64_t> pos(static_cast<size_t>(count));
      for (size_t i = 0; i < roles.size(); ++i) {
        if (roles[i].kind == kind)
          pos[static_cast<size_t>(roles[i].index)] = static_cast<int64_t>(i);
      }
      return pos;
    };
    Dims out = batch_sizes;
    for (const Role& r : lr)
      if (r.kind == 'f') out.push_back(r.size);
    for (const Role& r : rr)
      if (r.kind == 'f') out.push_back(r.size);
    Value lhs = Get(t, dims_of(lr));
    Value rhs = Get(t, dims_of(rr));
    std::string attrs;
    if (batch) {
      attrs += ", lhs_batch_dims=" + List(positions(lr, 'b', batch)) +
               ", rhs_batch_dims=" + List(positions(rr, 'b', batch));
    }
    attrs += ", lhs_contracting_dims=" + List(positions(lr, 'k', contracting)) +
             ", rhs_contracting_dims=" + List(positions(rr, 'k', contracting));
    return Emit(t, out, "dot(" + lhs.name + ", " + rhs.name + ")" + attrs, "dot");
  }

  Value Transpose(const Value& v) {
    if (v.dims.size() < 2) return Broadcast(v);
    std::vector<int64_t> perm(v.dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    for (size_t i = perm.size(); i > 1; --i)
      std::swap(perm[i - 1], perm[static_cast<size_t>(rng_.Below(static_cast<int64_t>(i)))]);
    Dims out;
    for (int64_t p : perm) out.push_back(v.dims[static_cast<size_t>(p)]);
    return Emit(v.type, out, "transpose(" + v.name + "), dimensions=" + List(perm), "transpose");
  }

  Value SliceOp(const Value& v) {
    if (v.dims.empty()) return Unary(v);
    std::string spec;
    Dims out;
    for (size_t i = 0; i < v.dims.size(); ++i) {
      int64_t d = v.dims[i];
      int64_t start = rng_.Below(d);
      int64_t limit = rng_.Range(start + 1, d);
      int64_t stride = rng_.Chance(30) ? rng_.Range(2, 3) : 1;
      out.push_back((limit - start + stride - 1) / stride);
      spec += std::string(i ? ", " : "") + "[" + std::to_string(start) + ":" +
              std::to_string(limit) + (stride > 1 ? ":" + std::to_string(stride) : "") + "]";
    }
    return Emit(v.type, out, "slice(" + v.name + "), slice={" + spec + "}", "slice");
  }

  Value PadOp(const Value& v) {
    if (v.dims.empty()) return Unary(v);
    std::string spec;
    Dims out;
    int64_t elements = 1;
    for (size_t i = 0; i < v.dims.size(); ++i) {
      int64_t d = v.dims[i];
      int64_t low = rng_.Range(d > 2 ? -1 : 0, 2), high = rng_.Range(d > 2 ? -1 : 0, 2);
      int64_t interior = rng_.Chance(25) ? 1 : 0;
      int64_t size = low + high + d + (d - 1) * interior;
      if (size < 1 || elements * size > m_.options.max_elements)
        low = high = interior = 0, size = d;
      elements *= size;
      out.push_back(size);
      spec += std::string(i ? "x" : "") + std::to_string(low) + "_" + std::to_string(high) +
              (interior ? "_" + std::to_string(interior) : "");
    }
    Value pad_value =
        Constant(v.type, v.type == Type::kPred ? 1 : static_cast<double>(rng_.Range(-1, 2)));
    return Emit(v.type, out, "pad(" + v.name + ", " + pad_value.name + "), padding=" + spec, "pad");
  }

  Value Concatenate(const Value& v) {
    if (v.dims.empty()) return Unary(v);
    size_t dim = static_cast<size_t>(rng_.Below(static_cast<int64_t>(v.dims.size())));
    std::vector<Value> parts = {v};
    int64_t others = rng_.Range(1, 2);
    Dims out = v.dims;
    for (int64_t i = 0; i < others; ++i) {
      Dims d = v.dims;
      d[dim] = rng_.Range(1, 5);
      if (Elements(out) / out[dim] * (out[dim] + d[dim]) > m_.options.max_elements) break;
      out[dim] += d[dim];
      parts.push_back(Get(v.type, d));
    }
    if (parts.size() == 1) return Unary(v);
    if (rng_.Chance(50)) std::swap(parts[0], parts[1]);
    std::string operands;
    for (size_t i = 0; i < parts.size(); ++i) operands += (i ? ", " : "") + parts[i].name;
    return Emit(v.type, out,
                "concatenate(" + operands + "), dimensions={" + std::to_string(dim) + "}",
                "concatenate");
  }

  // jnp.roll along one dim: the slices [s, n) and [0, s) of v concatenated (what the SPMD
  // partitioner reads as a rotation when that dim is split).
  Value Roll(const Value& v) {
    if (v.dims.empty()) return Unary(v);
    const size_t dim = static_cast<size_t>(rng_.Below(static_cast<int64_t>(v.dims.size())));
    const int64_t n = v.dims[dim];
    if (n < 2) return Unary(v);
    const int64_t s = rng_.Range(1, n - 1);
    auto slice = [&](int64_t start, int64_t limit) {
      std::string spec;
      Dims out = v.dims;
      out[dim] = limit - start;
      for (size_t i = 0; i < v.dims.size(); ++i) {
        spec += std::string(i ? ", " : "") + "[" + std::to_string(i == dim ? start : 0) + ":" +
                std::to_string(i == dim ? limit : v.dims[i]) + "]";
      }
      return Emit(v.type, out, "slice(" + v.name + "), slice={" + spec + "}", "slice");
    };
    Value tail = slice(s, n), head = slice(0, s);
    return Emit(v.type, v.dims,
                "concatenate(" + tail.name + ", " + head.name + "), dimensions={" + std::to_string(dim) + "}", "roll");
  }

  Value Reverse(const Value& v) {
    if (v.dims.empty()) return Unary(v);
    std::vector<int64_t> dims;
    for (size_t i = 0; i < v.dims.size(); ++i) {
      if (rng_.Chance(50)) dims.push_back(static_cast<int64_t>(i));
    }
    if (dims.empty()) dims.push_back(0);
    return Emit(v.type, v.dims, "reverse(" + v.name + "), dimensions=" + List(dims), "reverse");
  }

  Value ReshapeOp(const Value& v) {
    // Split the element count into a random number of factors.
    int64_t n = Elements(v.dims);
    std::vector<int64_t> primes;
    for (int64_t p = 2; p * p <= n; ++p) {
      while (n % p == 0) primes.push_back(p), n /= p;
    }
    if (n > 1) primes.push_back(n);
    int rank = static_cast<int>(rng_.Range(1, 4));
    Dims out(static_cast<size_t>(rank), 1);
    for (int64_t p : primes) out[static_cast<size_t>(rng_.Below(rank))] *= p;
    if (out == v.dims) return Unary(v);
    return Reshape(v, out);
  }

  Value Clamp(const Value& v) {
    if (v.type == Type::kPred) return Unary(v);
    Value lo = Constant(v.type, static_cast<double>(rng_.Range(-3, 0)) / (IsFloat(v.type) ? 4 : 1));
    Value hi =
        rng_.Chance(70)
            ? Constant(v.type, static_cast<double>(rng_.Range(0, 3)) / (IsFloat(v.type) ? 4 : 1))
            : Get(v.type, v.dims);
    return Emit(v.type, v.dims, "clamp(" + lo.name + ", " + v.name + ", " + hi.name + ")", "clamp");
  }

  // Start indices: s32 scalars from anywhere (XLA clamps them into range), or constants.
  std::string StartIndices(size_t rank, const Dims& operand, const Dims& window) {
    std::string starts;
    for (size_t i = 0; i < rank; ++i) {
      Value s = rng_.Chance(50)
                    ? Constant(Type::kS32,
                               static_cast<double>(rng_.Range(-1, operand[i] - window[i] + 1)))
                    : Get(Type::kS32, {});
      starts += ", " + s.name;
    }
    return starts;
  }

  // Combines a result with an operand whose buffer it may have reused: a subtract
  // (out - init of a loop that changed little is rounding noise the check must bound),
  // an add, a maximum or a multiply.
  Value ReadAgain(const Value& out, const Value& operand) {
    static const char* const kOps[] = {"subtract", "add", "maximum", "multiply"};
    return Binary2(kOps[rng_.Below(4)], out, operand);
  }

  Value DynamicSlice(const Value& v) {
    if (v.dims.empty()) return Unary(v);
    Dims sizes;
    for (int64_t d : v.dims) sizes.push_back(rng_.Range(1, d));
    std::string starts = StartIndices(v.dims.size(), v.dims, sizes);
    return Emit(v.type, sizes,
                "dynamic-slice(" + v.name + starts + "), dynamic_slice_sizes=" + List(sizes),
                "dynamic-slice");
  }

  Value DynamicUpdateSlice(const Value& v) {
    if (v.dims.empty()) return Unary(v);
    Dims sizes;
    for (int64_t d : v.dims) sizes.push_back(rng_.Range(1, d));
    Value update = Get(v.type, sizes);
    std::string starts = StartIndices(v.dims.size(), v.dims, sizes);
    Value out =
        Emit(v.type, v.dims, "dynamic-update-slice(" + v.name + ", " + update.name + starts + ")",
             "dynamic-update-slice");
    // The operand read after the in-place update.
    return rng_.Chance(40) && v.type != Type::kPred ? ReadAgain(out, v) : out;
  }

  // Softmax, log-softmax, layer norm or RMS norm over a row (the trailing dimensions,
  // now and then other ones): reductions whose values are read back through broadcasts,
  // what row fusion turns into one kernel.
  Value Normalization(const Value& hint) {
    Type t = IsFloat(hint.type) ? hint.type : Type::kF32;
    int rank = static_cast<int>(rng_.Range(2, 3));
    Dims dims;
    for (int i = 0; i < rank; ++i) dims.push_back(rng_.Range(1, i == rank - 1 ? 64 : 12));
    while (Elements(dims) > 4 * m_.options.max_elements)
      dims[0] = std::max<int64_t>(1, dims[0] / 2);
    std::vector<bool> reduced(dims.size(), false);
    if (rng_.Chance(80)) {
      int64_t trailing = rng_.Chance(75) ? 1 : rank - 1;
      for (int64_t i = rank - trailing; i < rank; ++i) reduced[static_cast<size_t>(i)] = true;
    } else {
      reduced[static_cast<size_t>(rng_.Below(rank))] = true;
    }
    std::vector<int64_t> reduce_dims, kept;
    Dims row_dims;
    int64_t n = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (reduced[i]) {
        reduce_dims.push_back(static_cast<int64_t>(i));
        n *= dims[i];
      } else {
        kept.push_back(static_cast<int64_t>(i));
        row_dims.push_back(dims[i]);
      }
    }
    auto reduce = [&](const Value& v, const std::string& kind) {
      std::string init = kind == "add" ? "0" : kind == "maximum" ? "-inf" : "inf";
      Value c = Emit(t, {}, "constant(" + init + ")", "init");
      return Emit(t, row_dims,
                  "reduce(" + v.name + ", " + c.name + "), dimensions=" + List(reduce_dims) +
                      ", to_apply=" + Reducer(kind, t),
                  "reduce");
    };
    auto back = [&](const Value& r) {
      return Emit(t, dims, "broadcast(" + r.name + "), dimensions=" + List(kept), "broadcast");
    };
    auto binary = [&](const std::string& op, const Value& a, const Value& b) {
      return Binary2(op, a, b);
    };
    auto unary = [&](const std::string& op, const Value& a) {
      return Emit(t, dims, op + "(" + a.name + ")", op);
    };
    Value x = Get(t, dims);
    // Half the time a ramp along the row, half the time as generated (rows may be
    // constant: x - mean(x) is then rounding noise that normalization scales up, which the
    // check's perturbed runs must bound; tests/regressions/layer_norm_of_a_constant_row.hlo).
    if (rng_.Chance(50)) {
      Value ramp =
          Emit(t, dims, "iota(), iota_dimension=" + std::to_string(reduce_dims.back()), "iota");
      x = Binary2("add", x, Binary2("multiply", ramp, Splat(t, 0.125, dims)));
    }
    if (rng_.Chance(30)) x = Unary(x);  // something to fuse in front
    switch (rng_.Below(4)) {
      case 0: {  // softmax
        Value shifted = binary("subtract", x, back(reduce(x, "maximum")));
        Value e = unary("exponential", shifted);
        return binary("divide", e, back(reduce(e, "add")));
      }
      case 1: {  // log-softmax
        Value shifted = binary("subtract", x, back(reduce(x, "maximum")));
        Value e = unary("exponential", shifted);
        Value sum = reduce(e, "add");
        Value log = Emit(t, row_dims, "log(" + sum.name + ")", "log");
        return binary("subtract", shifted, back(log));
      }
      case 2: {  // layer norm, with a scale and a bias over the row
        Value inv_n = Splat(t, 1.0 / static_cast<double>(n), dims);
        Value mean = binary("multiply", back(reduce(x, "add")), inv_n);
        Value centered = binary("subtract", x, mean);
        Value var =
            binary("multiply", back(reduce(binary("multiply", centered, centered), "add")), inv_n);
        Value norm =
            binary("multiply", centered, unary("rsqrt", binary("add", var, Splat(t, 1e-3, dims))));
        if (rng_.Chance(50)) norm = binary("multiply", norm, Get(t, dims));
        return rng_.Chance(50) ? binary("add", norm, Get(t, dims)) : norm;
      }
      default: {  // RMS norm
        Value ms = reduce(binary("multiply", x, x), "add");
        Value scaled = Emit(t, row_dims,
                            "multiply(" + ms.name + ", " +
                                Splat(t, 1.0 / static_cast<double>(n), row_dims).name + ")",
                            "multiply");
        Value r =
            Emit(t, row_dims,
                 "rsqrt(" +
                     Emit(t, row_dims,
                          "add(" + scaled.name + ", " + Splat(t, 1e-3, row_dims).name + ")", "add")
                         .name +
                     ")",
                 "rsqrt");
        return binary("multiply", x, back(r));
      }
    }
  }

  // The index of the largest element along one dimension (a variadic reduce of the value
  // and an iota), NaN first replaced by -inf so that every order of combining agrees.
  Value ArgMax(const Value& hint) {
    if (hint.dims.empty()) return Unary(hint);
    Type t = IsFloat(hint.type) ? hint.type : Type::kF32;
    Value x = Get(t, hint.dims);
    Value is_nan =
        Emit(Type::kPred, x.dims, "compare(" + x.name + ", " + x.name + "), direction=NE", "isnan");
    Value clean = Emit(
        t, x.dims,
        "select(" + is_nan.name + ", " + Splat(t, -INFINITY, x.dims).name + ", " + x.name + ")",
        "select");
    int64_t dim = rng_.Below(static_cast<int64_t>(x.dims.size()));
    Value index = Emit(Type::kS32, x.dims, "iota(), iota_dimension=" + std::to_string(dim), "iota");
    std::string name = std::string("argmax_") + TypeName(t);
    if (!m_.reducers[name]) {
      m_.reducers[name] = true;
      std::string ts = ShapeText(t, {});
      m_.computations.push_back(
          name + " {\n  v0 = " + ts + " parameter(0)\n  i0 = s32[] parameter(1)\n  v1 = " + ts +
          " parameter(2)\n  i1 = s32[] parameter(3)\n  gt = pred[] compare(v0, v1), direction=GT\n"
          "  eq = pred[] compare(v0, v1), direction=EQ\n  lt = pred[] compare(i0, i1), "
          "direction=LT\n"
          "  tie = pred[] and(eq, lt)\n  keep = pred[] or(gt, tie)\n  v = " +
          ts + " select(keep, v0, v1)\n  i = s32[] select(keep, i0, i1)\n  ROOT r = (" + ts +
          ", s32[]) tuple(v, i)\n}\n");
    }
    Dims out = x.dims;
    out.erase(out.begin() + dim);
    Value init_v = Constant(t, -INFINITY), init_i = Constant(Type::kS32, 0);
    std::string r = m_.Fresh("argmax");
    lines_.push_back("  " + r + " = (" + ShapeText(t, out) + ", " + ShapeText(Type::kS32, out) +
                     ") reduce(" + clean.name + ", " + index.name + ", " + init_v.name + ", " +
                     init_i.name + "), dimensions={" + std::to_string(dim) + "}, to_apply=" + name);
    if (rng_.Chance(50)) Emit(t, out, "get-tuple-element(" + r + "), index=0", "gte");
    return Emit(Type::kS32, out, "get-tuple-element(" + r + "), index=1", "gte");
  }

  // A stable sort along one dimension, carrying an iota (the permutation) along; NaN
  // replaced as in ArgMax so the comparator is a strict weak order.
  Value Sort(const Value& hint) {
    if (hint.dims.empty()) return Unary(hint);
    Type t = hint.type == Type::kPred ? Type::kS32 : hint.type;
    Value x = Get(t, hint.dims);
    if (IsFloat(t)) {
      Value is_nan = Emit(Type::kPred, x.dims,
                          "compare(" + x.name + ", " + x.name + "), direction=NE", "isnan");
      x = Emit(t, x.dims,
               "select(" + is_nan.name + ", " + Splat(t, 0, x.dims).name + ", " + x.name + ")",
               "select");
    }
    int64_t dim = rng_.Below(static_cast<int64_t>(x.dims.size()));
    Value index = Emit(Type::kS32, x.dims, "iota(), iota_dimension=" + std::to_string(dim), "iota");
    std::string direction = rng_.Chance(50) ? "LT" : "GT";
    std::string name = m_.Fresh("compare");
    std::string ts = ShapeText(t, {});
    m_.computations.push_back(name + " {\n  a = " + ts + " parameter(0)\n  b = " + ts +
                              " parameter(1)\n  ia = s32[] parameter(2)\n  ib = s32[] "
                              "parameter(3)\n  ROOT r = pred[] compare(a, b), direction=" +
                              direction + "\n}\n");
    std::string r = m_.Fresh("sort");
    lines_.push_back("  " + r + " = (" + ShapeText(t, x.dims) + ", " +
                     ShapeText(Type::kS32, x.dims) + ") sort(" + x.name + ", " + index.name +
                     "), dimensions={" + std::to_string(dim) +
                     "}, is_stable=true, to_apply=" + name);
    Value sorted = Emit(t, x.dims, "get-tuple-element(" + r + "), index=0", "gte");
    return rng_.Chance(50)
               ? sorted
               : Emit(Type::kS32, x.dims, "get-tuple-element(" + r + "), index=1", "gte");
  }

  // A pooling window over `dims`: 1 to 3 per dimension, strides 1 or 2, padding up to 1
  // ("size=2x1 stride=1x2 pad=0_1x1_0"); `out` gets the pooled dims.
  std::string RandomWindow(const Dims& dims, Dims* out) {
    std::string size, stride, pad;
    for (size_t i = 0; i < dims.size(); ++i) {
      int64_t lo = rng_.Below(2), hi = rng_.Below(2);
      int64_t w = rng_.Range(1, std::min<int64_t>(3, dims[i] + lo + hi));
      int64_t st = rng_.Range(1, 2);
      out->push_back((dims[i] + lo + hi - w) / st + 1);
      std::string x = i ? "x" : "";
      size += x + std::to_string(w);
      stride += x + std::to_string(st);
      pad += x + std::to_string(lo) + "_" + std::to_string(hi);
    }
    return "size=" + size + " stride=" + stride + " pad=" + pad;
  }

  // Pooling over a RandomWindow.
  Value ReduceWindow(const Value& v) {
    if (v.dims.empty() || v.type == Type::kPred) return Unary(v);
    Dims out;
    const std::string window = RandomWindow(v.dims, &out);
    bool is_max = rng_.Chance(50);
    std::string init = is_max ? (v.type == Type::kS32 ? "-2147483648" : "-inf") : "0";
    Value c = Emit(v.type, {}, "constant(" + init + ")", "init");
    return Emit(v.type, out,
                "reduce-window(" + v.name + ", " + c.name + "), window={" + window +
                    "}, to_apply=" + Reducer(is_max ? "maximum" : "add", v.type),
                "reduce-window");
  }

  // --- Convolutions, pooling gradients, gathers, scatters (GeneratorOptions::windows) ---

  // A 1-D or 2-D convolution as jax writes them (NHWC/HWIO or NCHW/OIHW): strides,
  // padding, lhs (transposed) and rhs (atrous) dilation, feature groups (depthwise), batch
  // groups (a weight gradient's). Its input and kernel come from the values made so far.
  Value Convolution(const Value& hint) {
    const Type t = IsFloat(hint.type) && rng_.Chance(80) ? hint.type : Type::kF32;
    const int spatial = rng_.Chance(55) ? 2 : 1;
    int64_t groups = 1, batch_groups = 1;
    if (rng_.Chance(25)) {
      groups = rng_.Range(2, 4);
    } else if (rng_.Chance(12)) {
      batch_groups = rng_.Range(2, 3);
    }
    const int64_t batch = batch_groups * rng_.Range(1, 2);
    const int64_t in_features = groups * rng_.Range(1, 3);
    const int64_t out_features = groups * batch_groups * rng_.Range(1, 3);
    Dims in_spatial, kernel_spatial, out_spatial;
    std::string size, stride, pad, lhs_dilate, rhs_dilate;
    for (int i = 0; i < spatial; ++i) {
      const int64_t n = rng_.Range(2, spatial == 2 ? 7 : 12);
      const int64_t k = rng_.Range(1, 3);
      const int64_t st = rng_.Chance(30) ? 2 : 1;
      const int64_t ld = rng_.Chance(15) ? 2 : 1;
      const int64_t rd = rng_.Chance(15) ? 2 : 1;
      const int64_t lo = rng_.Range(0, 2), hi = rng_.Range(0, 2);
      const int64_t extent = (n - 1) * ld + 1 + lo + hi - ((k - 1) * rd + 1);
      if (extent < 0) return Dot(hint);
      in_spatial.push_back(n);
      kernel_spatial.push_back(k);
      out_spatial.push_back(extent / st + 1);
      const std::string x = i ? "x" : "";
      size += x + std::to_string(k);
      stride += x + std::to_string(st);
      pad += x + std::to_string(lo) + "_" + std::to_string(hi);
      lhs_dilate += x + std::to_string(ld);
      rhs_dilate += x + std::to_string(rd);
    }
    const bool channels_last = rng_.Chance(60);
    auto arrange = [&](int64_t first, int64_t feature, const Dims& space) {
      Dims d = {first};
      if (!channels_last) d.push_back(feature);
      d.insert(d.end(), space.begin(), space.end());
      if (channels_last) d.push_back(feature);
      return d;
    };
    const Dims input_dims = arrange(batch, in_features, in_spatial);
    Dims kernel_dims;
    if (channels_last) {  // HWIO
      kernel_dims = kernel_spatial;
      kernel_dims.push_back(in_features / groups);
      kernel_dims.push_back(out_features);
    } else {  // OIHW
      kernel_dims = {out_features, in_features / groups};
      kernel_dims.insert(kernel_dims.end(), kernel_spatial.begin(), kernel_spatial.end());
    }
    const Dims out_dims = arrange(batch / batch_groups, out_features, out_spatial);
    const int64_t limit = m_.options.max_elements;
    if (Elements(input_dims) > limit || Elements(kernel_dims) > limit || Elements(out_dims) > limit) return Dot(hint);
    const std::string digits = spatial == 2 ? "01" : "0";
    const std::string labels = channels_last ? "b" + digits + "f_" + digits + "io->b" + digits + "f"
                                             : "bf" + digits + "_oi" + digits + "->bf" + digits;
    Value input = Get(t, input_dims);
    Value kernel = Get(t, kernel_dims);
    std::string rhs = "convolution(" + input.name + ", " + kernel.name + "), window={size=" + size +
                      " stride=" + stride + " pad=" + pad + " lhs_dilate=" + lhs_dilate +
                      " rhs_dilate=" + rhs_dilate + "}, dim_labels=" + labels;
    if (groups > 1) rhs += ", feature_group_count=" + std::to_string(groups);
    if (batch_groups > 1) rhs += ", batch_group_count=" + std::to_string(batch_groups);
    return Emit(t, out_dims, rhs, "convolution");
  }

  // A max-pool's gradient: select-and-scatter with GE over windows as ReduceWindow makes
  // them, scattering a source of the pooled shape by add.
  Value SelectAndScatter(const Value& v) {
    if (v.dims.empty() || !IsFloat(v.type)) return ReduceWindow(v);
    Dims out;
    const std::string window = RandomWindow(v.dims, &out);
    Value source = Get(v.type, out);
    Value zero = Emit(v.type, {}, "constant(0)", "init");
    return Emit(v.type, v.dims,
                "select-and-scatter(" + v.name + ", " + source.name + ", " + zero.name + "), window={" + window +
                    "}, select=" + Selector(v.type) +
                    ", scatter=" + Reducer("add", v.type),
                "select-and-scatter");
  }

  // compare(a, b) GE as a select-and-scatter's select.
  std::string Selector(Type t) {
    std::string name = std::string("ge_") + TypeName(t);
    if (m_.reducers[name]) return name;
    m_.reducers[name] = true;
    std::string s = ShapeText(t, {});
    m_.computations.push_back(name + " {\n  a = " + s + " parameter(0)\n  b = " + s +
                              " parameter(1)\n  ROOT r = pred[] compare(a, b), direction=GE\n}\n");
    return name;
  }

  // Rows (or columns) of a table picked by indices, as an embedding lookup: indices come
  // from the values made so far, so some fall outside the table and are clamped.
  Value Gather(const Value& hint) {
    const Type t = hint.type == Type::kPred ? Type::kF32 : hint.type;
    const int64_t rows = rng_.Range(2, 12), width = rng_.Range(1, 8), count = rng_.Range(1, 10);
    Value table = Get(t, {rows, width});
    Value indices = Get(Type::kS32, {count});
    const int64_t axis = rng_.Below(2);
    const Dims slice = axis == 0 ? Dims{1, width} : Dims{rows, 1};
    const Dims out = {count, axis == 0 ? width : rows};
    return Emit(t, out,
                "gather(" + table.name + ", " + indices.name + "), offset_dims={1}, collapsed_slice_dims={" +
                    std::to_string(axis) + "}, start_index_map={" + std::to_string(axis) +
                    "}, index_vector_dim=1, slice_sizes=" + List(slice),
                "gather");
  }

  // Rows added into a table (a gradient of a lookup). Adding into the same row twice would
  // make the sum's order matter, so the indices are distinct ((k·i + c) mod rows, k prime
  // to rows), some past the end (their updates are dropped); a maximum takes any indices.
  Value Scatter(const Value& hint) {
    const Type t = IsFloat(hint.type) || hint.type == Type::kS32 ? hint.type : Type::kF32;
    const int64_t rows = rng_.Range(2, 12), width = rng_.Range(1, 8);
    const bool max = rng_.Chance(30);
    Value table = Get(t, {rows, width});
    Value indices;
    int64_t count = 0;
    if (max) {
      count = rng_.Range(1, 10);
      indices = Get(Type::kS32, {count});
    } else {
      count = rng_.Range(1, rows);
      int64_t k = rng_.Range(1, 7);
      while (std::gcd(k, rows) != 1) ++k;
      const int64_t c = rng_.Below(rows);
      const int64_t past = rng_.Chance(30) ? rng_.Range(1, 3) : 0;  // indices past the end
      Value iota = Emit(Type::kS32, {count}, "iota(), iota_dimension=0", "iota");
      Value scaled = Binary2("multiply", iota, Splat(Type::kS32, static_cast<double>(k), {count}));
      Value shifted = Binary2("add", scaled, Splat(Type::kS32, static_cast<double>(c), {count}));
      indices = Binary2("remainder", shifted, Splat(Type::kS32, static_cast<double>(rows), {count}));
      if (past > 0) indices = Binary2("add", indices, Splat(Type::kS32, static_cast<double>(past), {count}));
    }
    Value updates = Get(t, {count, width});
    return Emit(t, {rows, width},
                "scatter(" + table.name + ", " + indices.name + ", " + updates.name +
                    "), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                    "index_vector_dim=1, to_apply=" +
                    Reducer(max ? "maximum" : "add", t),
                "scatter");
  }

  Value Iota() {
    Dims dims = RandomDims(3, m_.options.max_elements / 8);
    if (dims.empty()) dims.push_back(rng_.Range(2, 8));
    Type t = rng_.Chance(60) ? Type::kS32 : Type::kF32;
    return Emit(
        t, dims,
        "iota(), iota_dimension=" + std::to_string(rng_.Below(static_cast<int64_t>(dims.size()))),
        "iota");
  }

  // A computation taking one parameter of `param_shapes` (a tuple) and returning a value
  // of type `t` and `dims`: `body` adds the random operations. Returns its name.
  std::string SubComputation(const std::string& prefix, const std::vector<Value>& params, Type t,
                             const Dims& dims, int steps,
                             const std::function<void(Builder&, std::vector<Value>&)>& finish) {
    Builder sub(m_, false, depth_ + 1);
    std::string tuple_shape = "(";
    for (size_t i = 0; i < params.size(); ++i)
      tuple_shape += (i ? ", " : "") + ShapeText(params[i].type, params[i].dims);
    tuple_shape += ")";
    std::string param = m_.Fresh("param");
    sub.lines().push_back("  " + param + " = " + tuple_shape + " parameter(0)");
    std::vector<Value> elements;
    for (size_t i = 0; i < params.size(); ++i) {
      elements.push_back(sub.Emit(params[i].type, params[i].dims,
                                  "get-tuple-element(" + param + "), index=" + std::to_string(i),
                                  "gte"));
      sub.values().back().varies = true;
    }
    for (int i = 0; i < steps; ++i) sub.Step();
    std::vector<Value> results = {sub.Get(t, dims)};
    finish(sub, results);
    std::string root;
    if (results.size() == 1) {
      root = results[0].name;
      // Mark the root: rewrite its line if it is the last one, else add a copy.
      if (!sub.values().empty() && sub.values().back().name == root) {
        sub.lines().back() = "  ROOT" + sub.lines().back().substr(1);
      } else {
        sub.lines().push_back("  ROOT " + m_.Fresh("root") + " = " + ShapeText(t, dims) + " copy(" +
                              root + ")");
      }
    } else {
      std::string shape = "(", operands;
      for (size_t i = 0; i < results.size(); ++i) {
        shape += (i ? ", " : "") + ShapeText(results[i].type, results[i].dims);
        operands += (i ? ", " : "") + results[i].name;
      }
      sub.lines().push_back("  ROOT " + m_.Fresh("tuple") + " = " + shape + ") tuple(" + operands +
                            ")");
    }
    std::string name = m_.Fresh(prefix);
    std::string text = name + " {\n";
    for (const std::string& line : sub.lines()) text += line + "\n";
    m_.computations.push_back(text + "}\n");
    return name;
  }

  std::string TupleShape(const std::vector<Value>& vs) {
    std::string s = "(";
    for (size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : "") + ShapeText(vs[i].type, vs[i].dims);
    return s + ")";
  }

  std::string TupleOf(const std::vector<Value>& vs) {
    std::string operands;
    for (size_t i = 0; i < vs.size(); ++i) operands += (i ? ", " : "") + vs[i].name;
    std::string name = m_.Fresh("tuple");
    lines_.push_back("  " + name + " = " + TupleShape(vs) + " tuple(" + operands + ")");
    return name;
  }

  // A while loop running 0 to 4 times: state (counter, v, an invariant w).
  Value While(const Value& v) {
    Value w = rng_.Chance(40) ? Get(v.type, v.dims) : AnyValue();
    Value zero = Constant(Type::kS32, rng_.Chance(10) ? 3 : 0);
    std::vector<Value> state = {zero, v, w};
    int64_t trips = rng_.Range(1, 4);
    std::string cond = m_.Fresh("cond");
    {
      std::string shape = TupleShape(state);
      std::string p = m_.Fresh("param"), i = m_.Fresh("i"), n = m_.Fresh("n");
      m_.computations.push_back(cond + " {\n  " + p + " = " + shape + " parameter(0)\n  " + i +
                                " = s32[] get-tuple-element(" + p + "), index=0\n  " + n +
                                " = s32[] constant(" + std::to_string(trips) + ")\n  ROOT " +
                                m_.Fresh("lt") + " = pred[] compare(" + i + ", " + n +
                                "), direction=LT\n}\n");
    }
    std::string body = SubComputation(
        "body", state, v.type, v.dims, static_cast<int>(rng_.Range(1, 5)),
        [&](Builder& b, std::vector<Value>& results) {
          Value one = b.Constant(Type::kS32, 1);
          Value next = b.Binary2("add", b.values()[0], one);
          Value kept = b.values()[2];
          // Same shapes: now and then the state swaps places
          // (a permuted state is copied back with staging).
          if (kept.type == results[0].type && kept.dims == results[0].dims && rng_.Chance(40)) {
            results = {next, kept, results[0]};
          } else {
            results = {next, results[0], kept};
          }
        });
    std::string init = TupleOf(state);
    std::string loop = m_.Fresh("while");
    lines_.push_back("  " + loop + " = " + TupleShape(state) + " while(" + init +
                     "), condition=" + cond + ", body=" + body);
    if (rng_.Chance(30)) Emit(Type::kS32, {}, "get-tuple-element(" + loop + "), index=0", "trips");
    Value out = Emit(v.type, v.dims, "get-tuple-element(" + loop + "), index=1", "gte");
    // The loop's initial value read after the loop: its buffer must not have been updated
    // in place.
    return rng_.Chance(40) && v.type != Type::kPred ? ReadAgain(out, v) : out;
  }

  // A conditional on a pred (two branches) or an s32 index (two to three branches);
  // every branch takes (v, w) and returns a value of one random shape.
  Value Conditional(const Value& v) {
    Value w = AnyValue();
    Type t = rng_.Chance(50) ? v.type : RandomType();
    Dims dims = rng_.Chance(50) ? v.dims : RandomDims(3, m_.options.max_elements / 8);
    bool indexed = rng_.Chance(40);
    int branches = indexed ? static_cast<int>(rng_.Range(2, 3)) : 2;
    Value selector = Get(indexed ? Type::kS32 : Type::kPred, {});
    std::vector<std::string> names;
    std::vector<std::string> operands;
    for (int i = 0; i < branches; ++i) {
      std::vector<Value> params = {v, w};
      names.push_back(SubComputation("branch", params, t, dims, static_cast<int>(rng_.Range(0, 4)),
                                     [](Builder&, std::vector<Value>&) {}));
      operands.push_back(TupleOf(params));
    }
    std::string args = selector.name;
    for (const std::string& o : operands) args += ", " + o;
    if (indexed) {
      std::string list;
      for (size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + names[i];
      return Emit(t, dims, "conditional(" + args + "), branch_computations={" + list + "}",
                  "conditional");
    }
    return Emit(t, dims,
                "conditional(" + args + "), true_computation=" + names[0] +
                    ", false_computation=" + names[1],
                "conditional");
  }

  // A c64 line that is not a value of the pool (no other operation may pick a complex
  // operand): its name.
  std::string Hidden(const Dims& dims, const std::string& rhs, const std::string& prefix) {
    std::string name = m_.Fresh(prefix);
    lines_.push_back("  " + name + " = " + ShapeText(Type::kC64, dims) + " " + rhs);
    return name;
  }

  // See GeneratorOptions::complex_numbers.
  Value ComplexIsland(const Value& v) {
    Value x = Convert(IsFloat(v.type) ? v : Unary(Convert(v, Type::kF32)), Type::kF32);
    Value y = Get(Type::kF32, x.dims);
    const Dims& dims = x.dims;
    Value re = Emit(Type::kF32, dims, "tanh(" + x.name + ")", "tanh");
    Value im = Binary2("add", Emit(Type::kF32, dims, "tanh(" + y.name + ")", "tanh"),
                       Splat(Type::kF32, rng_.Chance(50) ? 1.5 : -1.5, dims));
    std::string z = Hidden(dims, "complex(" + re.name + ", " + im.name + ")", "z");
    std::string w = Hidden(dims, "complex(" + im.name + ", " + re.name + ")", "w");
    static const std::vector<std::string> unary = {
        "exponential", "log",  "sqrt",     "rsqrt",    "sine",  "cosine", "tan", "tanh",
        "logistic",    "sign", "negate",   "exponential-minus-one", "log-plus-one"};
    static const std::vector<std::string> binary = {"add", "subtract", "multiply", "divide", "power"};
    Dims out = dims;
    int steps = static_cast<int>(rng_.Range(1, 2));
    for (int i = 0; i < steps; ++i) {
      int r = static_cast<int>(rng_.Below(100));
      if (r < 45) {
        std::string op = rng_.Pick(unary);
        // exp(log z) and log(exp z) are z up to rounding: an exact compare downstream
        // would be decided by rounding alone.
        if ((op == "log" && lines_.back().find(" exponential(") != std::string::npos) ||
            (op == "exponential" && lines_.back().find(" log(") != std::string::npos)) {
          op = "sqrt";
        }
        z = Hidden(out, op + "(" + z + ")", "cz");
      } else if (r < 80 || out != dims) {
        const std::string& op = rng_.Pick(binary);
        z = out == dims ? Hidden(out, op + "(" + z + ", " + w + ")", "cz") : Hidden(out, op + "(" + z + ", " + z + ")", "cz");
      } else if (r < 90 && !dims.empty() && dims.size() <= 3) {
        // z . w over the last dim (the first one a batch dim at rank 3).
        const int64_t last = static_cast<int64_t>(dims.size()) - 1;
        std::string batch = dims.size() == 3 ? "lhs_batch_dims={0}, rhs_batch_dims={0}, " : "";
        out = dims.size() == 1 ? Dims{} : dims.size() == 2 ? Dims{dims[0], dims[0]} : Dims{dims[0], dims[1], dims[1]};
        z = Hidden(out, "dot(" + z + ", " + w + "), " + batch + "lhs_contracting_dims={" + std::to_string(last) +
                            "}, rhs_contracting_dims={" + std::to_string(last) + "}", "cdot");
      } else if (!out.empty()) {
        // A sum over one dim.
        const size_t dim = static_cast<size_t>(rng_.Below(static_cast<int64_t>(out.size())));
        Dims kept;
        for (size_t d = 0; d < out.size(); ++d) {
          if (d != dim) kept.push_back(out[d]);
        }
        std::string zero = Hidden({}, "constant((0, 0))", "czero");
        z = Hidden(kept, "reduce(" + z + ", " + zero + "), dimensions={" + std::to_string(dim) +
                             "}, to_apply=" + Reducer("add", Type::kC64), "csum");
        out = kept;
      }
    }
    static const std::vector<std::string> parts = {"real", "imag", "abs"};
    std::string part = rng_.Pick(parts);
    // |sign(z)| is 1 up to rounding either way: ill-posed where a convert to an integer
    // follows (23 or 24 from 24 · 0.99999994); its parts are not.
    if (part == "abs" && lines_.back().find(" sign(") != std::string::npos) part = "real";
    return Emit(Type::kF32, out, part + "(" + z + ")", part);
  }

  // One random operation on recent values.
  void Step() {
    Value v = AnyValue();
    if (m_.options.complex_numbers && rng_.Chance(15)) {
      ComplexIsland(v);
      return;
    }
    if (m_.options.windows && rng_.Chance(15)) {
      const int64_t which = rng_.Below(100);
      if (which < 45) {
        Convolution(v);
      } else if (which < 65) {
        SelectAndScatter(v);
      } else if (which < 82) {
        Gather(v);
      } else if (which < 94) {
        Scatter(v);
      } else {
        Roll(v);
      }
      return;
    }
    int r = static_cast<int>(rng_.Below(100));
    bool control = m_.options.control_flow && depth_ < 2;
    if (r < 14) {
      if (rng_.Chance(20)) {
        DynamicSlice(v);
      } else if (rng_.Chance(20)) {
        DynamicUpdateSlice(v);
      } else {
        Unary(v);
      }
    } else if (r < 30) {
      Binary(v);
    } else if (r < 37) {
      CompareSelect(v);
    } else if (r < 43) {
      ConvertOp(v);
    } else if (r < 50) {
      Broadcast(v);
    } else if (r < 58) {
      int which = static_cast<int>(rng_.Below(100));
      if (which < 30) {
        Normalization(v);
      } else if (which < 42) {
        ArgMax(v);
      } else if (which < 52) {
        Sort(v);
      } else if (which < 64) {
        ReduceWindow(v);
      } else {
        Reduce(v);
      }
    } else if (r < 65) {
      Dot(v);
    } else if (r < 70) {
      Transpose(v);
    } else if (r < 75) {
      SliceOp(v);
    } else if (r < 79) {
      PadOp(v);
    } else if (r < 83) {
      Concatenate(v);
    } else if (r < 86) {
      Reverse(v);
    } else if (r < 90) {
      ReshapeOp(v);
    } else if (r < 91) {
      Iota();
    } else if (r < 92) {
      Clamp(v);
    } else if (r < 96 && control) {
      While(v);
    } else if (control) {
      Conditional(v);
    } else {
      Binary(v);
    }
  }

 private:
  ModuleState& m_;
  Rng& rng_;
  bool entry_;
  int depth_;
  int parameters_ = 0;
  std::vector<std::string> lines_;
  std::vector<Value> values_;
};

}  // namespace

std::string GenerateModuleText(uint64_t seed, const GeneratorOptions& options) {
  ModuleState m(seed * 0x2545F4914F6CDD1Dull + 17, options);
  Builder entry(m, true, 0);
  int steps = static_cast<int>(
      m.rng.Range(std::max(1, options.max_instructions / 4), options.max_instructions));
  // Arrays to start from, mostly f32; more parameters come as operations ask for them.
  int64_t initial = m.rng.Range(1, 3);
  for (int64_t i = 0; i < initial; ++i) {
    Dims dims;
    while (dims.empty()) dims = entry.RandomDims(3, options.max_elements / 4);
    entry.Parameter(m.rng.Chance(70) ? Type::kF32 : entry.RandomType(), dims);
  }
  for (int i = 0; i < steps; ++i) entry.Step();
  // Outputs: the last value and up to two others that are not parameters.
  std::vector<Value> outputs = {entry.values().back()};
  std::vector<Value> candidates;
  for (const Value& v : entry.values()) {
    if (!v.is_parameter && v.varies && v.name != outputs[0].name) candidates.push_back(v);
  }
  int extra = static_cast<int>(m.rng.Below(3));
  for (int i = 0; i < extra && !candidates.empty(); ++i) outputs.push_back(m.rng.Pick(candidates));
  // Outputs that alias: a parameter returned as is, one value returned twice.
  if (m.rng.Chance(10)) outputs.push_back(entry.values().front());
  if (m.rng.Chance(10)) outputs.push_back(outputs[0]);
  std::string text = "HloModule fuzz_" + std::to_string(seed) + "\n\n";
  for (const std::string& c : m.computations) text += c + "\n";
  text += "ENTRY main {\n";
  for (const std::string& line : entry.lines()) text += line + "\n";
  if (outputs.size() == 1 && !outputs[0].is_parameter) {
    // The last line defines the output: make it the root.
    std::string& last = text;
    size_t pos = last.rfind("\n  " + outputs[0].name + " = ");
    last.replace(pos, 3, "\n  ROOT ");
  } else {
    std::string shape = "(", operands;
    for (size_t i = 0; i < outputs.size(); ++i) {
      shape += (i ? ", " : "") + ShapeText(outputs[i].type, outputs[i].dims);
      operands += (i ? ", " : "") + outputs[i].name;
    }
    text += "  ROOT " + m.Fresh("tuple") + " = " + shape + ") tuple(" + operands + ")\n";
  }
  text += "}\n";
  if (options.partitions > 1) text = AddRandomShardings(text, seed, options.partitions);
  if (options.partitions > 1 && options.manual_regions) {
    text = AddManualRegions(text, seed, options.partitions, options.partial_manual, options.open_dims,
                            options.nested_manual);
  }
  return text;
}

namespace {

// The powers of two from 2 to n.
std::vector<int64_t> SplitFactors(int64_t n) {
  std::vector<int64_t> factors;
  for (int64_t f = 2; f <= n; f *= 2) factors.push_back(f);
  return factors;
}

// The device list of a tiling over n devices: `<=[n]`, a transposed iota or a permutation.
std::string DeviceList(Rng& rng, int64_t n) {
  const int64_t kind = rng.Below(10);
  if (kind < 6 || n < 4) return "<=[" + std::to_string(n) + "]";
  if (kind < 8) return "<=[2," + std::to_string(n / 2) + "]T(1,0)";
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  for (size_t i = order.size() - 1; i > 0; --i) {
    std::swap(order[i], order[static_cast<size_t>(rng.Below(static_cast<int64_t>(i) + 1))]);
  }
  std::string list;
  for (size_t i = 0; i < order.size(); ++i) list += (i ? "," : "") + std::to_string(order[i]);
  return list;
}

// A random sharding of an array of `dims` over n devices (the text inside `sharding={}`).
// `even`: only splits the tiles divide evenly (a parameter's: the run takes global
// arguments and refuses uneven ones).
std::string RandomSharding(Rng& rng, const std::vector<int64_t>& dims, int64_t n, bool even) {
  const std::string replicated = "replicated";
  if (dims.empty() || rng.Chance(20)) return replicated;
  std::vector<int64_t> tiles(dims.size(), 1);
  int64_t used = 1;
  const int splits = dims.size() >= 2 && n >= 4 && rng.Chance(30) ? 2 : 1;
  for (int k = 0; k < splits; ++k) {
    std::vector<std::pair<size_t, int64_t>> choices;  // (dim, factor)
    for (size_t d = 0; d < dims.size(); ++d) {
      if (tiles[d] != 1) continue;
      for (int64_t f : SplitFactors(n / used)) {
        if (dims[d] < f) continue;
        if (dims[d] % f != 0 && (even || !rng.Chance(25))) continue;
        choices.emplace_back(d, f);
      }
    }
    if (choices.empty()) break;
    const auto [d, f] = rng.Pick(choices);
    tiles[d] = f;
    used *= f;
  }
  if (used == 1) return replicated;
  std::string text = "devices=[";
  for (size_t d = 0; d < tiles.size(); ++d) text += (d ? "," : "") + std::to_string(tiles[d]);
  if (used < n) text += "," + std::to_string(n / used);
  text += "]" + DeviceList(rng, n);
  if (used < n) text += " last_tile_dim_replicate";
  return text;
}

}  // namespace

std::string AddRandomShardings(const std::string& text, uint64_t seed, int partitions) {
  auto parsed = ParseModule(text);
  if (!parsed.ok() || partitions < 2) return text;
  Module& module = **parsed;
  Rng rng(seed * 0x9E3779B97F4A7C15ull + 0x5eed);
  module.num_partitions = partitions;
  Computation* entry = module.entry();
  // Parameters and outputs split evenly, as jax requires of a jitted function's arguments
  // and results; inside, a constraint may split unevenly.
  std::vector<const Instruction*> outputs = {entry->root()};
  if (entry->root()->opcode() == Opcode::kTuple) {
    outputs.assign(entry->root()->operands().begin(), entry->root()->operands().end());
  }
  for (const auto& ins : entry->instructions()) {
    const Shape& shape = ins->shape();
    if (!shape.IsArray()) continue;
    const bool parameter = ins->opcode() == Opcode::kParameter;
    if (!parameter && !rng.Chance(20)) continue;
    const bool output = std::find(outputs.begin(), outputs.end(), ins.get()) != outputs.end();
    std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
    InstructionAttributes& attrs = ins->mutable_attrs();
    attrs.sharding = RandomSharding(rng, dims, partitions, parameter || output);
    attrs.has_sharding = true;
  }
  return module.ToString();
}

namespace {

// ---------------------------------------------------------------------------
// Manual regions (shard_map) with collectives of their own
// ---------------------------------------------------------------------------

// An order of n devices for the pieces of a split: devices[k] holds piece k.
struct DeviceOrder {
  std::vector<int64_t> devices;
  std::string text;  // as a sharding writes it: <=[n], <=[2,n/2]T(1,0) or a list
};

DeviceOrder RandomDeviceOrder(Rng& rng, int64_t n) {
  DeviceOrder order;
  order.devices.resize(static_cast<size_t>(n));
  std::iota(order.devices.begin(), order.devices.end(), 0);
  const int64_t kind = rng.Below(10);
  if (kind < 5 || n < 4) {
    order.text = "<=[" + std::to_string(n) + "]";
  } else if (kind < 7) {
    // iota over [2, n/2] transposed: 0, n/2, 1, n/2+1, ...
    for (int64_t k = 0; k < n; ++k) order.devices[static_cast<size_t>(k)] = (k % 2) * (n / 2) + k / 2;
    order.text = "<=[2," + std::to_string(n / 2) + "]T(1,0)";
  } else {
    for (size_t i = order.devices.size() - 1; i > 0; --i) {
      std::swap(order.devices[i], order.devices[static_cast<size_t>(rng.Below(static_cast<int64_t>(i) + 1))]);
    }
    for (size_t i = 0; i < order.devices.size(); ++i) order.text += (i ? "," : "") + std::to_string(order.devices[i]);
  }
  return order;
}

// `sharding={devices=[1,..,n,..,1]ORDER}`: split along `dim` of a rank-`rank` array.
std::string SplitSharding(int64_t dim, int64_t rank, int64_t n, const DeviceOrder& order) {
  std::string text = "sharding={devices=[";
  for (int64_t d = 0; d < rank; ++d) text += (d ? "," : "") + std::to_string(d == dim ? n : 1);
  return text + "]" + order.text + "}";
}

// The one replica group of a collective over the pieces in order.
std::string GroupOf(const DeviceOrder& order) { return "replica_groups={" + List(order.devices) + "}"; }

// `shape` with dim `dim` divided into n pieces.
std::string PieceShape(const Shape& shape, int64_t dim, int64_t n) {
  Shape piece = shape;
  piece.set_dimension(dim, shape.dimensions(dim) / n);
  return piece.ToString(false);
}

// Dims of `shape` that split evenly into n pieces.
std::vector<int64_t> EvenDims(const Shape& shape, int64_t n) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.dimensions(d) >= n && shape.dimensions(d) % n == 0) dims.push_back(d);
  }
  return dims;
}

// The line of the entry computation that defines %name, split into what precedes the
// name ("  " or "  ROOT ") and what follows " = ".
struct DefiningLine {
  size_t begin = std::string::npos, end = 0;  // [begin, end) without the newline
  std::string rhs;                            // "f32[6] add(%a, %b), sharding={...}"
};

DefiningLine FindDefiningLine(const std::string& text, const std::string& name) {
  DefiningLine line;
  const std::string key = "\n  %" + name + " = ";
  const size_t at = text.find(key);
  if (at == std::string::npos) return line;
  line.begin = at + 1;
  line.end = text.find('\n', line.begin);
  line.rhs = text.substr(at + key.size(), line.end - at - key.size());
  return line;
}

// `rhs` without its `, sharding={...}` attribute (braces balanced).
std::string WithoutSharding(std::string rhs) {
  const size_t at = rhs.find(", sharding={");
  if (at == std::string::npos) return rhs;
  size_t i = at + std::string(", sharding={").size();
  int depth = 1;
  while (i < rhs.size() && depth > 0) {
    if (rhs[i] == '{') ++depth;
    if (rhs[i] == '}') --depth;
    ++i;
  }
  return rhs.substr(0, at) + rhs.substr(i);
}

// A reducer that adds its two scalar parameters.
bool Adds(const Computation* c) {
  if (c == nullptr || c->parameter_count() != 2 || c->root() == nullptr) return false;
  const Instruction* root = c->root();
  return root->opcode() == Opcode::kAdd && root->operand_count() == 2 &&
         root->operand(0)->opcode() == Opcode::kParameter && root->operand(1)->opcode() == Opcode::kParameter &&
         root->operand(0) != root->operand(1);
}

bool IsElementwise(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kAbs: case Opcode::kNegate: case Opcode::kSign: case Opcode::kNot:
    case Opcode::kExp: case Opcode::kLog: case Opcode::kLog1p: case Opcode::kTanh:
    case Opcode::kLogistic: case Opcode::kSqrt: case Opcode::kRsqrt: case Opcode::kFloor:
    case Opcode::kCeil: case Opcode::kRoundNearestEven: case Opcode::kRoundNearestAfz:
    case Opcode::kSin: case Opcode::kCos: case Opcode::kConvert: case Opcode::kAdd:
    case Opcode::kSubtract: case Opcode::kMultiply: case Opcode::kDivide: case Opcode::kMaximum:
    case Opcode::kMinimum: case Opcode::kPower: case Opcode::kAnd: case Opcode::kOr:
    case Opcode::kXor: case Opcode::kCompare: case Opcode::kSelect: case Opcode::kClamp:
    case Opcode::kRemainder: case Opcode::kAtan2:
      return true;
    default:
      return false;
  }
}

// A 2-D mesh [pieces, others] for a region manual over its first axis only (a shard_map
// with axis_names over some mesh axes): dev[m][k] is the device at manual position m and
// automatic position k. The region's values are split automatically over the `others`
// devices of each manual group.
struct PartialMesh {
  int64_t pieces = 0;  // M: devices along the manual axis
  int64_t others = 0;  // K: along the automatic axis
  std::vector<std::vector<int64_t>> dev;

  // The devices row-major over [M, K] (manual major) or [K, M].
  std::vector<int64_t> ManualMajor() const {
    std::vector<int64_t> list;
    for (int64_t m = 0; m < pieces; ++m) list.insert(list.end(), dev[m].begin(), dev[m].end());
    return list;
  }
  std::vector<int64_t> OthersMajor() const {
    std::vector<int64_t> list;
    for (int64_t k = 0; k < others; ++k) {
      for (int64_t m = 0; m < pieces; ++m) list.push_back(dev[m][k]);
    }
    return list;
  }
};

PartialMesh RandomPartialMesh(Rng& rng, int64_t n) {
  PartialMesh mesh;
  std::vector<int64_t> sizes;
  for (int64_t m : SplitFactors(n)) {
    if (m < n) sizes.push_back(m);
  }
  mesh.pieces = rng.Pick(sizes);
  mesh.others = n / mesh.pieces;
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  const int64_t kind = rng.Below(3);
  if (kind == 2) {
    for (size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[static_cast<size_t>(rng.Below(static_cast<int64_t>(i) + 1))]);
  }
  mesh.dev.assign(static_cast<size_t>(mesh.pieces), std::vector<int64_t>(static_cast<size_t>(mesh.others)));
  for (int64_t m = 0; m < mesh.pieces; ++m) {
    for (int64_t k = 0; k < mesh.others; ++k) {
      // kind 0: the manual axis major (dev = m*K + k), 1: minor (k*M + m), 2: permuted.
      mesh.dev[m][k] = kind == 1 ? k * mesh.pieces + m : perm[static_cast<size_t>(m * mesh.others + k)];
    }
  }
  return mesh;
}

// A device list as a sharding writes it: an iota (<=[N]), a transposed iota
// (<=[A,B]T(1,0)) or the devices listed.
std::string DeviceListText(const std::vector<int64_t>& list) {
  const int64_t n = static_cast<int64_t>(list.size());
  bool iota = true;
  for (int64_t i = 0; i < n; ++i) iota = iota && list[static_cast<size_t>(i)] == i;
  if (iota) return "<=[" + std::to_string(n) + "]";
  for (int64_t a = 2; a < n; ++a) {
    if (n % a != 0) continue;
    const int64_t b = n / a;
    bool transposed = true;
    for (int64_t i = 0; i < n; ++i) transposed = transposed && list[static_cast<size_t>(i)] == (i % a) * b + i / a;
    if (transposed) return "<=[" + std::to_string(a) + "," + std::to_string(b) + "]T(1,0)";
  }
  std::string text;
  for (int64_t i = 0; i < n; ++i) text += (i ? "," : "") + std::to_string(list[static_cast<size_t>(i)]);
  return text;
}

class ManualRewriter {
 public:
  ManualRewriter(std::string text, int64_t n, uint64_t seed) : text_(std::move(text)), n_(n), rng_(seed) {}

  // Replaces the defining line of %name with `lines` (each a whole line without indent).
  bool Replace(const std::string& name, const std::vector<std::string>& lines) {
    DefiningLine line = FindDefiningLine(text_, name);
    if (line.begin == std::string::npos) return false;
    std::string block;
    for (size_t i = 0; i < lines.size(); ++i) block += (i ? "\n  " : "  ") + lines[i];
    text_.replace(line.begin, line.end - line.begin, block);
    return true;
  }

  // A reduce that adds: each device sums its piece of a reduced dim, then an all-reduce
  // (or a reduce-scatter along a result dim) adds the pieces; the init added after.
  bool Reduce(const Instruction& r) {
    const Instruction* x = r.operand(0);
    const Instruction* init = r.operand(1);
    std::vector<int64_t> candidates;
    for (int64_t d : EvenDims(x->shape(), n_)) {
      if (std::find(r.dimensions().begin(), r.dimensions().end(), d) != r.dimensions().end()) candidates.push_back(d);
    }
    if (candidates.empty()) return false;
    const int64_t d = rng_.Pick(candidates);
    const DeviceOrder order = RandomDeviceOrder(rng_, n_);
    const std::string n = r.name(), out = r.shape().ToString(false);
    const std::string type(PrimitiveTypeName(r.shape().element_type()));
    const std::string add = "%" + r.to_apply()->name();
    const std::string channel = "channel_id=" + std::to_string(++channel_);
    std::vector<std::string> lines = {
        "%" + n + ".full = " + x->shape().ToString(false) + " copy(%" + x->name() + "), " +
            SplitSharding(d, x->shape().rank(), n_, order),
        "%" + n + ".shard = " + PieceShape(x->shape(), d, n_) + " custom-call(%" + n +
            ".full), custom_call_target=\"SPMDFullToShardShape\", sharding={manual}",
        "%" + n + ".zero = " + type + "[] constant(0), sharding={manual}",
        "%" + n + ".part = " + out + " reduce(%" + n + ".shard, %" + n + ".zero), dimensions=" +
            List(r.dimensions()) + ", to_apply=" + add + ", sharding={manual}"};
    const std::vector<int64_t> scatter_dims = EvenDims(r.shape(), n_);
    if (!scatter_dims.empty() && rng_.Chance(50)) {
      const int64_t e = rng_.Pick(scatter_dims);
      const DeviceOrder to = rng_.Chance(50) ? order : RandomDeviceOrder(rng_, n_);
      lines.push_back("%" + n + ".sum = " + PieceShape(r.shape(), e, n_) + " reduce-scatter(%" + n + ".part), " +
                      channel + ", " + GroupOf(to) + ", use_global_device_ids=true, dimensions={" +
                      std::to_string(e) + "}, to_apply=" + add + ", sharding={manual}");
      lines.push_back("%" + n + ".whole = " + out + " custom-call(%" + n +
                      ".sum), custom_call_target=\"SPMDShardToFullShape\", " +
                      SplitSharding(e, r.shape().rank(), n_, to));
    } else {
      lines.push_back("%" + n + ".sum = " + out + " all-reduce(%" + n + ".part), " + channel + ", " +
                      GroupOf(order) + ", use_global_device_ids=true, to_apply=" + add + ", sharding={manual}");
      lines.push_back("%" + n + ".whole = " + out + " custom-call(%" + n +
                      ".sum), custom_call_target=\"SPMDShardToFullShape\", sharding={replicated}");
    }
    lines.push_back("%" + n + ".init = " + out + " broadcast(%" + init->name() + "), dimensions={}");
    lines.push_back("%" + n + " = " + out + " add(%" + n + ".whole, %" + n + ".init)");
    return Replace(n, lines);
  }

  // Whether `e`'s operands are arrays of its shape or scalars and its line can be rewritten;
  // `attrs`: what follows its operands on the line, without the sharding.
  bool ElementwiseAttrs(const Instruction& e, std::string* attrs) const {
    for (const Instruction* op : e.operands()) {
      if (!op->shape().IsArray() || (!op->shape().IsScalar() && !op->shape().SameDimensions(e.shape()))) return false;
    }
    DefiningLine line = FindDefiningLine(text_, e.name());
    const size_t open = line.rhs.find(" " + std::string(OpcodeName(e.opcode())) + "(");
    if (line.begin == std::string::npos || open == std::string::npos) return false;
    const size_t close = line.rhs.find(')', open);
    if (close == std::string::npos) return false;
    *attrs = WithoutSharding(line.rhs.substr(close + 1));
    return true;
  }

  // The operands of elementwise `e` entering a region (lines appended to `lines`): each
  // array split along d into `pieces` (`split_sharding` outside, `inside(rank)` in the
  // region), scalars replicated. Returns the operand list of the op on the pieces.
  static std::string EnterOperands(const Instruction& e, int64_t d, int64_t pieces, const std::string& split_sharding,
                                   const std::function<std::string(int64_t)>& inside, std::vector<std::string>* lines) {
    std::string operands;
    for (int64_t i = 0; i < e.operand_count(); ++i) {
      const Instruction* op = e.operand(i);
      const std::string in = "%" + e.name() + ".in" + std::to_string(i);
      const bool split = !op->shape().IsScalar();
      lines->push_back(in + " = " + op->shape().ToString(false) + " copy(%" + op->name() + "), " +
                       (split ? split_sharding : std::string("sharding={replicated}")));
      lines->push_back(in + ".shard = " + (split ? PieceShape(op->shape(), d, pieces) : op->shape().ToString(false)) +
                       " custom-call(" + in + "), custom_call_target=\"SPMDFullToShardShape\", " +
                       inside(op->shape().rank()));
      operands += (i ? ", " : "") + in + ".shard";
    }
    return operands;
  }

  // An elementwise op computed piecewise in a manual region: its pieces gathered by an
  // all-gather, or left split by the region's end.
  bool Elementwise(const Instruction& e) {
    const Shape& shape = e.shape();
    std::vector<int64_t> candidates = EvenDims(shape, n_);
    if (candidates.empty()) return false;
    const std::string opcode(OpcodeName(e.opcode()));
    std::string attrs;
    if (!ElementwiseAttrs(e, &attrs)) return false;
    const int64_t d = rng_.Pick(candidates);
    const DeviceOrder order = RandomDeviceOrder(rng_, n_);
    const std::string n = e.name();
    std::vector<std::string> lines;
    const std::string operands = EnterOperands(e, d, n_, SplitSharding(d, shape.rank(), n_, order),
                                               [](int64_t) { return std::string("sharding={manual}"); }, &lines);
    lines.push_back("%" + n + ".local = " + PieceShape(shape, d, n_) + " " + opcode + "(" + operands + ")" + attrs +
                    ", sharding={manual}");
    if (rng_.Chance(60)) {
      lines.push_back("%" + n + ".gathered = " + shape.ToString(false) + " all-gather(%" + n + ".local), channel_id=" +
                      std::to_string(++channel_) + ", " + GroupOf(order) + ", dimensions={" + std::to_string(d) +
                      "}, use_global_device_ids=true, sharding={manual}");
      lines.push_back("%" + n + " = " + shape.ToString(false) + " custom-call(%" + n +
                      ".gathered), custom_call_target=\"SPMDShardToFullShape\", sharding={replicated}");
    } else {
      lines.push_back("%" + n + " = " + shape.ToString(false) + " custom-call(%" + n +
                      ".local), custom_call_target=\"SPMDShardToFullShape\", " +
                      SplitSharding(d, shape.rank(), n_, order));
    }
    return Replace(n, lines);
  }

  // Redefines %name in both modules: its own line becomes %name.orig, and `manual` (in the
  // program) and `reference` (in the reference) define %name anew from it.
  bool Redefine(const std::string& name, const std::vector<std::string>& manual,
                const std::vector<std::string>& reference, std::string* reference_text) {
    DefiningLine line = FindDefiningLine(text_, name);
    DefiningLine ref_line = FindDefiningLine(*reference_text, name);
    if (line.begin == std::string::npos || ref_line.begin == std::string::npos) return false;
    std::vector<std::string> lines = {"%" + name + ".orig = " + line.rhs};
    lines.insert(lines.end(), manual.begin(), manual.end());
    if (!Replace(name, lines)) return false;
    std::string block = "  %" + name + ".orig = " + ref_line.rhs;
    for (const std::string& l : reference) block += "\n  " + l;
    reference_text->replace(ref_line.begin, ref_line.end - ref_line.begin, block);
    return true;
  }

  // The manual region's start: %name.orig split along d in `order`, per device.
  std::vector<std::string> Enter(const Instruction& x, int64_t d, const DeviceOrder& order) {
    const std::string n = x.name();
    return {"%" + n + ".in = " + x.shape().ToString(false) + " copy(%" + n + ".orig), " +
                SplitSharding(d, x.shape().rank(), n_, order),
            "%" + n + ".shard = " + PieceShape(x.shape(), d, n_) + " custom-call(%" + n +
                ".in), custom_call_target=\"SPMDFullToShardShape\", sharding={manual}"};
  }
  // Its end: %name from the per-device %name.<from>, split along d in `order` again.
  std::string Leave(const Instruction& x, const std::string& from, int64_t d, const DeviceOrder& order) {
    return "%" + x.name() + " = " + x.shape().ToString(false) + " custom-call(%" + x.name() + "." + from +
           "), custom_call_target=\"SPMDShardToFullShape\", " + SplitSharding(d, x.shape().rank(), n_, order);
  }

  // `x`'s dims with dim d replaced by `pieces`.
  static std::string Grid(const Instruction& x, int64_t d, const std::vector<int64_t>& pieces) {
    std::vector<int64_t> dims;
    for (int64_t k = 0; k < x.shape().rank(); ++k) {
      if (k == d) {
        dims.insert(dims.end(), pieces.begin(), pieces.end());
      } else {
        dims.push_back(x.shape().dimensions(k));
      }
    }
    return Shape(x.shape().element_type(), dims).ToString(false);
  }

  // A value's pieces moved one device along by a collective-permute: piece k lands where
  // piece k+1 was, a roll by one piece. The reference rolls with slices and a concatenate.
  bool Roll(const Instruction& x, std::string* reference) {
    std::vector<int64_t> candidates = EvenDims(x.shape(), n_);
    if (candidates.empty()) return false;
    const int64_t d = rng_.Pick(candidates);
    const DeviceOrder order = RandomDeviceOrder(rng_, n_);
    const std::string n = x.name();
    const int64_t piece = x.shape().dimensions(d) / n_;
    std::string pairs;
    for (int64_t k = 0; k < n_; ++k) {
      pairs += std::string(k ? "," : "") + "{" + std::to_string(order.devices[static_cast<size_t>(k)]) + "," +
               std::to_string(order.devices[static_cast<size_t>((k + 1) % n_)]) + "}";
    }
    std::vector<std::string> manual = Enter(x, d, order);
    manual.push_back("%" + n + ".moved = " + PieceShape(x.shape(), d, n_) + " collective-permute(%" + n +
                     ".shard), channel_id=" + std::to_string(++channel_) + ", source_target_pairs={" + pairs +
                     "}, sharding={manual}");
    manual.push_back(Leave(x, "moved", d, order));
    return Redefine(n, manual, RollReference(x, d, piece), reference);
  }

  // A roll of %name.orig by one piece of `piece` elements along d: the last piece first,
  // then the others.
  static std::vector<std::string> RollReference(const Instruction& x, int64_t d, int64_t piece) {
    const std::string n = x.name(), shape = x.shape().ToString(false);
    const int64_t size = x.shape().dimensions(d);
    const auto slice = [&](int64_t from, int64_t to) {
      std::string s = "slice={";
      for (int64_t k = 0; k < x.shape().rank(); ++k) {
        s += std::string(k ? ", " : "") + "[" + std::to_string(k == d ? from : 0) + ":" +
             std::to_string(k == d ? to : x.shape().dimensions(k)) + "]";
      }
      return s + "}";
    };
    Shape last = x.shape(), rest = x.shape();
    last.set_dimension(d, piece);
    rest.set_dimension(d, size - piece);
    return {"%" + n + ".last = " + last.ToString(false) + " slice(%" + n + ".orig), " + slice(size - piece, size),
            "%" + n + ".rest = " + rest.ToString(false) + " slice(%" + n + ".orig), " + slice(0, size - piece),
            "%" + n + " = " + shape + " concatenate(%" + n + ".last, %" + n + ".rest), dimensions={" +
                std::to_string(d) + "}"};
  }

  // An all-reduce over groups of g pieces (consecutive pieces, or every (n/g)-th), each
  // group's members listed in a random order: every piece becomes its group's sum. The
  // reference: the pieces as a grid, summed along the group's axis and broadcast back.
  bool GroupSum(const Instruction& x, std::string* reference) {
    const PrimitiveType type = x.shape().element_type();
    if (type == PrimitiveType::kPred) return false;
    std::vector<int64_t> candidates = EvenDims(x.shape(), n_);
    if (candidates.empty()) return false;
    const int64_t d = rng_.Pick(candidates);
    const DeviceOrder order = RandomDeviceOrder(rng_, n_);
    const int64_t g = rng_.Pick(SplitFactors(n_));  // 2 .. n
    const bool strided = g < n_ && rng_.Chance(50);
    const int64_t piece = x.shape().dimensions(d) / n_;
    std::string groups = "replica_groups={";
    for (int64_t j = 0; j < n_ / g; ++j) {
      std::vector<int64_t> members;
      for (int64_t i = 0; i < g; ++i) {
        const int64_t k = strided ? i * (n_ / g) + j : j * g + i;
        members.push_back(order.devices[static_cast<size_t>(k)]);
      }
      for (size_t i = members.size() - 1; i > 0; --i) {
        std::swap(members[i], members[static_cast<size_t>(rng_.Below(static_cast<int64_t>(i) + 1))]);
      }
      groups += (j ? "," : "") + List(members);
    }
    groups += "}";
    const std::string n = x.name(), add = "%" + AddComputation(type);
    std::vector<std::string> manual = Enter(x, d, order);
    manual.push_back("%" + n + ".sum = " + PieceShape(x.shape(), d, n_) + " all-reduce(%" + n + ".shard), channel_id=" +
                     std::to_string(++channel_) + ", " + groups + ", use_global_device_ids=true, to_apply=" + add +
                     ", sharding={manual}");
    manual.push_back(Leave(x, "sum", d, order));
    // Grid axes at d: [n/g, g, piece] (consecutive) or [g, n/g, piece] (strided); the sum
    // runs along the g axis.
    const std::vector<int64_t> axes = strided ? std::vector<int64_t>{g, n_ / g, piece} : std::vector<int64_t>{n_ / g, g, piece};
    const int64_t summed = strided ? d : d + 1;
    std::vector<int64_t> kept;
    for (int64_t k = 0; k < x.shape().rank() + 2; ++k) {
      if (k != summed) kept.push_back(k);
    }
    const std::string groups_shape = Grid(x, d, {n_ / g, piece});  // either way
    const std::string grid = Grid(x, d, axes);
    const std::string t(PrimitiveTypeName(type));
    return Redefine(n, manual,
                    {"%" + n + ".grid = " + grid + " reshape(%" + n + ".orig)",
                     "%" + n + ".zero = " + t + "[] constant(0)",
                     "%" + n + ".groups = " + groups_shape + " reduce(%" + n + ".grid, %" + n +
                         ".zero), dimensions={" + std::to_string(summed) + "}, to_apply=" + add,
                     "%" + n + ".spread = " + grid + " broadcast(%" + n + ".groups), dimensions=" + List(kept),
                     "%" + n + " = " + x.shape().ToString(false) + " reshape(%" + n + ".spread)"},
                    reference);
  }

  // An all-to-all along one dim over all devices: piece k's chunk i goes to piece i's
  // device, in chunk position k. The reference: the pieces and their chunks as a grid,
  // the two axes swapped.
  bool AllToAll(const Instruction& x, std::string* reference) {
    std::vector<int64_t> candidates;
    for (int64_t d : EvenDims(x.shape(), n_ * n_)) candidates.push_back(d);
    if (candidates.empty()) return false;
    const int64_t d = rng_.Pick(candidates);
    const DeviceOrder order = RandomDeviceOrder(rng_, n_);
    const int64_t chunk = x.shape().dimensions(d) / (n_ * n_);
    const std::string n = x.name();
    std::vector<std::string> manual = Enter(x, d, order);
    manual.push_back("%" + n + ".swapped = " + PieceShape(x.shape(), d, n_) + " all-to-all(%" + n +
                     ".shard), channel_id=" + std::to_string(++channel_) + ", " + GroupOf(order) + ", dimensions={" +
                     std::to_string(d) + "}, sharding={manual}");
    manual.push_back(Leave(x, "swapped", d, order));
    return Redefine(n, manual, AllToAllReference(x, d, n_, chunk), reference);
  }

  // %name.orig along d as an [m, m, chunk] grid of pieces and chunks, the two axes swapped.
  static std::vector<std::string> AllToAllReference(const Instruction& x, int64_t d, int64_t m, int64_t chunk) {
    const std::string n = x.name();
    std::vector<int64_t> perm;
    for (int64_t k = 0; k < x.shape().rank() + 2; ++k) perm.push_back(k);
    std::swap(perm[static_cast<size_t>(d)], perm[static_cast<size_t>(d + 1)]);
    return {"%" + n + ".grid = " + Grid(x, d, {m, m, chunk}) + " reshape(%" + n + ".orig)",
            "%" + n + ".turned = " + Grid(x, d, {m, m, chunk}) + " transpose(%" + n + ".grid), dimensions=" + List(perm),
            "%" + n + " = " + x.shape().ToString(false) + " reshape(%" + n + ".turned)"};
  }

  // --- Regions manual over one axis of a 2-D mesh (partially manual shardings) ---

  // Outside the region: split along d over the manual axis, whole over the other.
  std::string EnterSharding(int64_t d, int64_t rank) const {
    std::string t = "sharding={devices=[";
    for (int64_t k = 0; k < rank; ++k) t += std::to_string(k == d ? mesh_.pieces : 1) + ",";
    return t + std::to_string(mesh_.others) + "]" + DeviceListText(mesh_.ManualMajor()) + " last_tile_dim_replicate}";
  }
  // Inside: whole on the devices of each manual group.
  std::string RegionWhole(int64_t rank) const {
    std::string t = "sharding={devices=[";
    for (int64_t k = 0; k < rank; ++k) t += "1,";
    return t + std::to_string(mesh_.pieces) + "," + std::to_string(mesh_.others) + "]" +
           DeviceListText(mesh_.ManualMajor()) + " last_tile_dims={manual, replicated}}";
  }
  // Inside: split along e over the automatic axis (whole when e < 0).
  std::string RegionSplit(int64_t e, int64_t rank) const {
    if (e < 0) return RegionWhole(rank);
    std::string t = "sharding={devices=[";
    for (int64_t k = 0; k < rank; ++k) t += std::to_string(k == e ? mesh_.others : 1) + ",";
    return t + std::to_string(mesh_.pieces) + "]" + DeviceListText(mesh_.OthersMajor()) + " last_tile_dims={manual}}";
  }
  // A dim of `shape` (other than `avoid`) that splits over the automatic axis, or -1 (now
  // and then -1 anyway: the value whole in its group).
  int64_t AutoDim(const Shape& shape, int64_t avoid = -1) {
    std::vector<int64_t> dims;
    for (int64_t d : EvenDims(shape, mesh_.others)) {
      if (d != avoid) dims.push_back(d);
    }
    if (dims.empty() || rng_.Chance(20)) return -1;
    return rng_.Pick(dims);
  }
  // The collective's groups: the devices along the manual axis, one group per automatic
  // position.
  std::string ManualGroups() const {
    std::string t = "replica_groups={";
    for (int64_t k = 0; k < mesh_.others; ++k) {
      std::vector<int64_t> g;
      for (int64_t m = 0; m < mesh_.pieces; ++m) g.push_back(mesh_.dev[m][k]);
      t += (k ? "," : "") + List(g);
    }
    return t + "}";
  }
  // The region's start for %name.orig and its end as the text after " = ", through a copy
  // that makes the value whole in its group first.
  std::vector<std::string> PartialEnter(const Instruction& x, int64_t d) {
    const std::string n = x.name();
    const std::vector<int64_t> open = OpenBoundary(x.shape().rank(), d);
    return {"%" + n + ".in = " + x.shape().ToString(false) + " " +
                BoundaryRead(n + ".orig", EnterSharding(d, x.shape().rank()), open),
            "%" + n + ".shard = " + PieceShape(x.shape(), d, mesh_.pieces) + " custom-call(%" + n +
                ".in), custom_call_target=\"SPMDFullToShardShape\", " + RegionWhole(x.shape().rank()) +
                Unspecified(open)};
  }
  // (%name defined from %<from>, a value of the region.)
  // With open dims, `closed` is the dim the manual axis splits outside (-1: none).
  std::vector<std::string> PartialLeave(const std::string& name, const Shape& piece, const Shape& full,
                                        const std::string& from, const std::string& full_sharding,
                                        int64_t closed = -1) {
    const std::vector<int64_t> open = OpenBoundary(piece.rank(), closed);
    return {"%" + name + ".whole_in_group = " + piece.ToString(false) + " " +
                BoundaryRead(from, RegionWhole(piece.rank()), open),
            "%" + name + " = " + full.ToString(false) + " custom-call(%" + name +
                ".whole_in_group), custom_call_target=\"SPMDShardToFullShape\", " + full_sharding + Unspecified(open)};
  }

  // An adding reduce: each manual group sums its piece of a reduced dim (split over its
  // devices automatically), an all-reduce over the manual axis (or a reduce-scatter along a
  // result dim) adds the groups' sums; the init added after.
  bool PartialReduce(const Instruction& r) {
    const Instruction* x = r.operand(0);
    const Instruction* init = r.operand(1);
    std::vector<int64_t> candidates;
    for (int64_t d : EvenDims(x->shape(), mesh_.pieces)) {
      if (std::find(r.dimensions().begin(), r.dimensions().end(), d) != r.dimensions().end()) candidates.push_back(d);
    }
    if (candidates.empty()) return false;
    const int64_t d = rng_.Pick(candidates);
    const std::string n = r.name();
    const Shape& out = r.shape();
    const std::string type(PrimitiveTypeName(out.element_type()));
    const std::string add = "%" + r.to_apply()->name();
    const int64_t rank = x->shape().rank();
    std::vector<std::string> lines = {
        "%" + n + ".full = " + x->shape().ToString(false) + " copy(%" + x->name() + "), " + EnterSharding(d, rank),
        "%" + n + ".shard = " + PieceShape(x->shape(), d, mesh_.pieces) + " custom-call(%" + n +
            ".full), custom_call_target=\"SPMDFullToShardShape\", " + RegionWhole(rank),
        "%" + n + ".zero = " + type + "[] constant(0), " + RegionWhole(0)};
    const std::vector<int64_t> scatter_dims = EvenDims(out, mesh_.pieces);
    const std::string channel = "channel_id=" + std::to_string(++channel_);
    if (!scatter_dims.empty() && rng_.Chance(40)) {
      const int64_t f = rng_.Pick(scatter_dims);
      const int64_t e = AutoDim(out, f);
      Shape piece = out;
      piece.set_dimension(f, out.dimensions(f) / mesh_.pieces);
      lines.push_back("%" + n + ".part = " + out.ToString(false) + " reduce(%" + n + ".shard, %" + n +
                      ".zero), dimensions=" + List(r.dimensions()) + ", to_apply=" + add +
                      Inner(RegionSplit(e, out.rank())));
      lines.push_back("%" + n + ".sum = " + piece.ToString(false) + " reduce-scatter(%" + n + ".part), " + channel +
                      ", " + ManualGroups() + ", use_global_device_ids=true, dimensions={" + std::to_string(f) +
                      "}, to_apply=" + add + Inner(RegionSplit(AutoDim(piece, f), out.rank())));
      for (const std::string& l : PartialLeave(n + ".total", piece, out, n + ".sum", EnterSharding(f, out.rank()), f))
        lines.push_back(l);
    } else {
      const int64_t e = AutoDim(out);
      lines.push_back("%" + n + ".part = " + out.ToString(false) + " reduce(%" + n + ".shard, %" + n +
                      ".zero), dimensions=" + List(r.dimensions()) + ", to_apply=" + add +
                      Inner(RegionSplit(e, out.rank())));
      lines.push_back("%" + n + ".sum = " + out.ToString(false) + " all-reduce(%" + n + ".part), " + channel + ", " +
                      ManualGroups() + ", use_global_device_ids=true, to_apply=" + add +
                      Inner(RegionSplit(rng_.Chance(50) ? e : AutoDim(out), out.rank())));
      for (const std::string& l : PartialLeave(n + ".total", out, out, n + ".sum", "sharding={replicated}")) lines.push_back(l);
    }
    lines.push_back("%" + n + ".init = " + out.ToString(false) + " broadcast(%" + init->name() + "), dimensions={}");
    lines.push_back("%" + n + " = " + out.ToString(false) + " add(%" + n + ".total, %" + n + ".init)");
    return Replace(n, lines);
  }

  // An elementwise op on pieces split over the manual axis (and over the automatic one
  // inside), then an all-gather over the manual axis or left split.
  bool PartialElementwise(const Instruction& e) {
    const Shape& shape = e.shape();
    std::vector<int64_t> candidates = EvenDims(shape, mesh_.pieces);
    if (candidates.empty()) return false;
    const std::string opcode(OpcodeName(e.opcode()));
    std::string attrs;
    if (!ElementwiseAttrs(e, &attrs)) return false;
    const int64_t d = rng_.Pick(candidates);
    const std::string n = e.name();
    Shape piece = shape;
    piece.set_dimension(d, shape.dimensions(d) / mesh_.pieces);
    std::vector<std::string> lines;
    const std::string operands = EnterOperands(e, d, mesh_.pieces, EnterSharding(d, shape.rank()),
                                               [&](int64_t rank) { return RegionWhole(rank); }, &lines);
    lines.push_back("%" + n + ".local = " + piece.ToString(false) + " " + opcode + "(" + operands + ")" + attrs +
                    Inner(RegionSplit(AutoDim(piece), shape.rank())));
    if (rng_.Chance(60)) {
      lines.push_back("%" + n + ".gathered = " + shape.ToString(false) + " all-gather(%" + n + ".local), channel_id=" +
                      std::to_string(++channel_) + ", " + ManualGroups() + ", dimensions={" + std::to_string(d) +
                      "}, use_global_device_ids=true" + Inner(RegionSplit(AutoDim(shape), shape.rank())));
      for (const std::string& l : PartialLeave(n, shape, shape, n + ".gathered", "sharding={replicated}")) lines.push_back(l);
    } else {
      for (const std::string& l : PartialLeave(n, piece, shape, n + ".local", EnterSharding(d, shape.rank()), d)) lines.push_back(l);
    }
    return Replace(n, lines);
  }

  // An elementwise op in a region nested in a partially manual one: the outer region
  // splits along d over the manual axis; the inner one takes each operand as the outer
  // region holds it split along f over the automatic axis, and is manual over both axes
  // (each device's tile its value). The inner region's end gives the outer its split
  // value back; the outer's end, the pieces joined.
  bool PartialNestedElementwise(const Instruction& e) {
    const Shape& shape = e.shape();
    std::vector<int64_t> candidates = EvenDims(shape, mesh_.pieces);
    if (candidates.empty()) return false;
    const int64_t d = rng_.Pick(candidates);
    Shape piece = shape;
    piece.set_dimension(d, shape.dimensions(d) / mesh_.pieces);
    const std::vector<int64_t> inner_dims = EvenDims(piece, mesh_.others);
    std::string attrs;
    if (inner_dims.empty() || !ElementwiseAttrs(e, &attrs)) return false;
    const int64_t f = rng_.Pick(inner_dims);
    Shape tile = piece;
    tile.set_dimension(f, piece.dimensions(f) / mesh_.others);
    const std::string opcode(OpcodeName(e.opcode()));
    const std::string n = e.name();
    std::vector<std::string> lines;
    EnterOperands(e, d, mesh_.pieces, EnterSharding(d, shape.rank()),
                  [&](int64_t rank) { return RegionWhole(rank); }, &lines);
    std::string operands;
    for (int64_t i = 0; i < e.operand_count(); ++i) {
      const Instruction* op = e.operand(i);
      const std::string in = "%" + n + ".in" + std::to_string(i), nest = "%" + n + ".nest" + std::to_string(i);
      const bool split = !op->shape().IsScalar();
      Shape op_piece = op->shape(), op_tile = op->shape();  // the operand's type, e's dims
      if (split) {
        op_piece.set_dimension(d, piece.dimensions(d));
        op_tile.set_dimension(d, piece.dimensions(d));
        op_tile.set_dimension(f, tile.dimensions(f));
      }
      lines.push_back(nest + " = " + op_piece.ToString(false) + " copy(" + in + ".shard), " +
                      (split ? RegionSplit(f, piece.rank()) : RegionWhole(0)));
      lines.push_back(nest + ".shard = " + op_tile.ToString(false) + " custom-call(" + nest +
                      "), custom_call_target=\"SPMDFullToShardShape\", sharding={manual}");
      operands += (i ? ", " : "") + nest + ".shard";
    }
    lines.push_back("%" + n + ".tile = " + tile.ToString(false) + " " + opcode + "(" + operands + ")" + attrs +
                    ", sharding={manual}");
    lines.push_back("%" + n + ".tile_out = " + tile.ToString(false) + " copy(%" + n + ".tile), sharding={manual}");
    lines.push_back("%" + n + ".local = " + piece.ToString(false) + " custom-call(%" + n +
                    ".tile_out), custom_call_target=\"SPMDShardToFullShape\", " + RegionSplit(f, piece.rank()));
    for (const std::string& l : PartialLeave(n, piece, shape, n + ".local", EnterSharding(d, shape.rank()), d))
      lines.push_back(l);
    return Replace(n, lines);
  }

  // A value's pieces moved one manual position along by a collective-permute (every
  // automatic position alike): a roll by one piece, as Roll's reference.
  bool PartialRoll(const Instruction& x, std::string* reference) {
    std::vector<int64_t> candidates = EvenDims(x.shape(), mesh_.pieces);
    if (candidates.empty()) return false;
    const int64_t d = rng_.Pick(candidates);
    const int64_t m_n = mesh_.pieces;
    const std::string n = x.name();
    const int64_t size = x.shape().dimensions(d), piece_size = size / m_n;
    Shape piece = x.shape();
    piece.set_dimension(d, piece_size);
    std::string pairs;
    for (int64_t m = 0; m < m_n; ++m) {
      for (int64_t k = 0; k < mesh_.others; ++k) {
        pairs += std::string(pairs.empty() ? "" : ",") + "{" + std::to_string(mesh_.dev[m][k]) + "," +
                 std::to_string(mesh_.dev[(m + 1) % m_n][k]) + "}";
      }
    }
    std::vector<std::string> manual = PartialEnter(x, d);
    manual.push_back("%" + n + ".moved = " + piece.ToString(false) + " collective-permute(%" + n +
                     ".shard), channel_id=" + std::to_string(++channel_) + ", source_target_pairs={" + pairs + "}" +
                     Inner(RegionSplit(AutoDim(piece), piece.rank())));
    for (const std::string& l : PartialLeave(n, piece, x.shape(), n + ".moved", EnterSharding(d, piece.rank()), d))
      manual.push_back(l);
    return Redefine(n, manual, RollReference(x, d, piece_size), reference);
  }

  // A psum over the manual axis: each group's piece becomes the sum of all groups' pieces.
  // The reference: the pieces as a grid, summed along the piece axis and broadcast back.
  bool PartialSum(const Instruction& x, std::string* reference) {
    const PrimitiveType type = x.shape().element_type();
    if (type == PrimitiveType::kPred) return false;
    std::vector<int64_t> candidates = EvenDims(x.shape(), mesh_.pieces);
    if (candidates.empty()) return false;
    const int64_t d = rng_.Pick(candidates);
    const int64_t m_n = mesh_.pieces;
    const std::string n = x.name(), add = "%" + AddComputation(type);
    Shape piece = x.shape();
    piece.set_dimension(d, x.shape().dimensions(d) / m_n);
    std::vector<std::string> manual = PartialEnter(x, d);
    const int64_t e = AutoDim(piece);
    manual.push_back("%" + n + ".split = " + piece.ToString(false) + " copy(%" + n + ".shard)" +
                     Inner(RegionSplit(e, piece.rank())));
    manual.push_back("%" + n + ".sum = " + piece.ToString(false) + " all-reduce(%" + n + ".split), channel_id=" +
                     std::to_string(++channel_) + ", " + ManualGroups() + ", use_global_device_ids=true, to_apply=" + add +
                     Inner(RegionSplit(rng_.Chance(50) ? e : AutoDim(piece), piece.rank())));
    for (const std::string& l : PartialLeave(n, piece, x.shape(), n + ".sum", EnterSharding(d, piece.rank()), d))
      manual.push_back(l);
    std::vector<int64_t> kept;
    for (int64_t k = 0; k < x.shape().rank() + 1; ++k) {
      if (k != d) kept.push_back(k);
    }
    const std::string grid = Grid(x, d, {m_n, piece.dimensions(d)});
    const std::string t(PrimitiveTypeName(type));
    return Redefine(n, manual,
                    {"%" + n + ".grid = " + grid + " reshape(%" + n + ".orig)",
                     "%" + n + ".zero = " + t + "[] constant(0)",
                     "%" + n + ".total = " + piece.ToString(false) + " reduce(%" + n + ".grid, %" + n +
                         ".zero), dimensions={" + std::to_string(d) + "}, to_apply=" + add,
                     "%" + n + ".spread = " + grid + " broadcast(%" + n + ".total), dimensions=" + List(kept),
                     "%" + n + " = " + x.shape().ToString(false) + " reshape(%" + n + ".spread)"},
                    reference);
  }

  // An all-to-all along one dim over the manual axis: as AllToAll, over M pieces.
  bool PartialAllToAll(const Instruction& x, std::string* reference) {
    const int64_t m_n = mesh_.pieces;
    std::vector<int64_t> candidates = EvenDims(x.shape(), m_n * m_n);
    if (candidates.empty()) return false;
    const int64_t d = rng_.Pick(candidates);
    const int64_t chunk = x.shape().dimensions(d) / (m_n * m_n);
    const std::string n = x.name();
    Shape piece = x.shape();
    piece.set_dimension(d, x.shape().dimensions(d) / m_n);
    std::vector<std::string> manual = PartialEnter(x, d);
    manual.push_back("%" + n + ".swapped = " + piece.ToString(false) + " all-to-all(%" + n + ".shard), channel_id=" +
                     std::to_string(++channel_) + ", " + ManualGroups() + ", dimensions={" + std::to_string(d) + "}" +
                     Inner(RegionSplit(AutoDim(piece), piece.rank())));
    for (const std::string& l : PartialLeave(n, piece, x.shape(), n + ".swapped", EnterSharding(d, piece.rank()), d))
      manual.push_back(l);
    return Redefine(n, manual, AllToAllReference(x, d, m_n, chunk), reference);
  }

  void SetPartialMesh(PartialMesh mesh) { mesh_ = std::move(mesh); }
  bool HasPartialMesh() const { return mesh_.pieces > 0; }

  // The name of an adding computation of `type`, added to both modules' texts once.
  std::string AddComputation(PrimitiveType type) {
    const std::string t(PrimitiveTypeName(type));
    const std::string name = "manual_region_add_" + t;
    if (std::find(added_.begin(), added_.end(), name) == added_.end()) added_.push_back(name);
    return name;
  }
  // The computations AddComputation named, as text.
  std::string AddedComputations() const {
    std::string text;
    for (const std::string& name : added_) {
      const std::string t = name.substr(std::string("manual_region_add_").size());
      text += "%" + name + " (a: " + t + "[], b: " + t + "[]) -> " + t + "[] {\n  %a = " + t + "[] parameter(0)\n  %b = " +
              t + "[] parameter(1)\n  ROOT %sum = " + t + "[] add(%a, %b)\n}\n\n";
    }
    return text;
  }

  const std::string& text() const { return text_; }
  Rng& rng() { return rng_; }
  // Open dims (XLA's unspecified_dims, Shardy's {?}) in partially manual regions, drawn
  // from their own stream: the regions are the same as without them.
  void SetOpenDims(uint64_t seed) {
    open_ = true;
    open_rng_ = Rng(seed);
  }

 private:
  // ", sharding=..." for a value inside a region, or nothing (open: propagation chooses).
  std::string Inner(const std::string& sharding) {
    if (open_ && open_rng_.Chance(50)) return "";
    return ", " + sharding;
  }
  // For a boundary: the dims of a `rank` value other than `closed` to leave open, or none.
  std::vector<int64_t> OpenBoundary(int64_t rank, int64_t closed) {
    std::vector<int64_t> dims;
    if (!open_ || !open_rng_.Chance(60)) return dims;
    for (int64_t k = 0; k < rank; ++k)
      if (k != closed) dims.push_back(k);
    return dims;
  }
  static std::string Unspecified(const std::vector<int64_t>& dims) {
    return dims.empty() ? "" : ", backend_config=\"unspecified_dims=[" + Join(dims) + "]\"";
  }
  // The value a boundary reads: a copy with `sharding`, or with open dims a Sharding
  // custom call carrying them.
  static std::string BoundaryRead(const std::string& operand, const std::string& sharding,
                                  const std::vector<int64_t>& open) {
    if (open.empty()) return "copy(%" + operand + "), " + sharding;
    return "custom-call(%" + operand + "), custom_call_target=\"Sharding\", " + sharding + Unspecified(open);
  }
  static std::string Join(const std::vector<int64_t>& v) {
    std::string t;
    for (size_t i = 0; i < v.size(); ++i) t += (i ? "," : "") + std::to_string(v[i]);
    return t;
  }

  std::string text_;
  int64_t n_;
  Rng rng_;
  bool open_ = false;
  Rng open_rng_{0};
  int64_t channel_ = 100;
  std::vector<std::string> added_;
  PartialMesh mesh_;
};

}  // namespace

std::string AddManualRegions(const std::string& text, uint64_t seed, int partitions, bool partial, bool open,
                             bool nested) {
  auto parsed = ParseModule(text);
  if (!parsed.ok() || partitions < 2) return text;
  const Module& module = **parsed;
  const Computation* entry = module.entry();
  std::string reference = text;
  ManualRewriter rewriter(text, partitions, seed * 0xD1B54A32D192ED03ull + 0x3a7);
  Rng& rng = rewriter.rng();
  if (partial && partitions >= 4) rewriter.SetPartialMesh(RandomPartialMesh(rng, partitions));
  if (open) rewriter.SetOpenDims(seed * 0x9E6C63D0676A9A99ull + 0x51);
  // Whether to try a nested region, from a stream of its own.
  Rng nest_rng(seed * 0xA0761D6478BD642Full + 0x77);
  // Candidates: every entry instruction but the root and parameters, each tried in turn
  // from a random start; one to three regions.
  std::vector<const Instruction*> candidates;
  for (const auto& ins : entry->instructions()) {
    if (ins.get() == entry->root() || !ins->shape().IsArray() || ins->shape().rank() == 0) continue;
    if (ins->opcode() == Opcode::kParameter) continue;
    candidates.push_back(ins.get());
  }
  if (candidates.empty()) return text;
  const int wanted = static_cast<int>(rng.Range(1, 3));
  int made = 0;
  const size_t start = static_cast<size_t>(rng.Below(static_cast<int64_t>(candidates.size())));
  for (size_t k = 0; k < candidates.size() && made < wanted; ++k) {
    const Instruction& ins = *candidates[(start + k) % candidates.size()];
    bool done = false;
    const bool adding_reduce = ins.opcode() == Opcode::kReduce && ins.operand_count() == 2 && Adds(ins.to_apply()) &&
                               ins.shape().element_type() != PrimitiveType::kPred;
    // Partially manual (over one mesh axis, the other left to the partitioner) when the
    // module has a mesh, now and then fully manual still.
    const bool over_one_axis = rewriter.HasPartialMesh() && rng.Chance(75);
    if (adding_reduce) {
      done = over_one_axis ? rewriter.PartialReduce(ins) : rewriter.Reduce(ins);
    } else if (IsElementwise(ins) && over_one_axis && nested && nest_rng.Chance(70) &&
               rewriter.PartialNestedElementwise(ins)) {
      done = true;
    } else if (IsElementwise(ins) && rng.Chance(50)) {
      done = over_one_axis ? rewriter.PartialElementwise(ins) : rewriter.Elementwise(ins);
    } else if (rng.Chance(40)) {
      const int64_t kind = rng.Below(3);
      if (kind == 0) done = over_one_axis ? rewriter.PartialRoll(ins, &reference) : rewriter.Roll(ins, &reference);
      if (kind == 1) done = over_one_axis ? rewriter.PartialSum(ins, &reference) : rewriter.GroupSum(ins, &reference);
      if (kind == 2) done = over_one_axis ? rewriter.PartialAllToAll(ins, &reference) : rewriter.AllToAll(ins, &reference);
    }
    made += done ? 1 : 0;
  }
  if (made == 0) return text;
  // Computations the regions and references call, before the entry in both.
  std::string first = rewriter.text();
  const std::string added = rewriter.AddedComputations();
  for (std::string* t : {&first, &reference}) {
    const size_t entry_at = t->find("\nENTRY ");
    if (entry_at != std::string::npos) t->insert(entry_at + 1, added);
  }
  // The reference: the same program without manual regions, as a second module.
  const std::string header = "HloModule " + module.name();
  std::string second = reference;
  if (second.compare(0, header.size(), header) == 0) second.replace(0, header.size(), header + "_reference");
  return first + "\n" + second;
}

}  // namespace fusebox::fuzz
