#!/usr/bin/env python3
"""A survey of single-device jax programs that users bring and the seed workloads do not
cover: linear algebra through LAPACK custom calls, FFTs, random numbers, sorts, scans,
scatters and gathers with duplicate or out-of-range indices, grouped and dilated
convolutions, integer and bit arithmetic, special functions, NaN and overflow edges,
mixed precision and control flow.

Each program is jitted on one host CPU device; XLA compiles and runs it. Written per program:
  OUT/NAME/module.hlo     what jax gave XLA (before optimizations)
  OUT/NAME/optimized.hlo  XLA's optimized module
  OUT/NAME/in<i>.npy      inputs;  OUT/NAME/out<i>.npy  XLA's outputs
  OUT/NAME/n              "<inputs> <outputs>"
Called once per program in a fresh process (XLA reads XLA_FLAGS once), by
scripts/survey_programs.sh, which runs Fusebox over the results.
  survey_programs.py list x        print the program names
  survey_programs.py NAME OUT      run one
Not test data: a program whose run found a bug becomes a test of its own.
"""
import os, sys, glob, shutil, tempfile
NAME = sys.argv[1]; OUT = sys.argv[2]
dump = tempfile.mkdtemp(prefix="survey-")
os.environ["XLA_FLAGS"] = f"--xla_dump_to={dump} --xla_dump_hlo_as_text --xla_dump_large_constants"
os.environ["JAX_PLATFORMS"] = "cpu"
import numpy as np, jax, jax.numpy as jnp
from jax import lax
import jax.scipy as jsp
r = np.random.default_rng(7)
def f32(*s): return r.standard_normal(s).astype(np.float32)
def spd(n, b=()):
    a = r.standard_normal(b + (n, n)).astype(np.float32)
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=np.float32)).astype(np.float32)
progs = {}
def prog(name, args):
    def deco(fn): progs[name] = (fn, args); return fn
    return deco

# Linear algebra (LAPACK custom calls on XLA's CPU)
@prog("eigh", [spd(8, (2,))])
def eigh(a):
    w, v = jnp.linalg.eigh(a)
    return w, jnp.abs(v[..., 0, :])  # eigenvector signs are arbitrary
@prog("svd_values", [f32(6, 4)])
def svd_values(a): return jnp.linalg.svd(a, compute_uv=False)
@prog("qr", [f32(6, 4)])
def qr(a):
    q, rr = jnp.linalg.qr(a)
    return q @ rr, jnp.abs(jnp.diagonal(rr))
@prog("solve", [spd(6), f32(6, 3)])
def solve(a, b): return jnp.linalg.solve(a, b)
@prog("inv_det", [spd(5)])
def inv_det(a): return jnp.linalg.inv(a), jnp.linalg.slogdet(a)[1]
@prog("cholesky_solve", [spd(6, (3,)), f32(3, 6, 2)])
def cholesky_solve(a, b):
    l = jnp.linalg.cholesky(a)
    return jsp.linalg.solve_triangular(l, b, lower=True), jsp.linalg.cho_solve((l, True), b)
@prog("triangular_solve_left_t", [f32(5, 5) + 5 * np.eye(5, dtype=np.float32), f32(3, 5)])
def triangular_solve_left_t(a, b):
    return lax.linalg.triangular_solve(a, b, left_side=False, lower=False, transpose_a=True)
@prog("lu_pivots", [f32(5, 5)])
def lu_pivots(a):
    lu, piv, perm = lax.linalg.lu(a)
    return lu, piv, perm
@prog("tridiagonal", [f32(8), f32(8) + 4, f32(8), f32(8, 2)])
def tridiagonal(dl, d, du, b):
    dl = dl.at[0].set(0.0); du = du.at[-1].set(0.0)
    return lax.linalg.tridiagonal_solve(dl, d, du, b)

# FFTs
@prog("fft2_complex", [f32(4, 8, 8)])
def fft2_complex(x):
    y = jnp.fft.fft2(x.astype(jnp.complex64))
    return jnp.real(y), jnp.imag(y)
@prog("irfft_roundtrip", [f32(3, 16)])
def irfft_roundtrip(x): return jnp.fft.irfft(jnp.fft.rfft(x) * 0.5, n=16)
@prog("ifft_odd", [f32(2, 15), f32(2, 15)])
def ifft_odd(a, b):
    y = jnp.fft.ifft(a + 1j * b)
    return jnp.real(y), jnp.imag(y)

# Random numbers (threefry, rbg)
@prog("random_threefry", [np.array([0, 42], np.uint32)])
def random_threefry(k):
    k1, k2, k3 = jax.random.split(k, 3)
    return (jax.random.normal(k1, (64,)), jax.random.uniform(k2, (8, 8)),
            jax.random.randint(k3, (16,), 0, 10), jax.random.bernoulli(k1, 0.3, (32,)))
@prog("random_permutation", [np.array([0, 7], np.uint32), f32(20)])
def random_permutation(k, x): return jax.random.permutation(k, x), jax.random.categorical(k, jnp.log(jnp.arange(1.0, 6.0)), shape=(10,))
@prog("random_rbg", [np.array([1, 2, 3, 4], np.uint32)])
def random_rbg(k):
    key = jax.random.wrap_key_data(k, impl="rbg")
    return jax.random.uniform(key, (16,)), jax.random.bits(key, (8,))
@prog("rng_bit_generator", [np.array([5, 6, 7, 8], np.uint32)])
def rng_bit_generator(k):
    st, bits = lax.rng_bit_generator(k, (4, 8), dtype=jnp.uint32, algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)
    st2, bits2 = lax.rng_bit_generator(k, (3, 5), dtype=jnp.uint8, algorithm=lax.RandomAlgorithm.RNG_PHILOX)
    return st, bits, st2, bits2

# Sorting, selection
@prog("argsort_stable", [np.array([3, 1, 2, 1, 3, 0, 2, 1], np.int32), f32(8)])
def argsort_stable(k, v): return jnp.argsort(k, stable=True), lax.sort((k, v), num_keys=1)[1]
@prog("sort_nan_inf", [np.array([np.nan, 1, -np.inf, 0.0, -0.0, np.inf, -2, np.nan], np.float32)])
def sort_nan_inf(x): return jnp.sort(x), jnp.argsort(-x), jnp.nanmax(x), jnp.max(x)
@prog("topk_ties", [np.array([[1, 5, 5, 2, 5, 0], [9, 9, 1, 1, 0, 9]], np.float32)])
def topk_ties(x): return lax.top_k(x, 3)
@prog("median_quantile", [f32(5, 9)])
def median_quantile(x): return jnp.median(x, axis=1), jnp.quantile(x, jnp.array([0.1, 0.9]), axis=0)
@prog("unique_sized", [np.array([4, 1, 4, 2, 9, 1, 1, 7], np.int32)])
def unique_sized(x): return jnp.unique(x, size=6, fill_value=-1, return_counts=True)
@prog("searchsorted_interp", [np.sort(f32(10)), f32(7)])
def searchsorted_interp(xp, x): return jnp.searchsorted(xp, x), jnp.interp(x, xp, jnp.cos(xp))
@prog("argmax_nan", [np.array([[1, np.nan, 3], [2, 2, -1], [-np.inf, -np.inf, -np.inf]], np.float32)])
def argmax_nan(x): return jnp.argmax(x, 1), jnp.argmin(x, 0), jnp.max(x, 1)
@prog("approx_max_k", [f32(4, 64)])
def approx_max_k(x): return lax.approx_max_k(x, 5)

# Scans
@prog("cumulative", [f32(4, 7)])
def cumulative(x):
    return (jnp.cumsum(x, 1), jnp.cumprod(x * 0.5 + 1, 0), lax.cummax(x, 1, reverse=True),
            lax.cumlogsumexp(x, 1), lax.cummin(x, 0))
@prog("assoc_scan", [f32(16, 3), f32(16, 3)])
def assoc_scan(a, b):
    fn = lambda l, r_: (l[0] * r_[0], l[1] * r_[0] + r_[1])
    return lax.associative_scan(fn, (jnp.tanh(a), b))
@prog("scan_reverse_unroll", [f32(12, 4), f32(4, 4)])
def scan_reverse_unroll(xs, w):
    return lax.scan(lambda h, x: (jnp.tanh(h @ w + x), h.sum()), jnp.zeros(4), xs, reverse=True, unroll=3)

# Scatter and gather
@prog("scatter_dupes", [f32(6, 3), np.array([0, 2, 2, 5, 0, 2], np.int32), f32(6, 3)])
def scatter_dupes(x, i, u):
    return x.at[i].add(u), x.at[i].max(u), x.at[i].min(u), x.at[i].mul(u * 0.1 + 1)
@prog("scatter_oob", [f32(5), np.array([0, 7, -1, 4, -9], np.int32), f32(5)])
def scatter_oob(x, i, u): return x.at[i].set(u, mode="drop"), x.at[i].add(u, mode="clip")
@prog("gather_modes", [f32(6, 4), np.array([0, 9, -2, 3], np.int32)])
def gather_modes(x, i):
    return jnp.take(x, i, axis=0, mode="clip"), jnp.take(x, i, axis=0, mode="fill", fill_value=-7.0), x[i % 6, i % 4]
@prog("gather_multi_axis", [f32(3, 5, 7), np.array([2, 0, 4], np.int32), np.array([6, 1, 0], np.int32)])
def gather_multi_axis(x, i, j): return x[:, i, j], x[1:, i][:, :, 2:5:2]
@prog("segment_sum", [f32(10, 3), np.array([0, 0, 1, 3, 3, 3, 2, 0, 1, 3], np.int32)])
def segment_sum(x, s):
    return jax.ops.segment_sum(x, s, 4), jax.ops.segment_max(x, s, 5), jnp.bincount(s, length=5)
@prog("dynamic_slice_clamped", [f32(8, 8), np.int32(6), np.int32(-3), f32(3, 3)])
def dynamic_slice_clamped(x, i, j, u):
    return lax.dynamic_slice(x, (i, j), (3, 3)), lax.dynamic_update_slice(x, u, (i, j))

# Convolutions
@prog("conv_depthwise", [f32(2, 9, 9, 6), f32(3, 3, 1, 6)])
def conv_depthwise(x, w):
    return lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=6)
@prog("conv_grouped_dilated", [f32(1, 8, 12, 12), f32(8, 4, 3, 3)])
def conv_grouped_dilated(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), ((2, 2), (1, 3)), rhs_dilation=(2, 2), feature_group_count=2)
@prog("conv_transpose", [f32(2, 5, 5, 3), f32(3, 3, 3, 4)])
def conv_transpose(x, w):
    return lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
@prog("conv1d_causal", [f32(2, 16, 4), f32(5, 4, 6)])
def conv1d_causal(x, w): return lax.conv_general_dilated(x, w, (1,), ((4, 0),), dimension_numbers=("NWC", "WIO", "NWC"))
@prog("conv3d", [f32(1, 6, 6, 6, 2), f32(3, 3, 3, 2, 3)])
def conv3d(x, w): return lax.conv_general_dilated(x, w, (1, 2, 1), "VALID", dimension_numbers=("NDHWC", "DHWIO", "NDHWC"))
@prog("conv_batch_group_grad", [f32(4, 7, 7, 3), f32(3, 3, 3, 2)])
def conv_batch_group_grad(x, w):
    return jax.grad(lambda w: jnp.sum(lax.conv_general_dilated(x, w, (2, 2), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2))(w)
@prog("pooling_padded", [f32(2, 7, 7, 3)])
def pooling_padded(x):
    mx = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
    av = lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1), "VALID", window_dilation=(1, 2, 2, 1)) / 4
    return mx, av, jax.grad(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME").sum())(x)

# Integer, bit and conversion edges
@prog("int_division", [np.array([7, -7, 7, -7, -2147483648, 5, 0], np.int32), np.array([2, 2, -2, -2, -1, 0, 3], np.int32)])
def int_division(a, b):
    bb = jnp.where(b == 0, 1, b)
    return a // bb, a % bb, lax.div(a, bb), lax.rem(a, bb), jnp.abs(a), -a
@prog("bits", [np.array([0, 1, 255, -1, 2**31 - 1, -2**31, 12345], np.int32), np.array([0, 1, 31, 32, 33, -1, 4], np.int32)])
def bits(x, s):
    u = lax.bitcast_convert_type(x, jnp.uint32)
    return (lax.population_count(x), lax.clz(x), lax.shift_left(x, s), lax.shift_right_arithmetic(x, s),
            lax.shift_right_logical(u, s.astype(jnp.uint32)), x ^ (x >> 3), ~x)
@prog("convert_edges", [np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.5, -2.5, 0.49999997, 255.7, -1.5], np.float32)])
def convert_edges(x):
    return (x.astype(jnp.int32), x.astype(jnp.uint8), x.astype(jnp.bfloat16).astype(jnp.float32),
            x.astype(jnp.float16).astype(jnp.float32), jnp.round(x), jnp.rint(x), x.astype(jnp.int8))
@prog("small_ints", [np.array([100, -100, 127, -128, 3], np.int8), np.array([200, 55, 255, 0, 17], np.uint8)])
def small_ints(a, b):
    return a + a, a * 3, b + b, b * b, (a.astype(jnp.int32) * b).astype(jnp.int16), b // 7, a >> 2
@prog("int8_dot", [r.integers(-128, 128, (8, 16)).astype(np.int8), r.integers(-128, 128, (16, 4)).astype(np.int8)])
def int8_dot(a, b): return lax.dot(a, b, preferred_element_type=jnp.int32), jnp.matmul(a, b)
@prog("uint_compare", [np.array([0, 1, 2**31, 2**32 - 1], np.uint32), np.array([2**32 - 1, 0, 5, 2**31], np.uint32)])
def uint_compare(a, b): return a < b, jnp.maximum(a, b), a - b, (a.astype(jnp.float32)), a // (b | 1)

# Floating point specials
@prog("special_functions", [np.abs(f32(32)) + 0.1, f32(32) * 0.9])
def special_functions(p, x):
    x = jnp.clip(x, -0.99, 0.99)
    s = jsp.special
    return (s.erf(x), s.erfc(x * 3), s.erfinv(x), s.gammaln(p), s.digamma(p), s.i0e(x * 5), s.i1e(x * 5),
            jnp.expm1(x * 1e-4), jnp.log1p(x * 1e-5), jax.nn.sigmoid(x * 40), jnp.cbrt(x), jnp.arctan2(x, p - 1),
            jnp.arctanh(x), jnp.sinc(x * 3), jnp.tan(x), jnp.cosh(x * 3))
@prog("igamma_betainc", [np.abs(f32(16)) + 0.5, np.abs(f32(16)) * 2, np.clip(np.abs(f32(16)) * 0.3, 0.01, 0.99).astype(np.float32)])
def igamma_betainc(a, x, p):
    s = jsp.special
    return s.gammainc(a, x), s.gammaincc(a, x), s.betainc(a, a + 1, p), s.xlogy(p, a), s.polygamma(1, a)
@prog("nan_propagation", [np.array([np.nan, 1, -1, 0, np.inf, -np.inf], np.float32), np.array([1, np.nan, 0, -0.0, np.inf, 2], np.float32)])
def nan_propagation(a, b):
    return (jnp.maximum(a, b), jnp.minimum(a, b), jnp.fmax(a, b), a / b, jnp.sqrt(a), jnp.log(b), a ** b,
            jnp.sign(a), jnp.isfinite(a / b), jnp.nextafter(a, b), jnp.copysign(a, b), jnp.clip(a, -0.5, 0.5))
@prog("pow_int_neg", [np.array([-2, -1.5, 0, 2, -8, 3], np.float32), np.array([3, 2, 0, -1, 1 / 3, 0.5], np.float32)])
def pow_int_neg(x, y): return x ** y, lax.integer_pow(x, 3), lax.integer_pow(x, -2), jnp.power(x, 2.0)
@prog("reduce_precision", [f32(16) * 1000])
def reduce_precision(x): return lax.reduce_precision(x, 5, 10), lax.reduce_precision(x, 8, 7), lax.reduce_precision(x * 1e30, 5, 2)
@prog("logsumexp_stable", [f32(4, 50) * 100])
def logsumexp_stable(x): return jsp.special.logsumexp(x, axis=1), jax.nn.log_softmax(x)[:, :3], jnp.var(x, 1), jnp.std(x, 0)[:5]

# Complex
@prog("complex_math", [f32(8), f32(8)])
def complex_math(a, b):
    z = lax.complex(a, b)
    w = jnp.exp(z) * jnp.conj(z) / (z + 2)
    return jnp.real(w), jnp.imag(w), jnp.abs(jnp.sqrt(z)), jnp.angle(z), jnp.real(jnp.log(z))
@prog("complex_matmul", [f32(4, 6), f32(4, 6), f32(6, 3), f32(6, 3)])
def complex_matmul(a, b, c, d):
    z = (a + 1j * b) @ (c + 1j * d)
    return jnp.real(z), jnp.imag(z), jnp.abs(jnp.sum(z))

# Mixed precision
@prog("bf16_mlp", [f32(16, 32).astype(jnp.bfloat16), f32(32, 32).astype(jnp.bfloat16)])
def bf16_mlp(x, w):
    h = jax.nn.gelu(x @ w)
    return jax.nn.softmax(h, -1), jnp.sum(h.astype(jnp.float32), 0), (x @ w).astype(jnp.float32)
@prog("f16_reduce", [(f32(64, 64) * 4).astype(np.float16)])
def f16_reduce(x): return jnp.sum(x, 1), jnp.mean(x), jnp.max(x, 0), jnp.sum(x * x, dtype=jnp.float32)
@prog("dot_precisions", [f32(24, 40), f32(40, 12)])
def dot_precisions(a, b):
    return (jnp.dot(a, b, precision=lax.Precision.HIGHEST), jnp.dot(a, b, preferred_element_type=jnp.float32),
            jnp.einsum("ij,jk->ki", a, b), jnp.einsum("ij,kj->ik", a, a))
@prog("einsum_multi", [f32(2, 3, 4, 5), f32(5, 4, 6), f32(2, 6)])
def einsum_multi(a, b, c): return jnp.einsum("bhij,jik,bk->bh", a, b, c), jnp.einsum("bhij->bj", a)

# Control flow
@prog("while_newton", [np.abs(f32(6)) + 0.5])
def while_newton(a):
    def cond(c): return (c[1] < 50) & (jnp.max(jnp.abs(c[0] * c[0] - a)) > 1e-6)
    def body(c): return (0.5 * (c[0] + a / c[0]), c[1] + 1)
    return lax.while_loop(cond, body, (a, 0))
@prog("cond_switch", [f32(5), np.int32(2), np.int32(-4)])
def cond_switch(x, i, j):
    br = [lambda x: x + 1, lambda x: x * 2, lambda x: jnp.sin(x), lambda x: -x]
    return lax.switch(i, br, x), lax.switch(j, br, x), lax.cond(x.sum() > 0, lambda: x.sum(), lambda: x.prod())
@prog("vmap_while", [np.array([1, 5, 12, 3], np.int32)])
def vmap_while(n):
    def collatz(n):
        return lax.while_loop(lambda c: c[0] != 1, lambda c: (jnp.where(c[0] % 2 == 0, c[0] // 2, 3 * c[0] + 1), c[1] + 1), (n, 0))[1]
    return jax.vmap(collatz)(n)
@prog("fori_dynamic_update", [f32(10)])
def fori_dynamic_update(x):
    def body(i, acc): return lax.dynamic_update_index_in_dim(acc, acc[i - 1] * 0.5 + x[i], i, 0)
    return lax.fori_loop(1, 10, body, x)
@prog("remat_grad", [f32(8, 8), f32(8)])
def remat_grad(w, x):
    f = jax.checkpoint(lambda w, x: jnp.tanh(w @ jnp.tanh(w @ x)))
    return jax.grad(lambda w: f(w, x).sum())(w)
@prog("custom_jvp_grad", [f32(10)])
def custom_jvp_grad(x): return jax.grad(lambda x: jax.nn.softplus(x).sum() + jax.nn.relu(x).sum())(x), jax.vmap(jax.grad(jax.nn.silu))(x)

# Shape manipulation
@prog("pad_negative_reverse", [f32(6, 7)])
def pad_negative_reverse(x):
    return (lax.pad(x, 0.5, ((-1, 2, 1), (2, -3, 0))), jnp.flip(x, (0, 1))[::2, 1::3], jnp.roll(x, (-2, 3), (0, 1)),
            jnp.tile(x[:2, :2], (2, 3)), jnp.repeat(x[:, 0], 3))
@prog("tril_meshgrid", [f32(5, 5)])
def tril_meshgrid(x):
    gi, gj = jnp.meshgrid(jnp.arange(5), jnp.arange(3), indexing="ij")
    return jnp.tril(x, -1), jnp.triu(x, 2), gi * 10 + gj, jnp.eye(4, 6, k=1), jnp.diag(x), jnp.trace(x)
@prog("one_hot_where", [np.array([0, 3, 9, -1, 2], np.int32), f32(5, 4)])
def one_hot_where(i, x): return jax.nn.one_hot(i, 4), jnp.where(x > 0, x, jnp.nan_to_num(jnp.log(x))), jnp.all(x > -3, 1), jnp.any(x > 2)
@prog("select_n", [np.array([0, 2, 1, 2, 0], np.int32), f32(5), f32(5), f32(5)])
def select_n(i, a, b, c): return lax.select_n(i, a, b, c), lax.select_n(i > 0, a, b), lax.clamp(-0.5, a, 0.5)

# Models
@prog("batchnorm_train_grad", [f32(8, 6, 6, 4), f32(4), f32(4)])
def batchnorm_train_grad(x, g, b):
    def f(x, g, b):
        m = x.mean((0, 1, 2)); v = x.var((0, 1, 2))
        return jnp.sum(jax.nn.relu((x - m) * lax.rsqrt(v + 1e-5) * g + b) ** 2)
    return jax.grad(f, argnums=(0, 1, 2))(x, g, b)
@prog("attention_mask", [f32(2, 10, 4, 8), f32(2, 10, 4, 8), f32(2, 10, 4, 8), np.array([10, 6], np.int32)])
def attention_mask(q, k, v, lens):
    return jax.nn.dot_product_attention(q, k, v, key_value_seq_lengths=lens), jax.nn.dot_product_attention(q, k, v, is_causal=True, scale=0.3)
@prog("lstm_scan", [f32(7, 3, 5), f32(5, 32), f32(8, 32)])
def lstm_scan(xs, wx, wh):
    def cell(c, x):
        h, s = c
        z = x @ wx + h @ wh
        i, f, o, g = jnp.split(z, 4, -1)
        s = jax.nn.sigmoid(f) * s + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(s)
        return (h, s), h
    return lax.scan(cell, (jnp.zeros((3, 8)), jnp.zeros((3, 8))), xs)
@prog("ctc_like_logaddexp", [f32(6, 4, 5)])
def ctc_like_logaddexp(x):
    def step(a, lp): return jnp.logaddexp(a, jnp.roll(a, 1, -1)) + lp, a.max()
    return lax.scan(step, jnp.full((4, 5), -jnp.inf).at[:, 0].set(0.0), jax.nn.log_softmax(x))


# Batch 2: more LAPACK routines, resampling, zero-size arrays, narrow floats, denormals
@prog("eig_nonsymmetric", [f32(4, 4)])
def eig_nonsymmetric(a):
    w = jnp.linalg.eigvals(a)
    return jnp.sort(jnp.abs(w))
@prog("schur_hessenberg", [f32(5, 5)])
def schur_hessenberg(a):
    h, q = jsp.linalg.hessenberg(a, calc_q=True)
    return q @ h @ q.T
@prog("qr_pivoting", [f32(6, 4)])
def qr_pivoting(a):
    q, rr, p = jsp.linalg.qr(a, pivoting=True, mode="economic")
    return jnp.abs(jnp.diagonal(rr)), q @ rr - a[:, p]
@prog("expm_matrix_power", [f32(4, 4) * 0.3])
def expm_matrix_power(a): return jsp.linalg.expm(a), jnp.linalg.matrix_power(a, 5), jnp.linalg.norm(a, "nuc")
@prog("eigh_tridiagonal", [f32(6) + 3, f32(5)])
def eigh_tridiagonal(d, e): return jsp.linalg.eigh_tridiagonal(d, e, eigvals_only=True)
@prog("image_resize", [f32(1, 5, 7, 2)])
def image_resize(x):
    return (jax.image.resize(x, (1, 9, 4, 2), "bilinear"), jax.image.resize(x, (1, 10, 14, 2), "nearest"),
            jax.image.resize(x, (1, 8, 8, 2), "cubic"), jax.image.resize(x, (1, 3, 3, 2), "lanczos3"))
@prog("convolve_correlate", [f32(20), f32(5), f32(6, 6), f32(3, 3)])
def convolve_correlate(a, v, x, k):
    return jnp.convolve(a, v, mode="same"), jnp.correlate(a, v, mode="full"), jsp.signal.convolve2d(x, k, mode="valid"), jsp.signal.fftconvolve(a, v)
@prog("gqa_attention_bias", [f32(2, 9, 8, 16), f32(2, 9, 2, 16), f32(2, 9, 2, 16), f32(2, 8, 9, 9)])
def gqa_attention_bias(q, k, v, bias): return jax.nn.dot_product_attention(q, k, v, bias=bias)
@prog("einsum_diagonal_kron", [f32(4, 4), f32(2, 3), f32(3, 2, 5)])
def einsum_diagonal_kron(a, b, c):
    return jnp.einsum("ii->i", a), jnp.einsum("ii", a), jnp.kron(b, a[:2, :2]), jnp.outer(a[0], b[1]), jnp.cross(c[0, 0, :3], c[1, 1, :3]), jnp.einsum("ijk,ji->k", c, b)
@prog("partition_histogram", [f32(3, 11), f32(50)])
def partition_histogram(x, y):
    return jnp.partition(x, 4, axis=1)[:, 4], jnp.argpartition(x, 2, axis=1)[:, :2].sort(1).shape[0] + 0 * x[:, 0], jnp.histogram(y, bins=7, range=(-2, 2))[0], jnp.digitize(y, jnp.linspace(-1, 1, 5))
@prog("random_distributions", [np.array([0, 3], np.uint32)])
def random_distributions(k):
    ks = jax.random.split(k, 6)
    return (jax.random.gamma(ks[0], jnp.array([0.5, 1.0, 3.0]), (4, 3)), jax.random.beta(ks[1], 2.0, 3.0, (5,)),
            jax.random.poisson(ks[2], 4.0, (6,)), jax.random.truncated_normal(ks[3], -1.0, 2.0, (7,)),
            jax.random.choice(ks[4], 10, (4,), replace=False), jax.random.dirichlet(ks[5], jnp.ones(3), (2,)))
@prog("variadic_reduce", [f32(4, 6), np.array(r.integers(0, 9, (4, 6)), np.int32)])
def variadic_reduce(x, i):
    def f(a, b): return (jnp.where(a[0] >= b[0], a[0], b[0]), jnp.where(a[0] >= b[0], a[1], b[1]))
    m, j = lax.reduce((x, i), (-jnp.inf, 0), f, (1,))
    return m, j, lax.sort((i, x), num_keys=2)[1]
@prog("nan_reductions", [np.array([[1, np.nan, 3], [np.nan, np.nan, np.nan], [4, 5, 6]], np.float32)])
def nan_reductions(x): return jnp.nanmean(x, 1), jnp.nanstd(x, 0), jnp.nansum(x), jnp.nanargmax(jnp.nan_to_num(x, nan=-1), 1), jnp.nanmin(x, 1)
@prog("bool_logic", [np.array([True, False, True, False]), np.array([True, True, False, False])])
def bool_logic(a, b): return a ^ b, a & ~b, jnp.logical_xor(a, b), jnp.cumsum(a), jnp.argmin(a), jnp.all(a | b), lax.population_count(a.astype(jnp.uint8) * 255)
@prog("float8_casts", [np.array([0.1, -3.3, 448.0, 500.0, 1e-3, -0.0, 60000.0, np.nan], np.float32)])
def float8_casts(x):
    return (x.astype(jnp.float8_e4m3fn).astype(jnp.float32), x.astype(jnp.float8_e5m2).astype(jnp.float32),
            x.astype(jnp.bfloat16).astype(jnp.float32), (x * 1e-3).astype(jnp.float16).astype(jnp.float32))
@prog("int4_types", [np.array([-8, -1, 0, 3, 7, 5], np.int8)])
def int4_types(x):
    y = x.astype(jnp.int4)
    return (y + y).astype(jnp.int8), (y * 3).astype(jnp.int32), x.astype(jnp.uint4).astype(jnp.int32)
@prog("denormals", [np.array([1e-38, 1e-40, -1e-42, 3e-39, 1e-45, 1.0], np.float32), np.array([1e-3, 1e3, 0.5, 1e-2, 2.0, 1e-39], np.float32)])
def denormals(a, b): return a * b, a / b, a + a, jnp.sqrt(jnp.abs(a)), a * 1e-5 * 1e5, jnp.sum(a)
@prog("zero_size", [np.zeros((0, 3), np.float32), f32(4, 3), np.zeros((0,), np.int32)])
def zero_size(e, x, i):
    return (jnp.sum(e, 0), jnp.max(e, 0, initial=-1.0), jnp.concatenate([e, x], 0), e @ x.T, x[i], jnp.mean(x[:0], 0),
            x.at[i].add(1.0), jnp.cumsum(e, 0))
@prog("round_trunc", [np.array([2.5, 3.5, -2.5, -0.45, 1.005, 123.456, -7.9], np.float32)])
def round_trunc(x): return jnp.round(x, 2), jnp.trunc(x), jnp.floor(x), jnp.ceil(x), jnp.round(x), jnp.around(x, -1)
@prog("gcd_lcm_ints", [np.array([12, 0, -18, 7, 100], np.int32), np.array([18, 5, 24, 0, 75], np.int32)])
def gcd_lcm_ints(a, b): return jnp.gcd(a, b), jnp.lcm(a, b), jnp.packbits(a > 10), jnp.unpackbits(jnp.abs(a).astype(jnp.uint8))
@prog("special_more", [np.abs(f32(12)) + 1.1, np.clip(np.abs(f32(12)) * 0.3, 0.01, 0.99).astype(np.float32)])
def special_more(x, p):
    s = jsp.special
    return (s.zeta(x, 1.0), s.spence(x), s.expi(x), s.exp1(x), s.ndtri(p), s.log_ndtr(x - 3), s.multigammaln(x + 2, 3),
            s.entr(p), s.kl_div(p, 1 - p), jsp.stats.norm.logcdf(x - 2), jsp.stats.t.logpdf(x, 3.0), s.bernoulli(4))
@prog("shifts_overflow", [np.array([1, -1, 2**30, 7], np.int32), np.array([31, 32, 2, 40], np.int32)])
def shifts_overflow(a, s): return jnp.left_shift(a, s), jnp.right_shift(a, s), a * a, a + jnp.int32(2**31 - 1), jnp.power(a, 3), -a
@prog("sort_float_types", [np.array([3, np.nan, -0.0, 0.0, -np.inf, 1, np.nan, -2], np.float32)])
def sort_float_types(x):
    return (jnp.sort(x.astype(jnp.bfloat16)).astype(jnp.float32), jnp.sort(x.astype(jnp.float16)).astype(jnp.float32),
            jnp.argsort(x, descending=True), jnp.sort(lax.complex(x, x[::-1])).real)
@prog("dot_general_batch_middle", [f32(3, 4, 5, 6), f32(6, 4, 7)])
def dot_general_batch_middle(a, b):
    return lax.dot_general(a, b, (((3,), (0,)), ((1,), (1,)))), jnp.einsum("abcd,dbe->ecab", a, b)
@prog("conv_negative_padding_f16", [f32(1, 3, 10, 10), f32(4, 3, 3, 3)])
def conv_negative_padding_f16(x, w):
    y = lax.conv_general_dilated(x.astype(jnp.float16), w.astype(jnp.float16), (1, 1), ((-1, 2), (0, -2)), lhs_dilation=(2, 1), preferred_element_type=jnp.float32)
    z = lax.conv_general_dilated(x.astype(jnp.bfloat16), w.astype(jnp.bfloat16), (2, 2), "SAME")
    return y, z.astype(jnp.float32)
@prog("nested_control", [f32(6, 3), f32(3, 3)])
def nested_control(xs, w):
    def body(c, x):
        c = lax.cond(x.sum() > 0, lambda c: jnp.tanh(c @ w), lambda c: lax.fori_loop(0, 3, lambda i, c: c * 0.9 + x, c), c)
        return c, lax.switch(jnp.argmax(x), [jnp.sum, jnp.prod, jnp.max], c)
    return lax.scan(body, jnp.ones(3), xs)
@prog("lax_map_vmap_scan", [f32(4, 5, 3)])
def lax_map_vmap_scan(x):
    return lax.map(lambda r: jnp.cumsum(r, 0).max(), x), jax.vmap(lambda r: lax.scan(lambda c, v: (c + v, c * v), jnp.zeros(3), r))(x)
@prog("take_negative", [f32(6, 4), np.array([-1, -6, 2, 5], np.int32)])
def take_negative(x, i): return jnp.take_along_axis(x[:4], i[:, None] % 4, 1), x[i], lax.dynamic_slice_in_dim(x, -3, 2, 0), lax.dynamic_update_slice(x, x[:2] * 0, (-4, 0))
@prog("select_piecewise", [f32(12)])
def select_piecewise(x):
    return jnp.select([x < -1, x > 1], [x * 2, x ** 2], default=-x), jnp.piecewise(x, [x < 0, x >= 0], [jnp.sin, jnp.cos]), jnp.where(True, x, 0)
@prog("fftn_hfft", [f32(3, 4, 5), f32(9)])
def fftn_hfft(x, y):
    z = jnp.fft.fftn(x)
    return jnp.real(z), jnp.imag(jnp.fft.ifftn(z, axes=(0, 2))), jnp.fft.hfft(y), jnp.fft.irfftn(jnp.fft.rfftn(x), x.shape)
@prog("u64_s64_x64", [np.array([1, 2**40, 2**63 - 1, 7], np.int64), np.array([3, 5, 2, 2**33], np.uint64), np.array([1.5, -2.25, 1e300, 1e-310], np.float64)], )
def u64_s64_x64(a, b, c): return a * 3, a // 7, b * b, (b >> 3) ^ b, c * c, jnp.sqrt(jnp.abs(c)), c.astype(jnp.float32), a.astype(jnp.float64)
@prog("cumsum_reverse_bool", [f32(5, 4) > 0, f32(5, 4)])
def cumsum_reverse_bool(m, x): return jnp.cumsum(m, 0), lax.cumsum(x, 1, reverse=True), lax.cumprod(x, 0, reverse=True), jnp.cumsum(x.astype(jnp.bfloat16), 1).astype(jnp.float32)
@prog("iota_broadcast_rev", [f32(3, 1, 4)])
def iota_broadcast_rev(x):
    return lax.broadcast_in_dim(x, (2, 3, 5, 4), (1, 2, 3)), lax.rev(x, (0, 2)), lax.iota(jnp.uint8, 300), lax.broadcasted_iota(jnp.int16, (3, 4), 1) * x[:, 0].astype(jnp.int16)
@prog("stop_gradient_custom_vjp", [f32(8)])
def stop_gradient_custom_vjp(x):
    @jax.custom_vjp
    def clip_grad(x): return x
    clip_grad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -0.1, 0.1),))
    return jax.grad(lambda x: (clip_grad(x) ** 3).sum() + lax.stop_gradient(x).sum() * x.sum())(x)
@prog("softmax_cross_entropy_int_labels", [f32(16, 10), np.array(r.integers(0, 10, 16), np.int32)])
def softmax_cross_entropy_int_labels(logits, y):
    def loss(l): return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(l), y[:, None], 1))
    return jax.value_and_grad(loss)(logits)
@prog("layernorm_bf16_grad", [f32(8, 32).astype(jnp.bfloat16), f32(32).astype(jnp.bfloat16)])
def layernorm_bf16_grad(x, g):
    def f(x, g):
        x32 = x.astype(jnp.float32)
        m = x32.mean(-1, keepdims=True); v = x32.var(-1, keepdims=True)
        return (((x32 - m) * lax.rsqrt(v + 1e-5)).astype(jnp.bfloat16) * g).astype(jnp.float32).sum()
    gx, gg = jax.grad(f, argnums=(0, 1))(x, g)
    return gx.astype(jnp.float32), gg.astype(jnp.float32)

# Batch 3: whole models, small
def dense(k, i, o): return (jax.random.normal(k, (i, o)) / np.sqrt(i)).astype(np.float32)
K = jax.random.split(jax.random.PRNGKey(0), 16)
def gpt_params(d=32, h=4, layers=2, vocab=50, seq=12):
    p = {"emb": np.asarray(dense(K[0], vocab, d)), "pos": np.asarray(dense(K[1], seq, d)) * 0.1}
    for l in range(layers):
        p[f"qkv{l}"] = np.asarray(dense(K[2 + 3 * l], d, 3 * d)); p[f"o{l}"] = np.asarray(dense(K[3 + 3 * l], d, d))
        p[f"ff{l}"] = np.asarray(dense(K[4 + 3 * l], d, 4 * d)); p[f"fb{l}"] = np.asarray(dense(K[4 + 3 * l], 4 * d, d))
    return p
def gpt_forward(p, tokens, h=4):
    b, t = tokens.shape
    x = p["emb"][tokens] + p["pos"][:t]
    layers = sum(1 for k in p if k.startswith("qkv"))
    def ln(x): m = x.mean(-1, keepdims=True); return (x - m) * lax.rsqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5)
    for l in range(layers):
        q, k, v = jnp.split(ln(x) @ p[f"qkv{l}"], 3, -1)
        sp = lambda z: z.reshape(b, t, h, -1)
        x = x + jax.nn.dot_product_attention(sp(q), sp(k), sp(v), is_causal=True).reshape(b, t, -1) @ p[f"o{l}"]
        x = x + jax.nn.gelu(ln(x) @ p[f"ff{l}"]) @ p[f"fb{l}"]
    return ln(x) @ p["emb"].T
GP = gpt_params()
TOK = np.array(r.integers(0, 50, (3, 12)), np.int32)
@prog("gpt_adam_step", [GP, TOK])
def gpt_adam_step(p, tokens):
    def loss(p):
        logits = gpt_forward(p, tokens[:, :-1])
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), tokens[:, 1:, None], -1))
    l, g = jax.value_and_grad(loss)(p)
    m = jax.tree_util.tree_map(lambda g: 0.1 * g, g); v = jax.tree_util.tree_map(lambda g: 0.001 * g * g, g)
    new = jax.tree_util.tree_map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), p, m, v)
    return l, new
@prog("gpt_greedy_decode", [GP, np.array([[3, 7], [1, 2]], np.int32)])
def gpt_greedy_decode(p, prompt):
    def step(toks, i):
        logits = gpt_forward(p, toks)
        nxt = jnp.argmax(logits[jnp.arange(2), i - 1], -1).astype(jnp.int32)
        return lax.dynamic_update_slice(toks, nxt[:, None], (0, i)), nxt
    toks = jnp.zeros((2, 10), jnp.int32).at[:, :2].set(prompt)
    return lax.scan(step, toks, jnp.arange(2, 10))
@prog("resnet_block_train", [f32(4, 8, 8, 16), np.asarray(dense(K[10], 3 * 3 * 16, 16)).reshape(3, 3, 16, 16), np.asarray(dense(K[11], 3 * 3 * 16, 16)).reshape(3, 3, 16, 16), f32(16), f32(16)])
def resnet_block_train(x, w1, w2, g, b):
    def bn(y): m = y.mean((0, 1, 2)); v = y.var((0, 1, 2)); return (y - m) * lax.rsqrt(v + 1e-5) * g + b
    def f(w1, w2, g, b):
        conv = lambda y, w: lax.conv_general_dilated(y, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = jax.nn.relu(bn(conv(x, w1)))
        y = jax.nn.relu(bn(conv(y, w2)) + x)
        return jnp.mean(lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") ** 2)
    return jax.value_and_grad(f, argnums=(0, 1, 2, 3))(w1, w2, g, b)
@prog("vit_patch_embed_cls", [f32(2, 16, 16, 3), np.asarray(dense(K[12], 4 * 4 * 3, 24)), f32(24), f32(17, 24)])
def vit_patch_embed_cls(img, w, cls, pos):
    b = img.shape[0]
    patches = img.reshape(b, 4, 4, 4, 4, 3).transpose(0, 1, 3, 2, 4, 5).reshape(b, 16, 48)
    x = jnp.concatenate([jnp.broadcast_to(cls, (b, 1, 24)), patches @ w], 1) + pos
    q = x.reshape(b, 17, 4, 6)
    return jax.nn.dot_product_attention(q, q, q).reshape(b, 17, 24).mean(1)
@prog("unet_groupnorm_upsample", [f32(2, 8, 8, 8), np.asarray(dense(K[13], 3 * 3 * 8, 16)).reshape(3, 3, 8, 16), f32(16), f32(2, 16)])
def unet_groupnorm_upsample(x, w, scale, temb):
    y = lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    g = y.reshape(2, 4, 4, 4, 4)
    g = (g - g.mean((1, 2, 4), keepdims=True)) * lax.rsqrt(g.var((1, 2, 4), keepdims=True) + 1e-6)
    y = jax.nn.silu(g.reshape(y.shape) * scale + temb[:, None, None, :])
    return jax.image.resize(y, (2, 8, 8, 16), "nearest") + jnp.tile(x, (1, 1, 1, 2))
@prog("vae_reparam_kl", [f32(6, 20), np.asarray(dense(K[14], 20, 8)), np.array([0, 9], np.uint32)])
def vae_reparam_kl(x, w, k):
    def loss(w):
        h = x @ w; mu, logvar = h[:, :4], h[:, 4:]
        z = mu + jnp.exp(0.5 * logvar) * jax.random.normal(k, mu.shape)
        rec = jnp.sum((z @ w[:, :4].T - x) ** 2)
        return rec - 0.5 * jnp.sum(1 + logvar - mu ** 2 - jnp.exp(logvar))
    return jax.value_and_grad(loss)(w)
@prog("moe_top2_scatter", [f32(10, 8), np.asarray(dense(K[15], 8, 4)), f32(4, 8, 8)])
def moe_top2_scatter(x, wg, we):
    gates = jax.nn.softmax(x @ wg)
    val, idx = lax.top_k(gates, 2)
    out = jnp.zeros_like(x)
    for j in range(2):
        y = jnp.einsum("td,tde->te", x, we[idx[:, j]])
        out = out + val[:, j:j + 1] * y
    load = jnp.zeros(4).at[idx.reshape(-1)].add(1.0)
    return out, load
@prog("beam_search_topk", [f32(5, 6, 20)])
def beam_search_topk(logits):
    def step(c, lg):
        scores, hist = c
        cand = (scores[:, None] + jax.nn.log_softmax(lg)).reshape(-1)
        top, pos = lax.top_k(cand, 6)
        return (top, pos // 20), pos % 20
    (s, h), toks = lax.scan(step, (jnp.zeros(6), jnp.zeros(6, jnp.int32)), logits)
    return s, toks

if NAME == "list":
    print(" ".join(progs)); sys.exit(0)
fn, args = progs[NAME]
if NAME.endswith("_x64"): jax.config.update("jax_enable_x64", True)
jitted = jax.jit(fn, keep_unused=True)  # every argument a parameter, as the inputs written
compiled = jitted.lower(*args).compile()
out = jitted(*args)
flat_out = [np.asarray(o) for o in jax.tree_util.tree_leaves(out)]
befores = glob.glob(os.path.join(dump, f"module_*.jit_{NAME}.before_optimizations.txt"))
afters = glob.glob(os.path.join(dump, f"module_*.jit_{NAME}.*after_optimizations.txt"))
d = os.path.join(OUT, NAME); shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
shutil.copy(befores[0], os.path.join(d, "module.hlo"))
shutil.copy(afters[0], os.path.join(d, "optimized.hlo"))  # its large constants written out
flat_args = jax.tree_util.tree_leaves(args)  # a dict of parameters: its leaves, as jax's parameters
for i, a in enumerate(flat_args): np.save(os.path.join(d, f"in{i}.npy"), np.asarray(a))
for i, o in enumerate(flat_out): np.save(os.path.join(d, f"out{i}.npy"), o)
open(os.path.join(d, "n"), "w").write(f"{len(flat_args)} {len(flat_out)}\n")
shutil.rmtree(dump)
print("ok", NAME)
