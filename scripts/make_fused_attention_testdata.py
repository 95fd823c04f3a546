"""Writes tests/data/fused_attention/: jax's HLO of programs using cuDNN's fused attention
(`jax.nn.dot_product_attention(..., implementation="cudnn")`, which jax writes as
`__cudnn$fmha*` custom calls), with inputs and, as the expected outputs, what jax's own
XLA attention (`implementation="xla"`) computes from the same inputs on the CPU.

jax lowers the cuDNN form only for CUDA; the module is lowered for the "cuda" platform
without a GPU (`lowering_platforms=("cuda",)`), with jax's cuDNN version and compute
capability checks answered as a GPU with cuDNN 9.10 would: they only gate, the custom
calls jax writes do not depend on them.

Each case NAME gives NAME.hlo, NAME.inI.npy (one per parameter) and NAME.outI.npy (one per
output). Run from a virtual environment with jax (pinned 0.10.2 on the CPU):
    python scripts/make_fused_attention_testdata.py
"""
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax._src.cudnn import fused_attention_stablehlo as cudnn_attention

from hlo_cases import write_case

cudnn_attention.check_cudnn_version = lambda: 91000
cudnn_attention.check_compute_capability = lambda capability: True
cudnn_attention.is_cuda_compute_capability_equal = lambda capability: False

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "fused_attention")
rng = np.random.default_rng(7)


def normal(shape, dtype=jnp.bfloat16, scale=1.0):
    return jnp.asarray(rng.standard_normal(shape).astype(np.float32) * scale).astype(dtype)


def write(name, cudnn_fn, xla_fn, args):
    lowered = jax.jit(cudnn_fn).trace(*args).lower(lowering_platforms=("cuda",))
    text = lowered.as_text(dialect="hlo")
    assert "__cudnn$fmha" in text, name
    outputs = write_case(OUT, name, text, args, jax.jit(xla_fn)(*args))
    print(name, [tuple(a.shape) for a in args], "->", [tuple(o.shape) for o in outputs])


def with_gradients(attention):
    """(q, k, v, *rest, cotangent) -> (output, its vjp with the cotangent for q, k, v[, bias])."""
    def f(*args):
        *primals, seqlens, cotangent = args
        out, vjp = jax.vjp(lambda *p: attention(*p, *seqlens), *primals)
        return (out,) + vjp(cotangent)
    return f


def main():
    os.makedirs(OUT, exist_ok=True)
    # A causal forward pass, [B, T, N, H] (jax's layout).
    b, t, n, h = 2, 32, 4, 16
    args = (normal((b, t, n, h)), normal((b, t, n, h)), normal((b, t, n, h)))
    causal = lambda impl: lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation=impl)
    write("causal_forward", causal("cudnn"), causal("xla"), args)

    # A training step's attention: a bias broadcast over the batch, query and key lengths
    # (padding), causal, two key heads for four query heads; its gradients with a given
    # cotangent (the backward call, and dbias).
    b, t, s, n, nk, h = 2, 16, 16, 4, 2, 32
    q, k, v = normal((b, t, n, h)), normal((b, s, nk, h)), normal((b, s, nk, h))
    bias, cotangent = normal((1, n, t, s), scale=0.5), normal((b, t, n, h))
    q_len, kv_len = jnp.array([16, 11], jnp.int32), jnp.array([13, 16], jnp.int32)

    def padded(impl):
        return lambda q, k, v, bias, q_len, kv_len: jax.nn.dot_product_attention(
            q, k, v, bias=bias, is_causal=True, query_seq_lengths=q_len, key_value_seq_lengths=kv_len,
            implementation=impl)

    def train(impl):
        inner = with_gradients(padded(impl))
        return lambda q, k, v, bias, q_len, kv_len, ct: inner(q, k, v, bias, (q_len, kv_len), ct)
    write("bias_padding_gqa_train", train("cudnn"), train("xla"), (q, k, v, bias, q_len, kv_len, cotangent))

    # A sliding window (each query sees itself and the 5 keys before it), with gradients.
    b, t, n, h = 1, 24, 2, 16
    args = tuple(normal((b, t, n, h)) for _ in range(4))

    def window(impl):
        attention = lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True, local_window_size=(5, 0),
                                                                 implementation=impl)
        inner = with_gradients(attention)
        return lambda q, k, v, ct: inner(q, k, v, (), ct)
    write("sliding_window_train", window("cudnn"), window("xla"), args)

    # [B, N, T, H] operands (jax's BNTH layout of the cuDNN call), f16, scale 0.3. XLA's CPU
    # backend has no f16 x f16 -> f32 dot, so the reference runs in f32 and rounds to f16.
    b, n, t, h = 2, 2, 16, 8
    args = tuple(normal((b, n, t, h), jnp.float16) for _ in range(3))
    swap = lambda x: jnp.transpose(x, (0, 2, 1, 3))

    def bnth_xla(q, k, v):
        wide = lambda x: swap(x).astype(jnp.float32)
        out = jax.nn.dot_product_attention(wide(q), wide(k), wide(v), scale=0.3, implementation="xla")
        return swap(out).astype(jnp.float16)
    write("bnth_forward", lambda q, k, v: cudnn_attention.dot_product_attention(q, k, v, scale=0.3, qkv_layout="BNTH"),
          bnth_xla, args)


if __name__ == "__main__":
    main()
