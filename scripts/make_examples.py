#!/usr/bin/env python3
"""Writes Fusebox's bundled example HLO modules, produced by the real XLA (jax).

Run through scripts/make_examples.sh, which makes a throwaway virtualenv with jax.
For each example program it writes, into assets/examples/ (or --out DIR):
  <name>.hlo                            the module before optimizations, exactly as
                                        XLA's --xla_dump_to writes *.before_optimizations.txt
  xla_cpu/<name>.after_optimizations.hlo  XLA CPU's optimized module
                                        (jax.jit(f).lower(...).compile().as_text())
Programs only get lowered and compiled, never run, so the big shapes cost nothing.
"""
import argparse
import glob
import os
import re
import shutil
import sys
import tempfile

# The dump directory must be in XLA_FLAGS before jax (and XLA) is loaded.
_DUMP_DIR = tempfile.mkdtemp(prefix="fusebox-xla-dump-")
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           f" --xla_dump_to={_DUMP_DIR} --xla_dump_hlo_as_text").strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

# Source locations in the HLO (the FileNames table) name this script relative to
# the repository root, so the output does not depend on where the checkout lives.
_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
jax.config.update("jax_hlo_source_file_canonicalization_regex",
                  "^" + re.escape(_REPO_ROOT + os.sep))

f32 = jnp.float32
s32 = jnp.int32


def spec(shape, dtype=f32):
    return jax.ShapeDtypeStruct(shape, dtype)


# ---------------------------------------------------------------- reduce_sum
def reduce_sum(x, y, z):
    return jnp.sum(x + y * z)


# ----------------------------------------------------------- running_example
def running_example(x, y):
    return jnp.mean(x ** 2 * 3 + y)


# ------------------------------------------------------------ shared pieces
def softmax_xent(logits, labels):
    """Mean softmax cross-entropy with integer labels."""
    logp = jax.nn.log_softmax(logits, axis=-1)
    onehot = jax.nn.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
    return -jnp.mean(jnp.sum(onehot * logp, axis=-1))


def adam(params, grads, m, v, step, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """One Adam step over matching pytrees; step is the s32 count before it."""
    t = (step + 1).astype(f32)
    m = jax.tree.map(lambda m_, g: b1 * m_ + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v_, g: b2 * v_ + (1 - b2) * g * g, v, grads)
    mhat_scale = 1.0 / (1.0 - b1 ** t)
    vhat_scale = 1.0 / (1.0 - b2 ** t)
    params = jax.tree.map(
        lambda p, m_, v_: p - lr * (m_ * mhat_scale) / (jnp.sqrt(v_ * vhat_scale) + eps),
        params, m, v)
    return params, m, v, step + 1


# ---------------------------------------------------------- mnist_train_step
def mnist_loss(params, images, labels):
    w, b = params
    logits = images @ w + b
    return softmax_xent(logits, labels)


def mnist_train_step(params, m, v, step, images, labels):
    loss, grads = jax.value_and_grad(mnist_loss)(params, images, labels)
    params, m, v, step = adam(params, grads, m, v, step)
    return params, m, v, step, loss


# ------------------------------------------------------ cifar_cnn_train_step
def conv(x, w, b):
    y = lax.conv_general_dilated(x, w, window_strides=(1, 1), padding="SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return y + b


def maxpool2x2(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, window_dimensions=(1, 2, 2, 1),
                             window_strides=(1, 2, 2, 1), padding="VALID")


def cnn_loss(params, images, labels):
    w1, b1, w2, b2, w3, b3 = params
    h = maxpool2x2(jax.nn.relu(conv(images, w1, b1)))   # [32,16,16,16]
    h = maxpool2x2(jax.nn.relu(conv(h, w2, b2)))        # [32,8,8,32]
    h = h.reshape(h.shape[0], -1)                       # [32,2048]
    logits = h @ w3 + b3                                # [32,10]
    return softmax_xent(logits, labels)


def cifar_cnn_train_step(params, images, labels, lr=0.01):
    loss, grads = jax.value_and_grad(cnn_loss)(params, images, labels)
    params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return params, loss


MNIST_PARAMS = (spec((784, 10)), spec((10,)))
CNN_PARAMS = (spec((3, 3, 3, 16)), spec((16,)), spec((3, 3, 16, 32)), spec((32,)),
              spec((8 * 8 * 32, 10)), spec((10,)))

EXAMPLES = [
    ("reduce_sum", reduce_sum,
     (spec((1024, 1024)), spec((1024, 1024)), spec((1024, 1024)))),
    ("running_example", running_example, (spec((16384, 16384)), spec((16384, 16384)))),
    ("mnist_train_step", mnist_train_step,
     (MNIST_PARAMS, MNIST_PARAMS, MNIST_PARAMS, spec((), s32),
      spec((128, 784)), spec((128,), s32))),
    ("cifar_cnn_train_step", cifar_cnn_train_step,
     (CNN_PARAMS, spec((32, 32, 32, 3)), spec((32,), s32))),
]


def dumped(jit_name, suffix):
    """The one dump file of jit_<name> ending in suffix."""
    hits = sorted(glob.glob(os.path.join(_DUMP_DIR, f"module_*.jit_{jit_name}.{suffix}")))
    if len(hits) != 1:
        sys.exit(f"make_examples: expected one dump file for jit_{jit_name}.{suffix}, "
                 f"found {hits}")
    with open(hits[0]) as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(_REPO_ROOT, "assets", "examples"))
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "xla_cpu"), exist_ok=True)

    try:
        for name, fn, arg_specs in EXAMPLES:
            # The function's own name becomes the module name: jit_<name>.
            compiled = jax.jit(fn).lower(*arg_specs).compile()
            before = dumped(name, "before_optimizations.txt")
            after = compiled.as_text()
            for path, text in ((os.path.join(out, f"{name}.hlo"), before),
                               (os.path.join(out, "xla_cpu",
                                             f"{name}.after_optimizations.hlo"), after)):
                with open(path, "w") as f:
                    f.write(text)
                print(f"wrote {os.path.relpath(path)} ({len(text)} bytes)")
    finally:
        shutil.rmtree(_DUMP_DIR, ignore_errors=True)
    import jaxlib
    print(f"jax {jax.__version__}, jaxlib {jaxlib.__version__}")


if __name__ == "__main__":
    main()
