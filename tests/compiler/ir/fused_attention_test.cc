// cuDNN's fused attention calls (__cudnn$fmha*, fused_attention.h) in the interpreter,
// against attention written here as loops from its definition in double (scores, the
// mask, softmax over the keys a query sees, the output; the gradients of each), for
// both of jax's layouts, grouped-query heads, broadcast biases, padding, causal masks
// and sliding windows; then the CPU backend and the GPU emulator, fused and unfused,
// against the interpreter; then what is refused. jax's own modules of such calls, against
// jax's XLA attention, are CliCpuRunTest.JaxCudnnAttentionMatchesXlasOwnAttention.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/ir/library_calls.h"
#include "compiler/parser/parser.h"
#include "tests/backend_runs.h"

namespace fusebox {
namespace {

struct Case {
  std::string name;
  bool bnth = false;  // operands [B,N,T,H] (else jax's [B,T,N,H])
  int64_t b = 2, t = 5, s = 5, n = 2, nk = 2, h = 4, hv = 4;
  double scale = 0.5;
  std::string mask = "NO_MASK";
  int64_t window = 0;
  std::vector<int64_t> bias = {};  // empty: no bias
  std::vector<int64_t> q_len = {}, kv_len = {};
};

bool Padding(const Case& c) { return c.mask == "PADDING" || c.mask == "PADDING_CAUSAL"; }
bool Causal(const Case& c) { return c.mask == "CAUSAL" || c.mask == "PADDING_CAUSAL"; }

std::string Dims(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}
std::string F32(const std::vector<int64_t>& d) { return "f32" + Dims(d); }

// An operand's dimensions in its layout, from (batch, heads, sequence, features).
std::vector<int64_t> Operand(const Case& c, int64_t heads, int64_t seq, int64_t features) {
  return c.bnth ? std::vector<int64_t>{c.b, heads, seq, features} : std::vector<int64_t>{c.b, seq, heads, features};
}

std::string DotJson(const char* key, int64_t lc, int64_t rc, std::vector<int64_t> lb, std::vector<int64_t> rb) {
  auto list = [](const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::string("\"") + std::to_string(v[i]) + "\"";
    return s + "]";
  };
  return std::string("\"") + key + "\": {\"lhs_contracting_dimensions\": " + list({lc}) +
         ", \"rhs_contracting_dimensions\": " + list({rc}) + ", \"lhs_batch_dimensions\": " + list(lb) +
         ", \"rhs_batch_dimensions\": " + list(rb) + "}";
}

// The backend_config jax writes (fused_attention_stablehlo.py), with `extra` fields.
std::string Config(const Case& c, bool backward, const std::string& extra = "") {
  std::string dots;
  const std::vector<int64_t> scores = {0, 1};
  const std::vector<int64_t> qkv = c.bnth ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0, 2};
  const int64_t seq = c.bnth ? 2 : 1;
  if (!backward) {
    dots = DotJson("bmm1_dot_dimension_numbers", 3, 3, qkv, qkv) + ", " +
           DotJson("bmm2_dot_dimension_numbers", 3, seq, scores, qkv);
  } else {
    dots = DotJson("bmm1_grad_gemm1_dot_dimension_numbers", 2, seq, scores, qkv) + ", " +
           DotJson("bmm1_grad_gemm2_dot_dimension_numbers", 3, seq, scores, qkv) + ", " +
           DotJson("bmm2_grad_gemm1_dot_dimension_numbers", 2, seq, scores, qkv) + ", " +
           DotJson("bmm2_grad_gemm2_dot_dimension_numbers", 3, 3, qkv, qkv);
  }
  char scale[64];
  std::snprintf(scale, sizeof scale, "%.17g", c.scale);
  return "{\"operation_queue_id\": \"0\", \"cudnn_fmha_backend_config\": {\"algorithm\": {\"algo_id\": \"0\"}, "
         "\"fmha_scale\": " + std::string(scale) + ", \"is_flash_attention\": true, \"mask_type\": \"" + c.mask +
         "\", " + dots + ", \"dropout_rate\": 0.0, \"seed\": 42, \"sliding_window_length\": " +
         std::to_string(c.window) + ", \"max_seg_per_batch\": 1, \"is_paged_attention\": false" + extra + "}}";
}

std::string Target(const Case& c, bool backward) {
  return std::string("__cudnn$fmha") + (c.bias.empty() ? "Softmax" : "ScaleBiasSoftmax") + (backward ? "Backward" : "");
}

// Forward: (q, k, v[, bias][, q_len, kv_len]) -> (O, stats). Backward: (q, k, v, stats, dO[,
// bias], O[, lengths]) -> (dQ, dK, dV[, dbias]).
std::string AttentionModule(const Case& c, bool backward, const std::string& extra = "") {
  const std::string q = F32(Operand(c, c.n, c.t, c.h)), k = F32(Operand(c, c.nk, c.s, c.h)),
                    v = F32(Operand(c, c.nk, c.s, c.hv)), o = F32(Operand(c, c.n, c.t, c.hv));
  const std::string stats = F32({c.b, c.n, c.t});
  std::string params = "  q = " + q + " parameter(0)\n  k = " + k + " parameter(1)\n  v = " + v + " parameter(2)\n";
  std::vector<std::string> operands = {"q", "k", "v"};
  int64_t next = 3;
  auto add = [&](const std::string& name, const std::string& shape) {
    params += "  " + name + " = " + shape + " parameter(" + std::to_string(next++) + ")\n";
    operands.push_back(name);
  };
  if (backward) {
    add("stats", stats);
    add("d_o", o);
  }
  if (!c.bias.empty()) add("bias", F32(c.bias));
  if (backward) add("o", o);
  if (Padding(c)) {
    add("q_len", "s32[" + std::to_string(c.b) + "]");
    add("kv_len", "s32[" + std::to_string(c.b) + "]");
  }
  std::string result;
  if (!backward) {
    result = "(f32" + Dims({c.b, c.n, c.t, c.hv}) + ", " + stats + ", u8[0])";
  } else {
    result = "(f32" + Dims({c.b, c.n, c.t, c.h}) + ", f32" + Dims({c.b, c.nk, c.s, c.h}) + ", f32" +
             Dims({c.b, c.nk, c.s, c.hv}) + (c.bias.empty() ? "" : ", " + F32(c.bias)) + ", u8[0])";
  }
  std::string list;
  for (size_t i = 0; i < operands.size(); ++i) list += (i ? ", " : "") + operands[i];
  return "HloModule attention\n\nENTRY e {\n" + params + "  ROOT a = " + result + " custom-call(" + list +
         "), custom_call_target=\"" + Target(c, backward) + "\", backend_config=" + Config(c, backward, extra) +
         "\n}\n";
}

// Deterministic values in [-1, 1).
Literal Filled(const Shape& shape, uint64_t seed) {
  Literal literal(shape);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    literal.SetDouble(i, static_cast<double>(state >> 11) / 9007199254740992.0 * 2 - 1);
  }
  return literal;
}

Literal Lengths(const std::vector<int64_t>& lengths) {
  Literal literal(Shape(PrimitiveType::kS32, {static_cast<int64_t>(lengths.size())}));
  for (size_t i = 0; i < lengths.size(); ++i) literal.SetInt64(static_cast<int64_t>(i), lengths[i]);
  return literal;
}

// A row-major array of doubles with 4-D indexing.
struct Array4 {
  std::vector<int64_t> d;
  std::vector<double> x;
  explicit Array4(std::vector<int64_t> dims) : d(std::move(dims)), x(static_cast<size_t>(d[0] * d[1] * d[2] * d[3])) {}
  size_t Index(int64_t a, int64_t b, int64_t c, int64_t e) const {
    return static_cast<size_t>(((a * d[1] + b) * d[2] + c) * d[3] + e);
  }
  double& at(int64_t a, int64_t b, int64_t c, int64_t e) { return x[Index(a, b, c, e)]; }
  double at(int64_t a, int64_t b, int64_t c, int64_t e) const { return x[Index(a, b, c, e)]; }
};

// An operand literal read as [B, heads, seq, features] whatever its layout.
Array4 Canonical(const Case& c, const Literal& literal, int64_t heads, int64_t seq, int64_t features) {
  Array4 out({c.b, heads, seq, features});
  for (int64_t b = 0; b < c.b; ++b)
    for (int64_t n = 0; n < heads; ++n)
      for (int64_t s = 0; s < seq; ++s)
        for (int64_t f = 0; f < features; ++f) {
          const int64_t index = c.bnth ? ((b * heads + n) * seq + s) * features + f : ((b * seq + s) * heads + n) * features + f;
          out.at(b, n, s, f) = literal.GetDouble(index);
        }
  return out;
}

Literal ToLiteral(const Array4& a) {
  Literal literal(Shape(PrimitiveType::kF32, a.d));
  for (size_t i = 0; i < a.x.size(); ++i) literal.SetDouble(static_cast<int64_t>(i), a.x[i]);
  return literal;
}

// [B, N, T, H] -> the operand layout of `c`.
Literal InLayout(const Case& c, const Array4& a) {
  if (c.bnth) return ToLiteral(a);
  Array4 out({a.d[0], a.d[2], a.d[1], a.d[3]});
  for (int64_t b = 0; b < a.d[0]; ++b)
    for (int64_t n = 0; n < a.d[1]; ++n)
      for (int64_t t = 0; t < a.d[2]; ++t)
        for (int64_t f = 0; f < a.d[3]; ++f) out.at(b, t, n, f) = a.at(b, n, t, f);
  return ToLiteral(out);
}

// Attention from its definition, in double.
struct Reference {
  Array4 o, stats_wide, dq, dk, dv;
  std::vector<double> stats;
  Array4 dbias;
  explicit Reference(const Case& c)
      : o({c.b, c.n, c.t, c.hv}), stats_wide({c.b, c.n, c.t, 1}), dq({c.b, c.n, c.t, c.h}), dk({c.b, c.nk, c.s, c.h}),
        dv({c.b, c.nk, c.s, c.hv}), dbias(c.bias.empty() ? std::vector<int64_t>{1, 1, 1, 1} : c.bias) {}
};

Reference Attend(const Case& c, const Array4& q, const Array4& k, const Array4& v, const Array4* bias,
                 const Array4* d_o) {
  Reference r(c);
  const int64_t group = c.n / c.nk;
  for (int64_t b = 0; b < c.b; ++b) {
    for (int64_t n = 0; n < c.n; ++n) {
      const int64_t kn = n / group;
      for (int64_t t = 0; t < c.t; ++t) {
        std::vector<double> logit(static_cast<size_t>(c.s)), p(static_cast<size_t>(c.s), 0.0);
        std::vector<bool> seen(static_cast<size_t>(c.s));
        double max = -std::numeric_limits<double>::infinity();
        for (int64_t s = 0; s < c.s; ++s) {
          bool ok = true;
          if (Causal(c) || c.window > 0) ok = ok && s <= t;
          if (c.window > 0) ok = ok && t - s < c.window;
          if (Padding(c)) ok = ok && t < c.q_len[b] && s < c.kv_len[b];
          seen[s] = ok;
          double dot = 0;
          for (int64_t i = 0; i < c.h; ++i) dot += q.at(b, n, t, i) * k.at(b, kn, s, i);
          logit[s] = c.scale * dot;
          if (bias != nullptr) {
            const Array4& bb = *bias;
            logit[s] += bb.at(bb.d[0] == 1 ? 0 : b, bb.d[1] == 1 ? 0 : n, bb.d[2] == 1 ? 0 : t, bb.d[3] == 1 ? 0 : s);
          }
          if (ok) max = std::max(max, logit[s]);
        }
        double sum = 0;
        for (int64_t s = 0; s < c.s; ++s) sum += seen[s] ? std::exp(logit[s] - max) : 0;
        for (int64_t s = 0; s < c.s; ++s) p[s] = seen[s] ? std::exp(logit[s] - max) / sum : 0;
        r.stats_wide.at(b, n, t, 0) = sum > 0 ? max + std::log(sum) : -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < c.hv; ++j) {
          double acc = 0;
          for (int64_t s = 0; s < c.s; ++s) acc += p[s] * v.at(b, kn, s, j);
          r.o.at(b, n, t, j) = acc;
        }
        if (d_o == nullptr) continue;
        const Array4& g = *d_o;
        double row = 0;
        for (int64_t j = 0; j < c.hv; ++j) row += g.at(b, n, t, j) * r.o.at(b, n, t, j);
        for (int64_t s = 0; s < c.s; ++s) {
          double dp = 0;
          for (int64_t j = 0; j < c.hv; ++j) {
            dp += g.at(b, n, t, j) * v.at(b, kn, s, j);
            r.dv.at(b, kn, s, j) += p[s] * g.at(b, n, t, j);
          }
          const double ds = p[s] * (dp - row);
          for (int64_t i = 0; i < c.h; ++i) {
            r.dq.at(b, n, t, i) += c.scale * ds * k.at(b, kn, s, i);
            r.dk.at(b, kn, s, i) += c.scale * ds * q.at(b, n, t, i);
          }
          if (bias != nullptr) {
            const std::vector<int64_t>& bd = c.bias;
            r.dbias.at(bd[0] == 1 ? 0 : b, bd[1] == 1 ? 0 : n, bd[2] == 1 ? 0 : t, bd[3] == 1 ? 0 : s) += ds;
          }
        }
      }
    }
  }
  return r;
}

// The case's arguments, and attention computed from them by the loops above.
struct Inputs {
  std::vector<Literal> forward, backward;
  Reference reference;
  explicit Inputs(const Case& c) : reference(c) {}
};

Inputs MakeInputs(const Case& c) {
  Inputs in(c);
  const Literal q = Filled(Shape(PrimitiveType::kF32, Operand(c, c.n, c.t, c.h)), 1);
  const Literal k = Filled(Shape(PrimitiveType::kF32, Operand(c, c.nk, c.s, c.h)), 2);
  const Literal v = Filled(Shape(PrimitiveType::kF32, Operand(c, c.nk, c.s, c.hv)), 3);
  const Literal d_o = Filled(Shape(PrimitiveType::kF32, Operand(c, c.n, c.t, c.hv)), 4);
  Array4 bias(c.bias.empty() ? std::vector<int64_t>{1, 1, 1, 1} : c.bias);
  Literal bias_literal;
  if (!c.bias.empty()) {
    bias_literal = Filled(Shape(PrimitiveType::kF32, c.bias), 5);
    for (size_t i = 0; i < bias.x.size(); ++i) bias.x[i] = bias_literal.GetDouble(static_cast<int64_t>(i));
  }
  const Array4 qc = Canonical(c, q, c.n, c.t, c.h), kc = Canonical(c, k, c.nk, c.s, c.h),
               vc = Canonical(c, v, c.nk, c.s, c.hv), gc = Canonical(c, d_o, c.n, c.t, c.hv);
  in.reference = Attend(c, qc, kc, vc, c.bias.empty() ? nullptr : &bias, &gc);
  Literal stats(Shape(PrimitiveType::kF32, {c.b, c.n, c.t}));
  for (size_t i = 0; i < in.reference.stats_wide.x.size(); ++i) {
    stats.SetDouble(static_cast<int64_t>(i), in.reference.stats_wide.x[i]);
  }
  in.forward = {q, k, v};
  in.backward = {q, k, v, stats, d_o};
  if (!c.bias.empty()) {
    in.forward.push_back(bias_literal);
    in.backward.push_back(bias_literal);
  }
  in.backward.push_back(InLayout(c, in.reference.o));
  if (Padding(c)) {
    for (std::vector<Literal>* args : {&in.forward, &in.backward}) {
      args->push_back(Lengths(c.q_len));
      args->push_back(Lengths(c.kv_len));
    }
  }
  return in;
}

// Largest |a - b| / (1 + |b|) over the elements (infinities equal when equal).
double Error(const Literal& got, const Array4& want) {
  double worst = 0;
  for (int64_t i = 0; i < got.element_count(); ++i) {
    const double a = got.GetDouble(i), b = want.x[static_cast<size_t>(i)];
    if (a == b) continue;
    worst = std::max(worst, std::isfinite(b) ? std::abs(a - b) / (1 + std::abs(b)) : 1e9);
  }
  return worst;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  cases.push_back({.name = "plain BTNH"});
  cases.push_back({.name = "plain BNTH", .bnth = true});
  cases.push_back({.name = "causal, more keys than queries", .t = 4, .s = 7, .mask = "CAUSAL"});
  cases.push_back({.name = "grouped heads, value features differ", .n = 4, .nk = 2, .h = 3, .hv = 5, .mask = "CAUSAL"});
  cases.push_back({.name = "bias over heads and positions", .bias = {1, 2, 5, 5}});
  cases.push_back({.name = "full bias, BNTH", .bnth = true, .bias = {2, 2, 5, 5}});
  cases.push_back({.name = "bias over keys only", .bias = {1, 1, 1, 5}});
  cases.push_back({.name = "padding", .t = 6, .s = 7, .mask = "PADDING", .q_len = {4, 6}, .kv_len = {7, 2}});
  cases.push_back({.name = "padding, causal, grouped, bias", .t = 6, .s = 6, .n = 4, .nk = 1, .mask = "PADDING_CAUSAL",
                   .bias = {1, 4, 6, 6}, .q_len = {6, 3}, .kv_len = {5, 6}});
  cases.push_back({.name = "sliding window", .t = 9, .s = 9, .mask = "CAUSAL", .window = 3});
  cases.push_back({.name = "a row with no key", .t = 3, .s = 4, .mask = "PADDING", .q_len = {3, 3}, .kv_len = {0, 4}});
  return cases;
}

TEST(FusedAttentionTest, InterpreterMatchesTheDefinition) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    Inputs in = MakeInputs(c);
    for (bool backward : {false, true}) {
      SCOPED_TRACE(backward ? "backward" : "forward");
      const std::string text = AttentionModule(c, backward);
      auto module = ParseModule(text);
      ASSERT_TRUE(module.ok()) << module.status().message() << "\n" << text;
      auto got = interpreter::Interpreter().Run(**module, backward ? in.backward : in.forward);
      ASSERT_TRUE(got.ok()) << got.status().message() << "\n" << text;
      const std::vector<Literal>& out = got->tuple_elements();
      const Reference& r = in.reference;
      if (!backward) {
        EXPECT_LT(Error(out[0], r.o), 2e-6) << "O";
        EXPECT_LT(Error(out[1], r.stats_wide), 2e-6) << "stats";
      } else {
        EXPECT_LT(Error(out[0], r.dq), 2e-6) << "dQ";
        EXPECT_LT(Error(out[1], r.dk), 2e-6) << "dK";
        EXPECT_LT(Error(out[2], r.dv), 2e-6) << "dV";
        if (!c.bias.empty()) {
          EXPECT_LT(Error(out[3], r.dbias), 2e-6) << "dbias";
        }
      }
      // The workspace is zeros.
      EXPECT_EQ(out.back().element_count(), 0);
    }
  }
}

TEST(FusedAttentionTest, BackendsMatchTheInterpreter) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    Inputs in = MakeInputs(c);
    for (bool backward : {false, true}) {
      SCOPED_TRACE(backward ? "backward" : "forward");
      auto module = ParseModule(AttentionModule(c, backward));
      ASSERT_TRUE(module.ok()) << module.status().message();
      const std::vector<Literal>& args = backward ? in.backward : in.forward;
      auto expected = interpreter::Interpreter().Run(**module, args);
      ASSERT_TRUE(expected.ok()) << expected.status().message();
      const auto tolerance = interpreter::DefaultToleranceFor(PrimitiveType::kF32);
      RunOnBothBackends(
          **module, args,
          [&](const Literal& got, const std::string& which) {
            interpreter::CompareResult cmp = interpreter::CompareLiterals(got, *expected, tolerance);
            EXPECT_TRUE(cmp.ok()) << which << ": " << cmp.ToString();
          },
          [](const Module& optimized, const std::string& which) {
            for (const auto& comp : optimized.computations()) {
              for (const auto& inst : comp->instructions()) {
                EXPECT_FALSE(IsFusedAttentionTarget(inst->attrs().custom_call_target)) << which << ": " << inst->name();
              }
            }
          });
    }
  }
}

// The description ParseLibraryCall gives: sizes, dimensions and operand numbers.
TEST(FusedAttentionTest, ParsesJaxsLayoutsAndOperands) {
  Case c{.name = "x", .t = 6, .s = 7, .n = 4, .nk = 2, .hv = 3, .mask = "PADDING_CAUSAL", .window = 2,
         .bias = {1, 4, 6, 7}, .q_len = {1, 2}, .kv_len = {1, 2}};
  for (bool backward : {false, true}) {
    auto module = ParseModule(AttentionModule(c, backward));
    ASSERT_TRUE(module.ok()) << module.status().message();
    auto call = ParseLibraryCall(*(*module)->entry()->root());
    ASSERT_TRUE(call.ok()) << call.status().message();
    EXPECT_EQ(call->kind, backward ? LibraryCallKind::kFusedAttentionBackward : LibraryCallKind::kFusedAttention);
    const FusedAttention& a = call->attention;
    EXPECT_EQ(a.batch, 2);
    EXPECT_EQ(a.heads, 4);
    EXPECT_EQ(a.kv_heads, 2);
    EXPECT_EQ(a.q_length, 6);
    EXPECT_EQ(a.kv_length, 7);
    EXPECT_EQ(a.qk_features, 4);
    EXPECT_EQ(a.v_features, 3);
    EXPECT_EQ(a.mask, AttentionMask::kPaddingCausal);
    EXPECT_EQ(a.sliding_window, 2);
    EXPECT_DOUBLE_EQ(a.scale, 0.5);
    // [B,T,N,H]: sequence at 1, heads at 2.
    EXPECT_EQ(a.q.sequence, 1);
    EXPECT_EQ(a.q.head, 2);
    EXPECT_EQ(a.v.feature, 3);
    EXPECT_EQ(a.bias, backward ? 5 : 3);
    EXPECT_EQ(a.q_seqlen, backward ? 7 : 4);
    EXPECT_EQ(a.kv_seqlen, backward ? 8 : 5);
    if (backward) {
      EXPECT_EQ(a.stats, 3);
      EXPECT_EQ(a.d_output, 4);
      EXPECT_EQ(a.output, 6);
      EXPECT_TRUE(a.writes_dbias);
      EXPECT_EQ(a.grad_output.sequence, 1);
    } else {
      EXPECT_TRUE(a.writes_stats);
    }
  }
}

// `fusebox run --seed` gives sequence lengths within the sequences, so that a random run
// of a padded attention has rows to compare (lengths from [-8, 8) left most rows empty).
TEST(FusedAttentionTest, RandomInputsKeepSequenceLengthsInRange) {
  Case c{.name = "x", .t = 6, .s = 9, .mask = "PADDING", .q_len = {1, 1}, .kv_len = {1, 1}};
  auto module = ParseModule(AttentionModule(c, false));
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto choices = interpreter::ExplainRandomArguments(**module);
  ASSERT_TRUE(choices.ok()) << choices.status().message();
  ASSERT_EQ(choices->size(), 5u);
  EXPECT_EQ((*choices)[3].distribution, "integers in [0, 7)");
  EXPECT_EQ((*choices)[3].reason, "query sequence lengths of %a");
  EXPECT_EQ((*choices)[4].distribution, "integers in [0, 10)");
  EXPECT_EQ((*choices)[4].reason, "key sequence lengths of %a");
  EXPECT_EQ((*choices)[0].distribution, "uniform [-1, 1)");
}

// What Fusebox cannot compute as cuDNN does is an error naming the call.
TEST(FusedAttentionTest, RefusesWhatItDoesNotModel) {
  Case c{.name = "x"};
  auto refused = [](const std::string& text) -> std::string {
    auto module = ParseModule(text);
    if (!module.ok()) return "parse: " + module.status().message();
    auto run = interpreter::Interpreter().Run(**module, [&] {
      std::vector<Literal> args;
      for (const Instruction* p : (*module)->entry()->parameters()) args.push_back(Filled(p->shape(), 1));
      return args;
    }());
    return run.ok() ? "ran" : run.status().message();
  };
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = AttentionModule(c, false);
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
  };
  EXPECT_EQ(refused(AttentionModule(c, false)), "ran");
  EXPECT_NE(refused(with("\"dropout_rate\": 0.0", "\"dropout_rate\": 0.1")).find("custom-call a (__cudnn$fmhaSoftmax): dropout"),
            std::string::npos);
  EXPECT_NE(refused(with("NO_MASK", "ALIBI")).find("mask_type ALIBI is not modelled"), std::string::npos);
  EXPECT_NE(refused(with("\"max_seg_per_batch\": 1", "\"max_seg_per_batch\": 2")).find("packed sequences"),
            std::string::npos);
  EXPECT_NE(refused(with("\"is_paged_attention\": false", "\"is_paged_attention\": true")).find("paged attention"),
            std::string::npos);
  EXPECT_NE(refused(with("\"is_flash_attention\": true", "\"is_flash_attention\": false")).find("pre-flash"),
            std::string::npos);
  EXPECT_NE(refused(with("__cudnn$fmhaSoftmax", "__cudnn$fmhaSoftmaxF8")).find("fp8"), std::string::npos);
  EXPECT_NE(refused(with("\"lhs_batch_dimensions\": [\"0\", \"2\"]", "\"lhs_batch_dimensions\": [\"0\", \"0\"]"))
                .find("bmm1 names dimensions [0,0]"),
            std::string::npos);
  EXPECT_NE(refused(with("\"mask_type\": \"NO_MASK\"", "\"mask_type\": \"PADDING\"")).find("has 3 operands; with mask PADDING it takes 5"),
            std::string::npos);
  EXPECT_NE(refused(with("\"cudnn_fmha_backend_config\"", "\"other\"")).find("has no cudnn_fmha_backend_config"),
            std::string::npos);
  EXPECT_NE(refused(with("\"sliding_window_length\": 0", "\"sliding_window_length\": \"x\"")).find("ran"),
            std::string::npos);  // a string that is not a number reads as absent: no window
  EXPECT_NE(refused(with("\"sliding_window_length\": 0", "\"sliding_window_length\": 2.5")).find("not a count"),
            std::string::npos);
  // Shapes that do not fit: k with 3 heads for q's 2, a result of the wrong size.
  Case odd{.name = "odd", .nk = 3};
  EXPECT_NE(refused(AttentionModule(odd, false)).find("not a multiple of k's 3"), std::string::npos);
  std::string wrong = AttentionModule(c, false);
  wrong.replace(wrong.find("ROOT a = (f32[2,2,5,4]"), 22, "ROOT a = (f32[2,2,5,3]");
  EXPECT_NE(refused(wrong).find("result element 0 must be the output [B,N,T,H]"), std::string::npos);
}

}  // namespace
}  // namespace fusebox
