"""Writes the jax-made modules the numeric check's tests run (tests/data/check/).

  mlp_logsoftmax.hlo   two-layer MLP, f32[256,784] -> 512 -> 10, bias, relu, log-softmax,
                       and the mean: outputs of magnitude up to a few hundred whose small
                       elements come from cancelling large intermediates (a fixed
                       tolerance raised false alarms on it).
  resnet_block.hlo     ResNet-style inference: conv + batch norm (mean, variance, scale and
                       offset as parameters) + relu, a residual block, max pooling, global
                       average pooling and a dense layer; the variances only reach rsqrt
                       through `var + eps`, so random inputs must keep them positive.

Usage: scripts/make_check_models.sh (makes a throwaway venv with jax 0.10.2).
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else "tests/data/check"


def write(name, fn, *args):
    text = jax.jit(fn).lower(*args).as_text(dialect="hlo")
    with open(os.path.join(OUT, name), "w") as f:
        f.write(text)
    print("wrote", name, len(text), "bytes")


def mlp(x, w1, b1, w2, b2):
    h = jax.nn.relu(x @ w1 + b1)
    logits = h @ w2 + b2
    out = jax.nn.log_softmax(logits, axis=-1)
    return out, jnp.mean(out)


def conv(x, w):
    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def batch_norm(x, p):
    gamma, beta, mean, var = p
    return (x - mean) * jax.lax.rsqrt(var + 1e-3) * gamma + beta


def resnet(x, w0, bn0, w1, bn1, w2, bn2, wd, bd):
    h = jax.nn.relu(batch_norm(conv(x, w0), bn0))
    r = jax.nn.relu(batch_norm(conv(h, w1), bn1))
    r = batch_norm(conv(r, w2), bn2)
    h = jax.nn.relu(h + r)
    h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = jnp.mean(h, axis=(1, 2))
    return h @ wd + bd


def main():
    os.makedirs(OUT, exist_ok=True)
    f32 = jnp.float32
    s = jax.ShapeDtypeStruct
    write("mlp_logsoftmax.hlo", mlp, s((256, 784), f32), s((784, 512), f32), s((512,), f32),
          s((512, 10), f32), s((10,), f32))
    c = 16
    bn = (s((c,), f32),) * 4
    write("resnet_block.hlo", resnet, s((2, 16, 16, 3), f32), s((3, 3, 3, c), f32), bn,
          s((3, 3, c, c), f32), bn, s((3, 3, c, c), f32), bn, s((c, 10), f32), s((10,), f32))


if __name__ == "__main__":
    main()
