"""Fusebox vs XLA's CPU backend, side by side, in one run.

For each workload: jax lowers the function to HLO (the module XLA itself compiles), XLA
compiles and runs it (jax.jit on CPU), and bench/compare_xla/fusebox_side.cc compiles
and runs the same HLO on the same inputs with Fusebox's pipeline and CPU backend. The
two halves alternate per workload, --rounds times (default 3), so that both see the same
machine state. Printed: run times and their ratio (XLA time / Fusebox time: above 1 means
Fusebox is faster; the median of the rounds' ratios, with their range), compile times
and their ratio the same way, kernel counts, and whether the outputs agree.

Fair by default (--mode fair): Fusebox pays what XLA's CPU client pays per call —
inputs, temporaries and outputs in ordinary memory, each call's output and temporaries
allocated fresh and freed within the timed span. XLA is called from Python (jax), Fusebox
from C++: the "dispatch" column is the time jax takes to call a compiled function that
does nothing (a scalar add), measured in the same round, and the "compute" ratio takes it
off XLA's time. `--mode reuse` lets Fusebox reuse one output and its temporaries across
calls, with huge pages (its own way; not a like-for-like comparison).

Run through scripts/compare_xla.sh (it sets up the throwaway jax venv and builds).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import jax
import jax.numpy as jnp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import seed_programs as sp  # noqa: E402

f32 = jnp.float32


# ------------------------------------------------------------------ workloads
def softmax(x):
    return jax.nn.softmax(x, axis=-1)


def layer_norm(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * gamma + beta


def elementwise(x, y, z):
    return jax.nn.relu(x * y + z)


def mlp_loss(params, x, labels):
    w1, b1, w2, b2, w3, b3 = params
    h = jax.nn.relu(x @ w1 + b1)
    h = jax.nn.relu(h @ w2 + b2)
    return sp.softmax_xent(h @ w3 + b3, labels)


def mlp_train_step(params, x, labels):
    loss, grads = jax.value_and_grad(mlp_loss)(params, x, labels)
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads), loss


# GPT-style attention and transformer block (item 4 of issue #28): the einsums jax users
# write, with and without a causal mask. x is [batch, seq, d_model].
def attention(x, wq, wk, wv, wo, heads, causal):
    b, s, d = x.shape
    dh = d // heads
    q = (x @ wq).reshape(b, s, heads, dh)
    k = (x @ wk).reshape(b, s, heads, dh)
    v = (x @ wv).reshape(b, s, heads, dh)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.float32(np.sqrt(dh))
    if causal:
        mask = jnp.tril(jnp.ones((s, s), dtype=bool))
        scores = jnp.where(mask, scores, np.float32(-1e9))
    probs = jax.nn.softmax(scores, axis=-1)
    out = jnp.einsum("bhqk,bkhd->bqhd", probs, v).reshape(b, s, d)
    return out @ wo


def gpt_block(x, ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b, w1, b1, w2, b2, heads, causal):
    x = x + attention(layer_norm(x, ln1_g, ln1_b), wq, wk, wv, wo, heads, causal)
    h = jax.nn.gelu(layer_norm(x, ln2_g, ln2_b) @ w1 + b1)
    return x + h @ w2 + b2


def fwd_bwd(fn):
    """The loss mean(fn(x, *params)^2) and its gradients with respect to x and every parameter."""
    loss = lambda *a: jnp.mean(fn(*a) ** 2)
    return lambda *a: jax.value_and_grad(loss, argnums=tuple(range(len(a))))(*a)


def transformer_workloads(scale):
    # small: batch 2, seq 128, d_model 256, 4 heads; full: batch 2, seq 512, d_model 512, 8 heads.
    b, s, d, heads = (2, 512, 512, 8) if scale == "full" else (2, 128, 256, 4)
    w = []
    mha_args = rng_inputs(9, [((b, s, d), "f")] + [((d, d), "f")] * 4)
    block_args = rng_inputs(10, [((b, s, d), "f"), ((d,), "one"), ((d,), "f")] + [((d, d), "f")] * 4 +
                            [((d,), "one"), ((d,), "f"), ((d, 4 * d), "f"), ((4 * d,), "f"), ((4 * d, d), "f"),
                             ((d,), "f")])
    for causal in (False, True):
        suffix = "_causal" if causal else ""
        mha = lambda *a, c=causal: attention(*a, heads=heads, causal=c)
        block = lambda *a, c=causal: gpt_block(*a, heads=heads, causal=c)
        w.append(("mha_fwd" + suffix, "transformer", mha, mha_args, None))
        w.append(("mha_fwd_bwd" + suffix, "transformer", fwd_bwd(mha), mha_args, None))
        w.append(("gpt_block_fwd" + suffix, "transformer", block, block_args, None))
        w.append(("gpt_block_fwd_bwd" + suffix, "transformer", fwd_bwd(block), block_args, None))
    return w


def extra_workloads(scale):
    """Workloads outside the sixteen of #26's table (--extras): topk, as a sampling step
    (one row of logits, k = 10) and over a batch of a vocabulary's logits (k = 8); Fourier
    transforms (a convolution through rfft/irfft, the magnitude of a 2-D fft), which XLA
    runs with ducc and Fusebox with FFTW; and jax's LAPACK calls (QR, eigvalsh, pinv
    through the SVD; solve, inv and cho_solve through LU or Cholesky and triangular
    solves), which XLA and Fusebox hand to LAPACK and BLAS (docs/xla-gpu-modules.md;
    compare_xla_fusebox --no-cpu-libraries times Fusebox's own loops instead). The linear
    algebra outputs do not depend on the sign choices of eigen- and singular vectors."""
    n = 50000 if scale == "full" else 5000
    rows, vocab = (128, 32000) if scale == "full" else (16, 4000)
    signals, length = (64, 4096) if scale == "full" else (16, 1024)
    images, side = (8, 256) if scale == "full" else (4, 64)
    batch, tall, wide = (16, 128, 64) if scale == "full" else (4, 32, 16)
    # A symmetric positive definite system through Cholesky (potrf, then two trsm).
    spd = lambda a: a @ jnp.swapaxes(a, -1, -2) + jnp.eye(tall, dtype=a.dtype)
    cho_solve = lambda a, b: jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(spd(a)), b)
    convolve = lambda a, b: jnp.fft.irfft(jnp.fft.rfft(a, 2 * length) * jnp.fft.rfft(b, 2 * length), 2 * length)
    return [
        ("topk_logits", "extra", lambda x: jax.lax.top_k(x, 10), rng_inputs(11, [((1, n), "f")]), None),
        ("topk_batch", "extra", lambda x: jax.lax.top_k(x, 8), rng_inputs(12, [((rows, vocab), "f")]), None),
        ("fft_convolution", "extra", convolve, rng_inputs(14, [((signals, length), "f")] * 2), None),
        ("fft2_magnitude", "extra", lambda x: jnp.abs(jnp.fft.fft2(x)), rng_inputs(15, [((images, side, side), "f")]), None),
        ("qr", "extra", jnp.linalg.qr, rng_inputs(16, [((batch, tall, wide), "f")]), None),
        ("eigvalsh", "extra", lambda a: jnp.linalg.eigvalsh(a + jnp.swapaxes(a, -1, -2)),
         rng_inputs(17, [((batch // 2, wide, wide), "f")]), None),
        ("pinv", "extra", jnp.linalg.pinv, rng_inputs(18, [((batch, tall, wide), "f")]), None),
        ("solve", "extra", lambda a, b: jnp.linalg.solve(a + 3 * jnp.eye(tall, dtype=a.dtype), b),
         rng_inputs(19, [((batch, tall, tall), "f"), ((batch, tall, 16), "f")]), None),
        ("inv", "extra", lambda a: jnp.linalg.inv(a + 3 * jnp.eye(tall, dtype=a.dtype)),
         rng_inputs(20, [((batch, tall, tall), "f")]), None),
        ("cho_solve", "extra", cho_solve, rng_inputs(21, [((batch, tall, tall), "f"), ((batch, tall, 16), "f")]), None),
    ]


def gpu_extra_workloads(scale):
    """GPU-only workloads outside #26's table (compare_xla_gpu.py --extras): jax's cuDNN
    flash attention. `implementation="cudnn"` lowers to __cudnn$fmha* custom calls (forward,
    and backward for the gradients), which XLA runs as cuDNN's fused kernels and Fusebox as
    the dots, mask and softmax they stand for (docs/xla-gpu-modules.md): causal, bf16,
    [batch, seq, heads, head_dim]. jax lowers this form only for CUDA."""
    import ml_dtypes  # jax's own dependency: numpy's bfloat16

    b, t, n, h = (4, 2048, 16, 64) if scale == "full" else (2, 256, 4, 64)
    args = [x.astype(ml_dtypes.bfloat16) for x in rng_inputs(13, [((b, t, n, h), "f")] * 3)]
    attend = lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation="cudnn")
    return [
        ("attention_cudnn", "extra", attend, args, None),
        ("attention_cudnn_fwd_bwd", "extra", fwd_bwd(attend), args, None),
    ]


def rng_inputs(seed, shapes):
    rng = np.random.default_rng(seed)
    out = []
    for shape, kind in shapes:
        if kind == "labels":
            out.append(rng.integers(0, shape[1], size=shape[0]).astype(np.int32))
        elif kind == "step":
            out.append(np.int32(3))
        elif kind == "one":  # a layer norm's scale: near 1
            out.append((1.0 + rng.standard_normal(shape) * 0.1).astype(np.float32))
        else:
            out.append((rng.standard_normal(shape) * 0.1).astype(np.float32))
    return out


def workloads(scale):
    n = 4096 if scale == "full" else 1024
    w = []
    # (name, class, function, flat args, how args map to the function)
    w.append(("reduce_sum", "elementwise/reduction", sp.reduce_sum,
              rng_inputs(1, [((n, n), "f")] * 3), None))
    w.append(("running_example", "elementwise/reduction", sp.running_example,
              rng_inputs(2, [((n, n), "f")] * 2), None))
    w.append(("elementwise", "elementwise/reduction", elementwise, rng_inputs(3, [((n, n), "f")] * 3), None))
    w.append(("softmax", "elementwise/reduction", softmax, rng_inputs(4, [((n, 1024), "f")]), None))
    w.append(("layer_norm", "elementwise/reduction", layer_norm,
              rng_inputs(5, [((n, 1024), "f"), ((1024,), "f"), ((1024,), "f")]), None))
    mlp = rng_inputs(6, [((784, 512), "f"), ((512,), "f"), ((512, 512), "f"), ((512,), "f"), ((512, 10), "f"),
                         ((10,), "f"), ((256, 784), "f"), ((256, 10), "labels")])
    w.append(("mlp_train_step", "dot/conv", lambda *a: mlp_train_step(tuple(a[:6]), a[6], a[7]), mlp, None))
    mn = rng_inputs(7, [((784, 10), "f"), ((10,), "f"), ((784, 10), "f"), ((10,), "f"), ((784, 10), "f"),
                        ((10,), "f"), ((), "step"), ((128, 784), "f"), ((128, 10), "labels")])
    w.append(("mnist_train_step", "dot/conv",
              lambda *a: sp.mnist_train_step(tuple(a[0:2]), tuple(a[2:4]), tuple(a[4:6]), a[6], a[7], a[8]), mn, None))
    cnn = rng_inputs(8, [((3, 3, 3, 16), "f"), ((16,), "f"), ((3, 3, 16, 32), "f"), ((32,), "f"), ((2048, 10), "f"),
                         ((10,), "f"), ((32, 32, 32, 3), "f"), ((32, 10), "labels")])
    w.append(("cnn_train_step", "dot/conv", lambda *a: sp.cifar_cnn_train_step(tuple(a[:6]), a[6], a[7]), cnn, None))
    return w + transformer_workloads(scale)


def time_xla(fn, args, iterations, compile_repeats):
    device_args = [jax.device_put(a) for a in args]
    jitted = jax.jit(fn)
    t0 = time.perf_counter()
    lowered = jitted.lower(*device_args)
    t1 = time.perf_counter()
    compiled = lowered.compile()
    t2 = time.perf_counter()
    # XLA's compile time is the median of this compile and `compile_repeats` more, each of
    # a fresh jit wrapper's lowering (a new module object: jax's in-memory caches miss and
    # XLA compiles again), as Fusebox's is the median of its repeats.
    compiles = [t2 - t1]
    for _ in range(compile_repeats):
        again = jax.jit(lambda *a: fn(*a)).lower(*device_args)
        s = time.perf_counter()
        again.compile()
        compiles.append(time.perf_counter() - s)
    compiles.sort()
    out = compiled(*device_args)
    jax.block_until_ready(out)  # warm-up
    times = []
    for _ in range(iterations):
        s = time.perf_counter()
        jax.block_until_ready(compiled(*device_args))
        times.append(time.perf_counter() - s)
    times.sort()
    flat = jax.tree.leaves(out)
    return lowered, {"lower_s": t1 - t0, "compile_s": compiles[len(compiles) // 2], "compile_first_s": t2 - t1,
                     "run_min": times[0],
                     "run_median": times[len(times) // 2]}, [np.asarray(o) for o in flat]


def time_dispatch(iterations):
    """jax's own cost of one call: a compiled scalar add, timed as the workloads are."""
    x = jax.device_put(np.float32(1.0))
    compiled = jax.jit(lambda v: v + 1.0).lower(x).compile()
    jax.block_until_ready(compiled(x))
    times = []
    for _ in range(max(20, iterations)):
        s = time.perf_counter()
        jax.block_until_ready(compiled(x))
        times.append(time.perf_counter() - s)
    times.sort()
    return times[len(times) // 2]


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def write_case(workdir, name, lowered, flat_args, outs):
    """Writes the module as jax lowered it, its inputs and XLA's outputs; returns their paths."""
    hlo = os.path.join(workdir, name + ".hlo")
    with open(hlo, "w") as f:
        f.write(lowered.as_text(dialect="hlo"))
    inputs = []
    for i, a in enumerate(flat_args):
        path = os.path.join(workdir, f"{name}.input_{i}.npy")
        np.save(path, np.asarray(a))
        inputs.append(path)
    expected = []
    for i, o in enumerate(outs):
        path = os.path.join(workdir, f"{name}.output_{i}.npy")
        np.save(path, o)
        expected.append(path)
    return hlo, inputs, expected


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fusebox", required=True, help="path of compare_xla_fusebox")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--scale", choices=["full", "small"], default="full")
    p.add_argument("--only", default="", help="comma-separated workload names")
    p.add_argument("--json", default="", help="write the results here")
    p.add_argument("--extras", action="store_true", help="also the workloads outside #26's table (topk)")
    p.add_argument("--workdir", default="", help="keep the HLO, inputs and outputs here")
    p.add_argument("--compile-repeats", type=int, default=3,
                   help="Fusebox parses, runs its HLO passes on and compiles each module this many times after "
                        "a first, cold time, the sum of the three steps' medians being its compile time; XLA compiles it this many more times after its first, the "
                        "median of all being XLA's (in a process that has compiled before)")
    p.add_argument("--mode", choices=["fair", "reuse"], default="fair",
                   help="fair (default): Fusebox allocates each call's output and temporaries in ordinary "
                        "memory as XLA does; reuse: Fusebox reuses them across calls (its own way)")
    p.add_argument("--rounds", type=int, default=3,
                   help="time XLA and Fusebox back to back this many times per workload; the ratios are "
                        "medians of the rounds' ratios, printed with their range")
    args = p.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="fusebox_compare_xla_")
    os.makedirs(workdir, exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    results = []
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, {os.cpu_count()} CPUs; mode {args.mode}; "
          f"work folder {workdir}", flush=True)
    for name, klass, fn, flat_args, _ in workloads(args.scale) + (extra_workloads(args.scale) if args.extras else []):
        if only and name not in only:
            continue
        rounds = []
        for r in range(max(1, args.rounds)):
            lowered, xla, outs = time_xla(fn, flat_args, args.iterations, args.compile_repeats)
            xla["dispatch_s"] = time_dispatch(args.iterations)
            if r == 0:
                hlo, inputs, expected = write_case(workdir, name, lowered, flat_args, outs)
            cmd = [args.fusebox, "--hlo", hlo, "--inputs", ",".join(inputs), "--expected", ",".join(expected),
                   "--iterations", str(args.iterations), "--compile-repeats", str(args.compile_repeats),
                   "--mode", args.mode]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            try:
                fb = json.loads(proc.stdout.strip().splitlines()[-1])
            except (ValueError, IndexError):
                fb = {"error": (proc.stdout + proc.stderr).strip()[-400:]}
            rounds.append((xla, fb))
            if "error" in fb:
                break
        xla, fb = rounds[-1]
        row = {"name": name, "class": klass, "xla": xla, "fusebox": fb}
        results.append(row)
        if "error" in fb:
            print(f"{name:25s} fusebox failed: {fb['error']}", flush=True)
            continue
        # Each round times XLA and then Fusebox, back to back; the ratios are taken per round
        # and their median reported (with the range), so that a slow spell of a shared
        # machine falls on both sides of a ratio rather than on one.
        speed = sorted(x["run_median"] / f["run_s"]["median"] for x, f in rounds)
        # XLA's time less jax's dispatch floor, against Fusebox's C++ call.
        compute = sorted(max(x["run_median"] - x["dispatch_s"], 1e-9) / f["run_s"]["median"] for x, f in rounds)
        comp = sorted(x["compile_s"] / f["compile_s"]["total"] for x, f in rounds)
        row["rounds"] = [{"xla": x, "fusebox": f} for x, f in rounds]
        row["speed_ratio"] = median(speed)
        row["compile_ratio"] = median(comp)
        row["speed_ratio_range"] = [speed[0], speed[-1]]
        row["compute_ratio"] = median(compute)
        row["compute_ratio_range"] = [compute[0], compute[-1]]
        row["mode"] = args.mode
        row["compile_ratio_range"] = [comp[0], comp[-1]]
        x_run = median([x["run_median"] for x, _ in rounds])
        f_run = median([f["run_s"]["median"] for _, f in rounds])
        x_comp = median([x["compile_s"] for x, _ in rounds])
        f_comp = median([f["compile_s"]["total"] for _, f in rounds])
        spread = lambda r: f" [{r[0]:.2f}-{r[1]:.2f}]" if len(rounds) > 1 else ""
        steps = fb.get("compile_steps_s", {})
        match = all(f.get("match") for _, f in rounds)
        x_dispatch = median([x["dispatch_s"] for x, _ in rounds])
        print(f"{name:25s} {klass:22s} XLA {x_run * 1e3:9.3f} ms (dispatch {x_dispatch * 1e3:.3f})  Fusebox "
              f"{f_run * 1e3:9.3f} ms  ratio {row['speed_ratio']:5.2f}{spread(row['speed_ratio_range'])} "
              f"compute ratio {row['compute_ratio']:5.2f}{spread(row['compute_ratio_range'])}   compile XLA "
              f"{x_comp * 1e3:7.1f} ms Fusebox {f_comp * 1e3:7.1f} ms "
              f"(ratio {row['compile_ratio']:5.2f}{spread(row['compile_ratio_range'])}; cold {fb.get('cold_codegen_and_jit_s', 0) * 1e3:6.1f} ms)"
              f"   kernels {fb['kernels']}   outputs {'agree' if match else 'DIFFER'}", flush=True)
        print(f"{'':25s} Fusebox compile steps (ms): parse {fb['compile_s']['parse'] * 1e3:.2f}, HLO passes "
              f"{fb['compile_s']['pipeline'] * 1e3:.2f}, "
              + ", ".join(f"{k} {v * 1e3:.2f}" for k, v in steps.items())
              + f" on {fb.get('compile_threads', 1)} thread(s)", flush=True)
        row["fusebox"]["match"] = match
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    bad = [r["name"] for r in results if "error" in r["fusebox"] or not r["fusebox"].get("match")]
    if bad:
        print("outputs differ or failed:", ", ".join(bad))


if __name__ == "__main__":
    main()
