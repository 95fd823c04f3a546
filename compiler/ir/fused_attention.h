// cuDNN's fused attention as XLA's GPU HLO calls it. jax's `dot_product_attention(...,
// implementation="cudnn")` (and XLA's own fused-MHA rewriter) write custom calls
//
//   __cudnn$fmhaSoftmax, __cudnn$fmhaScaleBiasSoftmax                    forward
//   __cudnn$fmhaSoftmaxBackward, __cudnn$fmhaScaleBiasSoftmaxBackward    backward
//
// whose meaning is in `cudnn_fmha_backend_config`: the scale, the mask (NO_MASK, CAUSAL,
// PADDING, PADDING_CAUSAL), a sliding window, and the dot dimension numbers of the two
// products, which say where batch, head, sequence and feature are in q, k, v (jax's BTNH
// or BNTH). With L = scale * q.k^T (+ bias), the keys a query may see (mask) and
// P = softmax(L) over them:
//
//   forward   (q, k, v[, bias][, q_seqlen, kv_seqlen])
//             -> (O = P.v [B,N,T,H], [stats = logsumexp(L) f32[B,N,T]], workspace)
//   backward  (q, k, v, stats, dO[, bias], O[, q_seqlen, kv_seqlen])
//             -> (dQ [B,N,T,H], dK [B,Nk,S,H], dV [B,Nk,S,H], [dbias], workspace)
//
// The backward recomputes P from the stats, as cuDNN does. k and v may have fewer heads
// than q (grouped-query attention: query head n reads key head n / (N / Nk)). A query row
// with no key to see (past q_seqlen, or all keys past kv_seqlen) is zero in O, dQ and in
// what it adds to dK and dV. Dropout (cuDNN's own random stream), fp8, ALiBi, packed
// sequences (max_seg_per_batch > 1) and paged attention are refused by name.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "compiler/ir/instruction.h"
#include "compiler/ir/plain_hlo_builder.h"
#include "compiler/support/status.h"

namespace fusebox {

enum class AttentionMask { kNone, kCausal, kPadding, kPaddingCausal };

// Where an operand's batch, head, sequence and feature dimensions are.
struct AttentionDims {
  int64_t batch = 0, head = 1, sequence = 2, feature = 3;
  std::array<int64_t, 4> AsArray() const { return {batch, head, sequence, feature}; }
};

struct FusedAttention {
  bool backward = false;
  bool has_bias = false;
  double scale = 1;
  AttentionMask mask = AttentionMask::kNone;
  int64_t sliding_window = 0;  // > 0: query t sees key s only when t - window < s <= t
  int64_t batch = 0, heads = 0, kv_heads = 0, q_length = 0, kv_length = 0, qk_features = 0, v_features = 0;
  AttentionDims q, k, v;
  AttentionDims grad_output;  // backward: dO and O
  // Operand numbers (-1: none).
  int64_t bias = -1, q_seqlen = -1, kv_seqlen = -1, stats = -1, d_output = -1, output = -1;
  // Forward: result element 1 is the softmax statistics (flash attention, training), or
  // the probabilities themselves [B,N,T,S] (the pre-flash form), or neither.
  bool writes_stats = false, writes_probabilities = false;
  // Backward: result element 3 is dbias.
  bool writes_dbias = false;
};

// True for every __cudnn$fmha* target (the ones refused included).
bool IsFusedAttentionTarget(std::string_view target);
bool IsFusedAttentionBackwardTarget(std::string_view target);

// Reads the call; errors name it and what in it is not understood or not modelled.
StatusOr<FusedAttention> ParseFusedAttention(const Instruction& call);

// Writes what the call computes from `params` (its operands, in order), returning the
// elements of its result in order (workspace bytes as zeros), each of the call's element
// shape without its layout.
std::vector<Instruction*> EmitFusedAttention(const Instruction& call, const FusedAttention& attention,
                                             library_call_internal::PlainHloBuilder& b,
                                             const std::vector<Instruction*>& params);

}  // namespace fusebox
