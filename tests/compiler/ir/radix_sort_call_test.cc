// XLA's CUB radix sort calls (__cub$DeviceRadixSort, which XLA's GPU sort rewriter
// writes for large sorts): the interpreter against a stable sort written here from the
// definition (each row of the last dimension, floats by their bits in total order,
// descending when the SortOptions say so, values carried along), then the CPU backend
// and the GPU emulator, fused and unfused, bit for bit; then what is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/ir/library_calls.h"
#include "compiler/parser/parser.h"
#include "tests/backend_runs.h"

namespace fusebox {
namespace {

struct Case {
  std::string keys;    // "f32[3,50]"
  std::string values;  // "s32[3,50]" or empty
  bool descending = false;
};

std::string SortModule(const Case& c, const std::string& config) {
  const std::string scratch = "u8[64]";
  std::string text = "HloModule sort\n\nENTRY e {\n  k = " + c.keys + " parameter(0)\n";
  std::string operands = "k", result = c.keys;
  if (!c.values.empty()) {
    text += "  v = " + c.values + " parameter(1)\n";
    operands += ", v";
    result += ", " + c.values;
  }
  return text + "  ROOT s = (" + result + ", " + scratch + ") custom-call(" + operands +
         "), custom_call_target=\"__cub$DeviceRadixSort\"" + config + "\n}\n";
}

std::string Config(const Case& c) { return c.descending ? ", backend_config={\"descending\":true}" : ""; }

// Keys with ties, both zeros, both infinities and NaNs of both signs (floats), or the
// type's extremes (integers).
Literal Keys(const Shape& shape) {
  Literal literal(shape);
  const PrimitiveType type = shape.element_type();
  const int width = BitWidth(type);
  uint64_t state = 12345;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = state >> 33;
    if (IsFloat(type)) {
      const double inf = std::numeric_limits<double>::infinity();
      const double special[] = {0.0, -0.0, inf, -inf, 1.5, -1.5, 2.0};
      if (r % 4 == 0) {
        literal.SetDouble(i, special[(r / 4) % 7]);
      } else if (r % 11 == 1) {
        // A NaN, negative half the time, with a payload.
        const uint64_t sign = (r / 11) % 2 ? uint64_t{1} << (width - 1) : 0;
        const int mantissa = type == PrimitiveType::kF64 ? 52 : type == PrimitiveType::kF32 ? 23 : type == PrimitiveType::kF16 ? 10 : 7;
        const uint64_t exponent = ((uint64_t{1} << (width - 1 - mantissa)) - 1) << mantissa;
        literal.SetBits(i, sign | exponent | (1 + (r % 3)));
      } else {
        literal.SetDouble(i, static_cast<double>(static_cast<int64_t>(r % 41) - 20) / 4);
      }
    } else {
      const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
      literal.SetBits(i, r % 5 == 0 ? (r % 2 ? mask : uint64_t{1} << (width - 1)) : (r * 0x9E3779B97F4A7C15ull) & mask);
      if (r % 7 == 0) literal.SetBits(i, 3);  // ties
    }
  }
  return literal;
}

Literal Values(const Shape& shape) {
  Literal literal(shape);
  for (int64_t i = 0; i < literal.element_count(); ++i) literal.SetDouble(i, static_cast<double>(i % 97));
  return literal;
}

// The order CUB's radix sort gives: floats by their bits with negatives flipped (total
// order), signed integers by value, unsigned by value.
uint64_t OrderKey(const Literal& keys, int64_t i) {
  const PrimitiveType type = keys.shape().element_type();
  const int width = BitWidth(type);
  const uint64_t sign = uint64_t{1} << (width - 1);
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  const uint64_t bits = keys.GetBits(i);
  if (IsFloat(type)) return (bits & sign) ? (~bits & mask) : (bits | sign);
  if (IsSignedInt(type)) return bits ^ sign;
  return bits;
}

// Stable sort of each row; returns the source position of each output element.
std::vector<int64_t> ReferenceOrder(const Literal& keys, bool descending) {
  const int64_t n = keys.shape().dimensions().back();
  const int64_t rows = n == 0 ? 0 : keys.element_count() / n;
  std::vector<int64_t> order(static_cast<size_t>(keys.element_count()));
  for (int64_t r = 0; r < rows; ++r) {
    auto first = order.begin() + r * n;
    std::iota(first, first + n, r * n);
    std::stable_sort(first, first + n, [&](int64_t a, int64_t b) {
      return descending ? OrderKey(keys, a) > OrderKey(keys, b) : OrderKey(keys, a) < OrderKey(keys, b);
    });
  }
  return order;
}

std::vector<Case> Cases() {
  return {{"f32[3,50]", "", false},          {"f32[3,50]", "s32[3,50]", true}, {"u32[4,33]", "bf16[4,33]", false},
          {"s64[1000]", "", false},          {"f16[2,3,40]", "f32[2,3,40]", true}, {"bf16[64]", "s32[64]", false},
          {"s8[5,17]", "u16[5,17]", true},   {"f64[2,30]", "", true},          {"u8[3,0]", "s32[3,0]", false}};
}

TEST(RadixSortCallTest, InterpreterSortsAsCub) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.keys + " " + c.values + (c.descending ? " descending" : ""));
    auto module = ParseModule(SortModule(c, Config(c)));
    ASSERT_TRUE(module.ok()) << module.status().message();
    auto call = ParseLibraryCall(*(*module)->entry()->root());
    ASSERT_TRUE(call.ok()) << call.status().message();
    EXPECT_EQ(call->kind, LibraryCallKind::kRadixSort);
    EXPECT_EQ(call->descending, c.descending);
    std::vector<Literal> args = {Keys((*module)->entry()->parameter(0)->shape())};
    if (!c.values.empty()) args.push_back(Values((*module)->entry()->parameter(1)->shape()));
    auto got = interpreter::Interpreter().Run(**module, args);
    ASSERT_TRUE(got.ok()) << got.status().message();
    const std::vector<int64_t> order = ReferenceOrder(args[0], c.descending);
    const std::vector<Literal>& out = got->tuple_elements();
    ASSERT_EQ(out.size(), args.size() + 1);
    for (size_t i = 0; i < order.size(); ++i) {
      ASSERT_EQ(out[0].GetBits(static_cast<int64_t>(i)), args[0].GetBits(order[i])) << "key " << i;
      if (!c.values.empty()) {
        ASSERT_EQ(out[1].GetBits(static_cast<int64_t>(i)), args[1].GetBits(order[i])) << "value " << i;
      }
    }
    for (int64_t i = 0; i < out.back().element_count(); ++i) EXPECT_EQ(out.back().GetBits(i), 0u);
  }
}

bool SameBits(const Literal& a, const Literal& b) {
  if (a.shape().IsTuple()) {
    if (a.tuple_elements().size() != b.tuple_elements().size()) return false;
    for (size_t i = 0; i < a.tuple_elements().size(); ++i) {
      if (!SameBits(a.tuple_elements()[i], b.tuple_elements()[i])) return false;
    }
    return true;
  }
  if (a.element_count() != b.element_count()) return false;
  for (int64_t i = 0; i < a.element_count(); ++i) {
    if (a.GetBits(i) != b.GetBits(i)) return false;
  }
  return true;
}

TEST(RadixSortCallTest, BackendsSortBitForBit) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.keys + " " + c.values + (c.descending ? " descending" : ""));
    auto module = ParseModule(SortModule(c, Config(c)));
    ASSERT_TRUE(module.ok()) << module.status().message();
    std::vector<Literal> args = {Keys((*module)->entry()->parameter(0)->shape())};
    if (!c.values.empty()) args.push_back(Values((*module)->entry()->parameter(1)->shape()));
    auto expected = interpreter::Interpreter().Run(**module, args);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    RunOnBothBackends(**module, args, [&](const Literal& got, const std::string& which) {
      EXPECT_TRUE(SameBits(got, *expected)) << which;
    });
  }
}

TEST(RadixSortCallTest, RefusesWhatCubDoesNotSort) {
  auto error = [](const std::string& text) -> std::string {
    auto module = ParseModule(text);
    if (!module.ok()) return "parse: " + module.status().message();
    Module scratch("scratch");
    Status status = BuildLibraryCallComputation(*(*module)->entry()->root(), scratch).status();
    return status.ok() ? "ok" : status.message();
  };
  EXPECT_EQ(error(SortModule({"f32[4]", "", false}, "")), "ok");
  EXPECT_NE(error(SortModule({"pred[4]", "", false}, "")).find("custom-call s (__cub$DeviceRadixSort): CUB has no radix sort of pred keys"),
            std::string::npos);
  EXPECT_NE(error(SortModule({"f32[4]", "s32[5]", false}, "")).find("not an array of the keys' dimensions"),
            std::string::npos);
  EXPECT_NE(error(SortModule({"f32[4]", "", false}, ", backend_config={\"descending\":1}")).find("descending is not true or false"),
            std::string::npos);
  std::string no_scratch = SortModule({"f32[4]", "", false}, "");
  no_scratch.replace(no_scratch.find("(f32[4], u8[64])"), 16, "(f32[4], f32[4])");
  EXPECT_NE(error(no_scratch).find("is not (sorted operands..., u8 scratch)"), std::string::npos);
}

}  // namespace
}  // namespace fusebox
