#!/usr/bin/env python3
"""A survey of sharded jax programs, for measuring Fusebox's partitioner against XLA's.

Each program is jitted with its input shardings on 8 host CPU devices (a 2x4 mesh
('data', 'model') or an 8-device mesh 'x'); XLA compiles and runs it. Written per program:
  OUT/NAME/module.hlo       what jax gave XLA (before optimizations)
  OUT/NAME/partitioned.hlo  XLA's optimized per-device module
  OUT/NAME/in<i>.npy        global inputs;  OUT/NAME/out<i>.npy  XLA's global outputs
  OUT/NAME/n                "<inputs> <outputs>"
Called once per program in a fresh process (XLA reads XLA_FLAGS once), by
scripts/survey_multidevice.sh, which runs Fusebox over the results.
  survey_multidevice.py list x        print the program names
  survey_multidevice.py NAME OUT      run one
Not test data: the committed programs are scripts/make_multidevice_dumps.py's.
"""
import os, sys, glob, shutil, tempfile, re
NAME = sys.argv[1]; OUT = sys.argv[2]
dump = tempfile.mkdtemp(prefix="mdsurv-")
os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count=8 --xla_dump_to={dump} --xla_dump_hlo_as_text"
os.environ["JAX_PLATFORMS"] = "cpu"
import numpy as np, jax, jax.numpy as jnp
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from jax.experimental.shard_map import shard_map
r = np.random.default_rng(1)
def f32(*s): return r.standard_normal(s).astype(np.float32)
mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
mesh8 = Mesh(np.array(jax.devices()), ("x",))
def S(*spec, m=mesh): return NamedSharding(m, P(*spec))
progs = {}
def prog(name, args, ins, outs=None, m=None):
    def deco(fn): progs[name] = (fn, args, ins, outs); return fn
    return deco

@prog("attn", [f32(4, 16, 32), f32(32, 96), f32(32, 32)], [S("data", None, None), S(None, "model"), S("model", None)])
def attn(x, wqkv, wo):
    q, k, v = jnp.split(x @ wqkv, 3, -1)
    sp = lambda t: t.reshape(4, 16, 4, 8)
    o = jax.nn.dot_product_attention(sp(q), sp(k), sp(v), is_causal=True).reshape(4, 16, 32)
    return o @ wo
@prog("mlp_grad", [f32(8, 32), f32(32, 128), f32(128, 32)], [S("data", None), S(None, "model"), S("model", None)])
def mlp_grad(x, w1, w2): return jax.grad(lambda w1, w2: (jax.nn.gelu(x @ w1) @ w2).var(), argnums=(0, 1))(w1, w2)
@prog("conv_dp_grad", [f32(8, 8, 8, 3), f32(3, 3, 3, 8)], [S(("data", "model")), S()])
def conv_dp_grad(x, w): return jax.grad(lambda w: jnp.tanh(lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))).mean())(w)
@prog("embed_vocab", [f32(64, 16), np.array([[1, 63, 17, 40], [0, 33, 33, 9]], np.int32)], [S("model", None), S("data", None)])
def embed_vocab(e, ids): return jnp.take(e, ids, axis=0)
@prog("layernorm_hidden", [f32(8, 64), f32(64)], [S("data", "model"), S("model")])
def layernorm_hidden(x, g):
    m = x.mean(-1, keepdims=True); v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5) * g
@prog("xent_vocab", [f32(8, 64), np.arange(8, dtype=np.int32) * 7], [S("data", "model"), S("data")])
def xent_vocab(l, y): return jax.value_and_grad(lambda l: -jnp.take_along_axis(jax.nn.log_softmax(l), y[:, None], 1).mean())(l)
@prog("rnn_scan", [f32(10, 8, 16), f32(16, 16)], [S(None, "data", None), S()])
def rnn_scan(xs, w): return lax.scan(lambda h, x: (jnp.tanh(h @ w + x), h.sum(-1)), jnp.zeros((8, 16)), xs)
@prog("topk_sharded", [f32(8, 64)], [S("data", "model")])
def topk_sharded(x): return lax.top_k(x, 4), jnp.sort(x, axis=1)
@prog("cumsum_sharded", [f32(8, 64)], [S("data", "model")])
def cumsum_sharded(x): return jnp.cumsum(x, 1)
@prog("reshape_transpose", [f32(8, 16, 4)], [S("data", "model", None)])
def reshape_transpose(x): return x.reshape(128, 4).T * 2, jnp.transpose(x, (2, 0, 1)) + 1
@prog("kv_update", [f32(4, 32, 8), f32(4, 1, 8), np.int32(5)], [S("data", None, "model"), S("data", None, "model"), S()])
def kv_update(c, n, i): return lax.dynamic_update_slice_in_dim(c, n, i, 1), lax.dynamic_slice_in_dim(c, i, 4, 1)
@prog("concat_pad", [f32(8, 12), f32(8, 4)], [S("model", None), S("model", None)])
def concat_pad(a, b): return jnp.concatenate([a, b], 1), jnp.pad(a, ((1, 3), (0, 0))), jnp.roll(a, 3, 0)
@prog("matmul_2d", [f32(32, 64), f32(64, 16)], [S("data", "model"), S("model", "data")])
def matmul_2d(a, b): return a @ b
@prog("maxpool_spatial", [f32(2, 16, 16, 4)], [S(None, ("data", "model"), None, None)])
def maxpool_spatial(x): return jax.grad(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME").sum())(x)
@prog("conv_spatial", [f32(2, 16, 16, 4), f32(3, 3, 4, 8)], [S(None, "model", None, None), S()])
def conv_spatial(x, w): return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
@prog("fft_batch", [f32(8, 64)], [S(("data", "model"), None)])
def fft_batch(x): return jnp.abs(jnp.fft.rfft(x))
@prog("fft_sharded_axis", [f32(8, 64)], [S(None, ("data", "model"))])
def fft_sharded_axis(x): return jnp.abs(jnp.fft.rfft(x))
@prog("gather_along", [f32(8, 32), np.array(r.integers(0, 32, (8, 5)), np.int32)], [S("data", "model"), S("data", None)])
def gather_along(x, i): return jnp.take_along_axis(x, i, 1), x.at[jnp.arange(8)[:, None], i].add(1.0)
@prog("fsdp_adam", [f32(32, 32), f32(32, 32), f32(32, 32), f32(16, 32)], [S(("data", "model")), S(("data", "model")), S(("data", "model")), S("data")])
def fsdp_adam(p, m, v, x):
    g = jax.grad(lambda p: jnp.tanh(x @ p).var())(p)
    m = 0.9 * m + 0.1 * g; v = 0.99 * v + 0.01 * g * g
    return p - 1e-2 * m / (jnp.sqrt(v) + 1e-8), m, v
@prog("einsum_batch", [f32(4, 8, 16), f32(4, 16, 8)], [S("data", "model", None), S("data", None, "model")])
def einsum_batch(a, b): return jnp.einsum("bij,bjk->bik", a, b)
@prog("argmax_sharded", [f32(8, 64)], [S("data", "model")])
def argmax_sharded(x): return jnp.argmax(x, 1), jnp.max(x, 0)
@prog("sm_ring", [f32(32, 8)], [S("x", None, m=mesh8)])
def sm_ring(x):
    def local(x):
        def body(i, c):
            acc, blk = c
            blk = lax.ppermute(blk, "x", [(j, (j + 1) % 8) for j in range(8)])
            return acc + jnp.tanh(blk), blk
        return lax.fori_loop(0, 7, body, (x, x))[0]
    return shard_map(local, mesh=mesh8, in_specs=P("x"), out_specs=P("x"))(x)
@prog("sm_moe_a2a", [f32(64, 8)], [S("x", None, m=mesh8)])
def sm_moe_a2a(x):
    def local(x):  # [8, 8] per device
        y = lax.all_to_all(x, "x", 0, 0, tiled=True)
        y = jnp.tanh(y * (lax.axis_index("x") + 1))
        return lax.all_to_all(y, "x", 0, 0, tiled=True)
    return shard_map(local, mesh=mesh8, in_specs=P("x"), out_specs=P("x"))(x)
@prog("sm_scatter_gather", [f32(64, 8)], [S("x", None, m=mesh8)])
def sm_scatter_gather(x):
    def local(x):
        s = lax.psum_scatter(x, "x", scatter_dimension=0, tiled=True)
        return lax.all_gather(s * 2, "x", axis=0, tiled=True), lax.pmax(x, "x"), lax.pmean(x.sum(), "x")[None]
    return shard_map(local, mesh=mesh8, in_specs=P("x"), out_specs=(P("x"), P("x"), P("x")))(x)
@prog("sm_2d_axes", [f32(8, 16)], [S("data", "model")])
def sm_2d_axes(x):
    def local(x): return lax.psum(x, "model") + lax.psum(x.sum(), ("data", "model")), lax.all_gather(x, "data", axis=1, tiled=True)
    return shard_map(local, mesh=mesh, in_specs=P("data", "model"), out_specs=(P("data", "model"), P(None, "model")), check_rep=False)(x)
@prog("sort_sharded_dim", [f32(64)], [S(("data", "model"))])
def sort_sharded_dim(x): return jnp.sort(x), jnp.argsort(x)
@prog("while_sharded", [f32(8, 16)], [S("data", "model")])
def while_sharded(x): return lax.while_loop(lambda c: c[1] < 5, lambda c: (jnp.tanh(c[0] @ jnp.ones((16, 16)) / 16 + x), c[1] + 1), (x, 0))[0]

def bf16(*s): return f32(*s).astype(jnp.bfloat16)

def ln(x, g): 
    m = x.mean(-1, keepdims=True); v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5) * g

# Megatron transformer block: heads split over 'model', batch over 'data'
@prog("tblock", [f32(4, 16, 32), f32(32), f32(32, 3, 4, 8), f32(4, 8, 32), f32(32), f32(32, 128), f32(128, 32)],
      [S("data"), S(), S(None, None, "model", None), S("model", None, None), S(), S(None, "model"), S("model", None)])
def tblock(x, g1, wqkv, wo, g2, w1, w2):
    h = ln(x, g1)
    q, k, v = [jnp.einsum("bsd,dhk->bshk", h, wqkv[:, i]) for i in range(3)]
    o = jax.nn.dot_product_attention(q, k, v, is_causal=True)
    x = x + jnp.einsum("bshk,hkd->bsd", o, wo)
    return x + jax.nn.gelu(ln(x, g2) @ w1) @ w2

@prog("tblock_grad", [f32(4, 16, 32), f32(32, 4, 8), f32(4, 8, 32), f32(32, 64), f32(64, 32)],
      [S("data"), S(None, "model", None), S("model", None, None), S(None, "model"), S("model", None)])
def tblock_grad(x, wq, wo, w1, w2):
    def loss(ps):
        wq, wo, w1, w2 = ps
        q = jnp.einsum("bsd,dhk->bshk", x, wq)
        a = jax.nn.softmax(jnp.einsum("bshk,bthk->bhst", q, q) / 3.0, -1)
        o = jnp.einsum("bhst,bthk->bshk", a, q)
        y = x + jnp.einsum("bshk,hkd->bsd", o, wo)
        return (jax.nn.relu(y @ w1) @ w2).var()
    return jax.grad(loss)((wq, wo, w1, w2))

# GPT-ish with stacked layers scanned
@prog("scan_layers", [f32(8, 32), f32(3, 32, 64), f32(3, 64, 32)], [S("data"), S(None, None, "model"), S(None, "model", None)])
def scan_layers(x, w1s, w2s):
    def layer(h, w): return h + jnp.tanh(h @ w[0]) @ w[1], None
    return lax.scan(layer, x, (w1s, w2s))[0]

@prog("scan_layers_grad", [f32(8, 32), f32(3, 32, 64), f32(3, 64, 32)], [S("data"), S(None, None, "model"), S(None, "model", None)])
def scan_layers_grad(x, w1s, w2s):
    def f(w1s, w2s):
        def layer(h, w): return h + jnp.tanh(h @ w[0]) @ w[1], None
        return lax.scan(layer, x, (w1s, w2s))[0].sum()
    return jax.grad(f, argnums=(0, 1))(w1s, w2s)

@prog("remat_mlp", [f32(16, 32), f32(32, 64), f32(64, 32)], [S(("data", "model")), S(), S()])
def remat_mlp(x, w1, w2):
    f = jax.checkpoint(lambda x, w1, w2: jnp.tanh(x @ w1) @ w2)
    return jax.grad(lambda w1, w2: f(x, w1, w2).mean(), argnums=(0, 1))(w1, w2)

# MoE with einsum dispatch, experts split over model
@prog("moe_einsum", [f32(16, 32), f32(32, 4), f32(4, 32, 64), f32(4, 64, 32)], [S("data"), S(), S("model"), S("model")])
def moe_einsum(x, wg, w1, w2):
    gates = jax.nn.softmax(x @ wg, -1)
    top = jax.nn.one_hot(jnp.argmax(gates, -1), 4) * gates
    h = jax.nn.relu(jnp.einsum("td,edf->etf", x, w1))
    y = jnp.einsum("etf,efd->etd", h, w2)
    return jnp.einsum("etd,te->td", y, top)

# ResNet block, batch over all devices, batch norm stats across devices
@prog("resblock_bn", [f32(8, 8, 8, 8), f32(3, 3, 8, 8), f32(3, 3, 8, 8), f32(8), f32(8)], [S(("data", "model")), S(), S(), S(), S()])
def resblock_bn(x, w1, w2, g, b):
    def bn(y):
        m = y.mean((0, 1, 2)); v = y.var((0, 1, 2))
        return (y - m) * lax.rsqrt(v + 1e-5) * g + b
    c = lambda y, w: lax.conv_general_dilated(y, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jax.nn.relu(x + bn(c(jax.nn.relu(bn(c(x, w1))), w2)))

@prog("resblock_grad", [f32(8, 8, 8, 4), f32(3, 3, 4, 4), f32(4)], [S(("data", "model")), S(), S()])
def resblock_grad(x, w, g):
    def loss(w, g):
        y = lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        m = y.mean((0, 1, 2)); v = y.var((0, 1, 2))
        y = (y - m) * lax.rsqrt(v + 1e-5) * g
        return lax.reduce_window(jax.nn.relu(y), -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID").mean()
    return jax.grad(loss, argnums=(0, 1))(w, g)

@prog("conv_channels", [f32(2, 8, 8, 8), f32(3, 3, 8, 16)], [S("data"), S(None, None, None, "model")])
def conv_channels(x, w): return lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

@prog("conv_in_channels", [f32(2, 8, 8, 8), f32(3, 3, 8, 16)], [S("data", None, None, "model"), S(None, None, "model", None)])
def conv_in_channels(x, w): return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

@prog("depthwise_conv", [f32(2, 16, 16, 8), f32(3, 3, 1, 8)], [S("data", None, None, "model"), S(None, None, None, "model")])
def depthwise_conv(x, w): return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=8)

@prog("causal_conv1d", [f32(4, 32, 8), f32(4, 1, 8)], [S("data", "model", None), S()])
def causal_conv1d(x, w):
    return lax.conv_general_dilated(x, w, (1,), [(3, 0)], dimension_numbers=("NWC", "WIO", "NWC"), feature_group_count=8)

@prog("bf16_mlp", [bf16(16, 32), bf16(32, 64), bf16(64, 32)], [S("data"), S(None, "model"), S("model", None)])
def bf16_mlp(x, w1, w2): return (jax.nn.gelu(x @ w1) @ w2).astype(jnp.float32)

@prog("int8_matmul", [np.array(r.integers(-100, 100, (16, 32)), np.int8), np.array(r.integers(-100, 100, (32, 16)), np.int8), f32(16)],
      [S("data", "model"), S("model", None), S()])
def int8_matmul(a, b, s): return lax.dot(a, b, preferred_element_type=jnp.int32).astype(jnp.float32) * s

@prog("ring_attention", [f32(32, 8), f32(32, 8), f32(32, 8)], [S("x", None, m=mesh8)] * 3)
def ring_attention(q, k, v):
    def local(q, k, v):
        def body(i, c):
            m, l, o, k, v = c
            s = q @ k.T
            mn = jnp.maximum(m, s.max(-1))
            p = jnp.exp(s - mn[:, None])
            l = l * jnp.exp(m - mn) + p.sum(-1)
            o = o * jnp.exp(m - mn)[:, None] + p @ v
            perm = [(j, (j + 1) % 8) for j in range(8)]
            return mn, l, o, lax.ppermute(k, "x", perm), lax.ppermute(v, "x", perm)
        m, l, o, _, _ = lax.fori_loop(0, 8, body, (q[:, 0] * 0 - jnp.inf, q[:, 0] * 0, q * 0, k, v))
        return o / l[:, None]
    return shard_map(local, mesh=mesh8, in_specs=(P("x"),) * 3, out_specs=P("x"))(q, k, v)

@prog("pipeline_ppermute", [f32(8, 4, 16), f32(8, 16, 16)], [S("x", m=mesh8), S("x", m=mesh8)])
def pipeline_ppermute(x, w):
    def local(x, w):  # x [1,4,16] microbatch per stage, w [1,16,16]
        def step(c, _):
            h = jnp.tanh(c @ w[0])
            return lax.ppermute(h, "x", [(j, (j + 1) % 8) for j in range(8)]), h.sum()
        return lax.scan(step, x, None, length=8)
    return shard_map(local, mesh=mesh8, in_specs=(P("x"), P("x")), out_specs=(P("x"), P("x")))(x, w)

@prog("dp_tp_train", [f32(8, 32), np.arange(8, dtype=np.int32) % 10, f32(32, 64), f32(64, 10)],
      [S("data"), S("data"), S(None, "model"), S("model", None)])
def dp_tp_train(x, y, w1, w2):
    def loss(w1, w2):
        l = jax.nn.relu(x @ w1) @ w2
        return -jnp.take_along_axis(jax.nn.log_softmax(l), y[:, None], 1).mean()
    g1, g2 = jax.grad(loss, argnums=(0, 1))(w1, w2)
    return w1 - 0.1 * g1, w2 - 0.1 * g2

@prog("sharding_constraint", [f32(16, 32), f32(32, 32)], [S("data"), S()])
def sharding_constraint(x, w):
    h = jax.lax.with_sharding_constraint(x @ w, S(None, "model"))
    h = jnp.tanh(h)
    return jax.lax.with_sharding_constraint(h @ w.T, S(("data", "model")))

@prog("rng_dropout", [f32(16, 32), np.array([0, 42], np.uint32)], [S("data", "model"), S()])
def rng_dropout(x, key):
    k = jax.random.wrap_key_data(key)
    keep = jax.random.bernoulli(k, 0.8, x.shape)
    return jnp.where(keep, x / 0.8, 0)

@prog("cholesky_batch", [f32(8, 6, 6)], [S(("data", "model"))])
def cholesky_batch(a): return jnp.linalg.cholesky(a @ a.transpose(0, 2, 1) + 6 * jnp.eye(6))

@prog("vocab_embed_tied", [f32(64, 16), np.array(r.integers(0, 64, (8, 4)), np.int32)], [S("model", None), S("data", None)])
def vocab_embed_tied(e, ids):
    h = jnp.tanh(jnp.take(e, ids, axis=0))
    return jax.nn.log_softmax(h @ e.T, -1)

@prog("layer_norm_grad_seq", [f32(4, 16, 32), f32(32)], [S("data", "model", None), S()])
def layer_norm_grad_seq(x, g): return jax.grad(lambda x, g: (ln(x, g) ** 2).sum(), argnums=(0, 1))(x, g)

@prog("gather_rows_sharded_idx", [f32(32, 16), np.array(r.integers(0, 32, (64,)), np.int32)], [S(), S(("data", "model"))])
def gather_rows_sharded_idx(t, i): return t[i] * 2, jnp.zeros((32, 16)).at[i].add(1.0)

@prog("mean_over_mesh", [f32(8, 16, 4)], [S("data", "model", None)])
def mean_over_mesh(x): return x.mean(), x.std((0, 1)), jnp.median(x, 2)

@prog("iota_where", [f32(16, 16)], [S("data", "model")])
def iota_where(x): return jnp.where(jnp.tril(jnp.ones((16, 16), bool)), x, -1e9).max(0), jnp.triu(x, 1).sum(1)

@prog("outer_product", [f32(16), f32(32)], [S("data"), S("model")])
def outer_product(a, b): return jnp.outer(a, b), jnp.kron(a[:4], b[:8])

@prog("linalg_solve", [f32(8, 5, 5), f32(8, 5, 2)], [S(("data", "model")), S(("data", "model"))])
def linalg_solve(a, b): return jnp.linalg.solve(a + 5 * jnp.eye(5), b), jnp.linalg.inv(a + 5 * jnp.eye(5))
@prog("linalg_qr_eigh", [f32(8, 6, 4), f32(8, 4, 4)], [S(("data", "model")), S(("data", "model"))])
def linalg_qr_eigh(a, s):
    q, r_ = jnp.linalg.qr(a)
    w, v = jnp.linalg.eigh(s + s.transpose(0, 2, 1))
    return q, r_, w, jnp.abs(v)
@prog("linalg_svd", [f32(8, 5, 3)], [S("data")])
def linalg_svd(a): return jnp.linalg.svd(a, compute_uv=False)
@prog("tri_solve", [f32(8, 4, 4), f32(8, 4, 3)], [S(("data", "model")), S(("data", "model"))])
def tri_solve(a, b): return jax.scipy.linalg.solve_triangular(jnp.tril(a) + 4 * jnp.eye(4), b, lower=True)
@prog("depthwise_grad", [f32(4, 8, 8, 8), f32(3, 3, 1, 8)], [S("data", None, None, "model"), S(None, None, None, "model")])
def depthwise_grad(x, w):
    f = lambda x, w: (lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=8) ** 2).sum()
    return jax.grad(f, argnums=(0, 1))(x, w)
@prog("depthwise_grad_batch", [f32(8, 8, 8, 4), f32(3, 3, 1, 4)], [S(("data", "model")), S()])
def depthwise_grad_batch(x, w):
    f = lambda w: jnp.tanh(lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=4)).mean()
    return jax.grad(f)(w)
@prog("strided_conv_spatial", [f32(2, 16, 16, 4), f32(3, 3, 4, 8)], [S(None, "model", None, None), S()])
def strided_conv_spatial(x, w): return lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
@prog("conv_transpose_spatial", [f32(2, 8, 8, 4), f32(3, 3, 4, 4)], [S(None, "model", None, None), S()])
def conv_transpose_spatial(x, w): return lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
@prog("avgpool_spatial", [f32(2, 16, 16, 4)], [S(None, "model", None, None)])
def avgpool_spatial(x): return lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4
@prog("segment_sum", [f32(64, 8), np.array(r.integers(0, 10, (64,)), np.int32)], [S(("data", "model")), S(("data", "model"))])
def segment_sum(x, seg): return jax.ops.segment_sum(x, seg, num_segments=10), jax.ops.segment_max(x, seg, num_segments=10)
@prog("cond_sharded", [f32(8, 16), np.int32(1)], [S("data", "model"), S()])
def cond_sharded(x, p): return lax.cond(p > 0, lambda x: jnp.tanh(x) @ jnp.ones((16, 16)), lambda x: x * 2, x)
@prog("einsum_2contract", [f32(8, 4, 16), f32(4, 16, 32)], [S("data", "model", None), S("model", None, None)])
def einsum_2contract(a, b): return jnp.einsum("bhd,hdk->bk", a, b)
@prog("kv_cache_seq_split", [f32(2, 32, 8), f32(2, 1, 8), np.int32(13)], [S(None, "model", None), S(), S()])
def kv_cache_seq_split(c, n, i):
    c = lax.dynamic_update_slice_in_dim(c, n, i, 1)
    return c, jax.nn.softmax(jnp.einsum("bsd,btd->bst", n, c), -1)
@prog("assoc_scan_split", [f32(8, 64)], [S("data", "model")])
def assoc_scan_split(x): return lax.associative_scan(jnp.add, x, axis=1), lax.cummax(x, axis=1)
@prog("topk_batch", [f32(16, 64)], [S(("data", "model"))])
def topk_batch(x): return lax.top_k(x, 5)
@prog("attention_mask_bias", [f32(4, 16, 4, 8), f32(4, 16, 4, 8), f32(4, 16, 4, 8), f32(4, 4, 16, 16)],
      [S("data", None, "model", None)] * 3 + [S("data", "model", None, None)])
def attention_mask_bias(q, k, v, b): return jax.nn.dot_product_attention(q, k, v, bias=b, is_causal=True)
@prog("vmap_matmul_mixed", [f32(8, 16, 32), f32(32, 24)], [S("data", None, "model"), S("model", None)])
def vmap_matmul_mixed(x, w): return jax.vmap(lambda x: jnp.tanh(x @ w))(x)
@prog("reverse_split", [f32(8, 32)], [S("data", "model")])
def reverse_split(x): return x[:, ::-1], jnp.flip(x, 0) * 2
@prog("iota_onehot_vocab", [np.array(r.integers(0, 64, (16,)), np.int32), f32(64, 8)], [S("data"), S("model", None)])
def iota_onehot_vocab(ids, e): return jax.nn.one_hot(ids, 64) @ e
@prog("bitcast_reduce_precision", [f32(16, 16)], [S("data", "model")])
def bitcast_reduce_precision(x):
    return lax.bitcast_convert_type(x, jnp.int32) >> 3, lax.reduce_precision(x, 5, 10), x.astype(jnp.bfloat16).astype(jnp.float32)
@prog("batchnorm_channels_split", [f32(8, 4, 4, 16), f32(16), f32(16)], [S("data", None, None, "model"), S("model"), S("model")])
def batchnorm_channels_split(x, g, b):
    m = x.mean((0, 1, 2)); v = x.var((0, 1, 2))
    return (x - m) * lax.rsqrt(v + 1e-5) * g + b
@prog("clip_grad_norm", [f32(32, 32), f32(32)], [S("data", "model"), S("model")])
def clip_grad_norm(g, h):
    n = jnp.sqrt((g ** 2).sum() + (h ** 2).sum())
    s = jnp.minimum(1.0, 1.0 / n)
    return g * s, h * s
@prog("dyn_slice_split", [f32(32, 16), np.int32(11)], [S(("data", "model"), None), S()])
def dyn_slice_split(x, i): return lax.dynamic_slice_in_dim(x, i, 4, 0) * 2, x[i] + 1
@prog("kv_read_seq_split", [f32(2, 64, 8), f32(2, 1, 8), np.int32(37)], [S(None, ("data", "model"), None), S(), S()])
def kv_read_seq_split(c, q, i):
    w = lax.dynamic_slice_in_dim(c, i - 8, 16, 1)
    return jax.nn.softmax(jnp.einsum("bsd,btd->bst", q, w), -1)
@prog("dyn_slice_2d_split", [f32(16, 32), np.int32(3), np.int32(21)], [S("data", "model"), S(), S()])
def dyn_slice_2d_split(x, i, j): return lax.dynamic_slice(x, (i, j), (5, 6))
@prog("scan_over_split", [f32(16, 8, 8), f32(8, 8)], [S(("data", "model"), None, None), S()])
def scan_over_split(xs, h): return lax.scan(lambda h, x: (jnp.tanh(h @ x), h.sum()), h, xs)

@prog("uneven_constraint", [f32(16, 16)], [S("model", None)])
def uneven_constraint(x):
    y = lax.with_sharding_constraint(x[:10] * 2, S("model", None))
    return jnp.tanh(y) @ jnp.ones((16, 8)), y.sum(0)
@prog("uneven_vocab_slice", [f32(8, 16), f32(16, 64)], [S("data", None), S(None, "model")])
def uneven_vocab_slice(x, w):
    l = lax.with_sharding_constraint((x @ w)[:, :50], S("data", "model"))
    return jax.nn.log_softmax(l, -1)
@prog("tridiagonal_batch", [f32(8, 6), f32(8, 6) * 0.3, f32(8, 6), f32(8, 6, 2)], [S(("data", "model"), None)] * 3 + [S(("data", "model"), None, None)])
def tridiagonal_batch(dl, d, du, b): return lax.linalg.tridiagonal_solve(dl.at[:, 0].set(0), d, du.at[:, -1].set(0), b)
@prog("approx_topk_rows", [f32(8, 64)], [S("data", None)])
def approx_topk_rows(x): return lax.approx_max_k(x, 4)
@prog("rng_u8_split", [np.array([1, 2, 3, 4], np.uint32), f32(8, 16)], [S(), S("data", "model")])
def rng_u8_split(k, x):
    _, bits = lax.rng_bit_generator(k, (8, 16), dtype=jnp.uint8)
    return x * (bits > 127)
# Partially manual: shard_map over one mesh axis, the other left to the partitioner.
@prog("pm_tp_in_dp", [f32(8, 16), f32(16, 32), f32(32, 8)], [S("data", None), S(None, "model"), S("model", None)])
def pm_tp_in_dp(x, w1, w2):
    def local(x, w1, w2):
        h = lax.with_sharding_constraint(x @ w1, S(None, "model"))
        y = jnp.tanh(h) @ w2
        return y, lax.psum(y.sum(0), "data")
    return jax.shard_map(local, mesh=mesh, in_specs=(P("data"), P(), P()), out_specs=(P("data"), P()),
                         axis_names={"data"}, check_vma=False)(x, w1, w2)
@prog("pm_ring_model", [f32(16, 32)], [S("data", "model")])
def pm_ring_model(x):
    def local(x):  # [16, 8] per 'model' group; 'data' splits dim 0 automatically
        ring = lax.ppermute(x, "model", [(j, (j + 1) % 4) for j in range(4)])
        gathered = lax.all_gather(jnp.sin(x), "model", axis=1, tiled=True)
        scattered = lax.psum_scatter(x * x, "model", scatter_dimension=1, tiled=True)
        return ring, gathered, scattered
    return jax.shard_map(local, mesh=mesh, in_specs=P(None, "model"), out_specs=(P(None, "model"), P(), P(None, "model")),
                         axis_names={"model"}, check_vma=False)(x)
@prog("pm_reduce_auto_dim", [f32(8, 64)], [S("data", "model")])
def pm_reduce_auto_dim(x):
    def local(x):  # [4, 64] per 'data' group, its columns split over 'model' automatically
        return lax.psum(jnp.sum(jnp.tanh(x), axis=1), "data"), lax.pmax(x, "data")
    return jax.shard_map(local, mesh=mesh, in_specs=P("data"), out_specs=(P(), P()),
                         axis_names={"data"}, check_vma=False)(x)
# shard_maps inside other transformations (2026-12-03): one manual over 'data' holding one
# manual over 'model' (each with its own collective), one in a scanned layer's body, and
# the gradient of a tensor-parallel shard_map (its transpose is a shard_map too).
@prog("pm_nested_regions", [f32(8, 32), f32(32, 16)], [S("data", None), S(None, "model")])
def pm_nested_regions(x, w):
    def outer(x, w):  # x [4, 32] per 'data' group; w split over 'model' automatically
        def inner(x, w):  # w [32, 4] per device
            h = jnp.tanh(x @ w)
            return h, lax.psum(h.sum(), "model")
        # The inner one takes the mesh of its context, where 'data' is already manual.
        h, total = jax.shard_map(inner, in_specs=(P(), P(None, "model")), out_specs=(P(None, "model"), P()),
                                 axis_names={"model"}, check_vma=False)(x, w)
        return h, lax.psum(total, "data")
    return jax.shard_map(outer, mesh=mesh, in_specs=(P("data"), P()), out_specs=(P("data"), P()),
                         axis_names={"data"}, check_vma=False)(x, w)
mesh3 = Mesh(np.array(jax.devices()).reshape(2, 2, 2), ("a", "b", "c"))
@prog("pm_nested_partial", [f32(8, 32), f32(32, 16)], [S("a", None, m=mesh3), S(None, "b", m=mesh3)])
def pm_nested_partial(x, w):
    def outer(x, w):  # x [4, 32] per 'a' group
        def inner(x, w):  # w [32, 8] per 'b' device pair; 'c' still left to the partitioner
            h = jnp.tanh(x @ w)
            return h, lax.psum(h.sum(), "b")
        h, t = jax.shard_map(inner, in_specs=(P(), P(None, "b")), out_specs=(P(None, "b"), P()),
                             axis_names={"b"}, check_vma=False)(x, w)
        return h * 2, lax.psum(t, "a")
    return jax.shard_map(outer, mesh=mesh3, in_specs=(P("a"), P()), out_specs=(P("a"), P()),
                         axis_names={"a"}, check_vma=False)(x, w)
@prog("pm_nested_grad", [f32(8, 32), f32(32, 64), f32(64, 32)], [S("data", None), S(None, "model"), S("model", None)])
def pm_nested_grad(x, w1, w2):
    def loss(w1, w2):
        def outer(x, w1, w2):
            def inner(x, w1, w2):
                return lax.psum(jnp.tanh(x @ w1) @ w2, "model")
            y = jax.shard_map(inner, in_specs=(P(), P(None, "model"), P("model", None)), out_specs=P(),
                              axis_names={"model"}, check_vma=False)(x, w1, w2)
            return lax.pmean((y ** 2).mean(), "data")
        return jax.shard_map(outer, mesh=mesh, in_specs=(P("data"), P(), P()), out_specs=P(),
                             axis_names={"data"}, check_vma=False)(x, w1, w2)
    return jax.value_and_grad(loss, argnums=(0, 1))(w1, w2)
@prog("pm_in_scan", [f32(3, 32, 32), f32(8, 32)], [S(None, None, "model"), S("data", None)])
def pm_in_scan(ws, x):
    def layer(h, w):
        def tp(h, w):  # w [32, 8] per 'model' device: a column-parallel layer, gathered back
            return lax.all_gather(jnp.tanh(h @ w), "model", axis=1, tiled=True)
        h = jax.shard_map(tp, mesh=mesh, in_specs=(P(), P(None, "model")), out_specs=P(),
                          axis_names={"model"}, check_vma=False)(h, w)
        return h, h.sum()
    return lax.scan(layer, x, ws)
@prog("pm_grad_tp", [f32(8, 32), f32(32, 64), f32(64, 32)], [S("data", None), S(None, "model"), S("model", None)])
def pm_grad_tp(x, w1, w2):
    def loss(w1, w2):
        def tp(x, w1, w2):  # Megatron's MLP: column-split w1, row-split w2, one psum
            return lax.psum(jax.nn.gelu(x @ w1) @ w2, "model")
        y = jax.shard_map(tp, mesh=mesh, in_specs=(P(), P(None, "model"), P("model", None)), out_specs=P(),
                          axis_names={"model"}, check_vma=False)(x, w1, w2)
        return (y ** 2).mean()
    return jax.value_and_grad(loss, argnums=(0, 1))(w1, w2)
if NAME == "list":
    print(" ".join(progs)); sys.exit(0)
fn, args, ins, outs = progs[NAME]
jitted = jax.jit(fn, in_shardings=tuple(ins))
args = [jax.device_put(a, s) for a, s in zip(args, ins)]
compiled = jitted.lower(*args).compile()
out = jitted(*args)
flat_out = [np.asarray(o) for o in jax.tree_util.tree_leaves(out)]
befores = glob.glob(os.path.join(dump, f"module_*.jit_{NAME}.before_optimizations.txt"))
d = os.path.join(OUT, NAME); shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
shutil.copy(befores[0], os.path.join(d, "module.hlo"))
open(os.path.join(d, "partitioned.hlo"), "w").write(compiled.as_text())
for i, a in enumerate(args): np.save(os.path.join(d, f"in{i}.npy"), np.asarray(a))
for i, o in enumerate(flat_out): np.save(os.path.join(d, f"out{i}.npy"), o)
open(os.path.join(d, "n"), "w").write(f"{len(args)} {len(flat_out)}\n")
shutil.rmtree(dump)
print("ok", NAME)
