"""Writes tests/data/library_calls/attention_fwd_bwd.hlo: jax's HLO of multi-head attention
(compare_xla.py's `attention`) and its gradients at a small size, for the GPU planner's
tests of per-head dots on [batch, seq, heads, head_dim] buffers.

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
args = cx.rng_inputs(9, [((b, s, d), "f")] + [((d, d), "f")] * 4)
fn = cx.fwd_bwd(lambda *a: cx.attention(*a, heads=heads, causal=False))
text = jax.jit(fn).lower(*args).as_text(dialect="hlo")
out = os.path.join(HERE, "..", "tests", "data", "library_calls", "attention_fwd_bwd.hlo")
with open(out, "w") as f:
    f.write(text)
print(out, len(text), "bytes")
