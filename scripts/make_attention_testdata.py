"""Writes tests/data/library_calls/attention_fwd_bwd.hlo, gpt_block_fwd.hlo,
gpt_block_fwd_bwd.hlo and mlp_train_step.hlo: jax's HLO of multi-head attention
(compare_xla.py's `attention`) with its gradients, of a GPT block (`gpt_block`: layer norms,
attention, a GELU MLP) forward and with its gradients, and of compare_xla.py's relu MLP
training step, at a small size, for the GPU planner's tests of per-head dots on
[batch, seq, heads, head_dim] buffers, of the GELU epilogues (GELU_AUX in the training
step, whose backward pass reads the GELU's input) and of the RELU_BIAS epilogue in a
training step (whose relu gradient tests the pre-activation).

Run from a virtual environment with jax (pinned 0.10.2 on the CPU):
    python scripts/make_attention_testdata.py
"""
import os
import sys

import jax

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench", "compare_xla"))
import compare_xla as cx  # noqa: E402

b, s, d, heads = 2, 8, 8, 2
mha_args = cx.rng_inputs(9, [((b, s, d), "f")] + [((d, d), "f")] * 4)
block_args = cx.rng_inputs(10, [((b, s, d), "f"), ((d,), "one"), ((d,), "f")] + [((d, d), "f")] * 4 +
                           [((d,), "one"), ((d,), "f"), ((d, 4 * d), "f"), ((4 * d,), "f"), ((4 * d, d), "f"),
                            ((d,), "f")])
mlp_args = cx.rng_inputs(6, [((24, 16), "f"), ((16,), "f"), ((16, 16), "f"), ((16,), "f"), ((16, 10), "f"),
                             ((10,), "f"), ((8, 24), "f"), ((8, 10), "labels")])
modules = {
    "attention_fwd_bwd.hlo": (cx.fwd_bwd(lambda *a: cx.attention(*a, heads=heads, causal=False)), mha_args),
    "gpt_block_fwd.hlo": (lambda *a: cx.gpt_block(*a, heads=heads, causal=False), block_args),
    "gpt_block_fwd_bwd.hlo": (cx.fwd_bwd(lambda *a: cx.gpt_block(*a, heads=heads, causal=False)), block_args),
    "mlp_train_step.hlo": (lambda *a: cx.mlp_train_step(tuple(a[:6]), a[6], a[7]), mlp_args),
}
for name, (fn, args) in modules.items():
    text = jax.jit(fn).lower(*args).as_text(dialect="hlo")
    out = os.path.join(HERE, "..", "tests", "data", "library_calls", name)
    with open(out, "w") as f:
        f.write(text)
    print(out, len(text), "bytes")
