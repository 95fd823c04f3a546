"""Writes bench/data/resnet50_inference.hlo: a Keras-style ResNet-50 (v1, bottleneck
blocks [3, 4, 6, 3], batch norm in inference form with its statistics as parameters)
on one 224x224x3 image, as jax 0.10.2 lowers it. 53 convolutions and 267 parameters:
the size of module issue #26 measures the GPU compile time on.

With --scoped DIR it writes DIR/resnet50_scoped.hlo instead: the same network with a
jax.named_scope per stage, block and layer and the HLO's metadata kept, so every
instruction's op_name carries its layer path (jit(resnet50)/resnet50/stage2/block1/
conv2/conv_general_dilated), as a Keras or Flax model's does. The fusion graph groups
by those paths (issue #27); tests/data/graph/ holds the file.

Usage: scripts/make_resnet50.sh [--scoped DIR] (makes a throwaway venv with jax 0.10.2).
"""
import os
import sys

import jax
import jax.numpy as jnp

SCOPED = len(sys.argv) > 2 and sys.argv[1] == "--scoped"
OUT = sys.argv[-1] if len(sys.argv) > 1 else "bench/data"


def scope(name):
    """A jax.named_scope in the scoped variant, nothing otherwise (the bench file stays
    as issue #26 measured it)."""
    import contextlib
    return jax.named_scope(name) if SCOPED else contextlib.nullcontext()


def conv(x, w, stride):
    return jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))


def batch_norm(x, p):
    gamma, beta, mean, var = p
    return (x - mean) * jax.lax.rsqrt(var + 1e-3) * gamma + beta


def conv_bn(x, w, bn, stride, name, relu=True):
    """conv -> batch norm (-> relu), each a layer scope as Keras names them."""
    with scope(name):
        h = conv(x, w, stride)
    with scope(name.replace("conv", "bn")):
        h = batch_norm(h, bn)
    if relu:
        with scope(name.replace("conv", "relu")):
            h = jax.nn.relu(h)
    return h


def bottleneck(x, p, stride):
    h = conv_bn(x, p["w1"], p["bn1"], 1, "conv1")
    h = conv_bn(h, p["w2"], p["bn2"], stride, "conv2")
    h = conv_bn(h, p["w3"], p["bn3"], 1, "conv3", relu=False)
    shortcut = x
    if "wp" in p:
        shortcut = conv_bn(x, p["wp"], p["bnp"], stride, "conv_shortcut", relu=False)
    with scope("add"):
        return jax.nn.relu(h + shortcut)


def resnet50(x, params):
    with scope("resnet50"):
        with scope("stem"):
            h = conv_bn(x, params["stem"], params["stem_bn"], 2, "conv1")
            with scope("pool"):
                h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 3, 3, 1),
                                          (1, 2, 2, 1), "SAME")
        for stage, blocks in enumerate(params["stages"]):
            with scope(f"stage{stage + 1}"):
                for i, p in enumerate(blocks):
                    with scope(f"block{i + 1}"):
                        h = bottleneck(h, p, 2 if (i == 0 and stage > 0) else 1)
        with scope("head"):
            with scope("avg_pool"):
                h = jnp.mean(h, axis=(1, 2))
            with scope("dense"):
                h = h @ params["dense_w"] + params["dense_b"]
            with scope("softmax"):
                return jax.nn.softmax(h)


def shapes():
    f32 = jnp.float32
    s = jax.ShapeDtypeStruct

    def bn(c):
        return (s((c,), f32),) * 4

    params = {"stem": s((7, 7, 3, 64), f32), "stem_bn": bn(64), "stages": []}
    cin = 64
    for width, count in ((64, 3), (128, 4), (256, 6), (512, 3)):
        blocks = []
        for i in range(count):
            p = {"w1": s((1, 1, cin, width), f32), "bn1": bn(width),
                 "w2": s((3, 3, width, width), f32), "bn2": bn(width),
                 "w3": s((1, 1, width, 4 * width), f32), "bn3": bn(4 * width)}
            if i == 0:
                p["wp"] = s((1, 1, cin, 4 * width), f32)
                p["bnp"] = bn(4 * width)
            blocks.append(p)
            cin = 4 * width
        params["stages"].append(blocks)
    params["dense_w"] = s((2048, 1000), f32)
    params["dense_b"] = s((1000,), f32)
    return s((1, 224, 224, 3), f32), params


def main():
    if SCOPED:
        # Source locations relative to the repository root, not this checkout's path.
        import re
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        jax.config.update("jax_hlo_source_file_canonicalization_regex",
                          "^" + re.escape(root + os.sep))
    os.makedirs(OUT, exist_ok=True)
    x, params = shapes()
    text = jax.jit(resnet50).lower(x, params).as_text(dialect="hlo", debug_info=SCOPED)
    path = os.path.join(OUT, "resnet50_scoped.hlo" if SCOPED else "resnet50_inference.hlo")
    with open(path, "w") as f:
        f.write(text)
    print("wrote", path, len(text), "bytes")


if __name__ == "__main__":
    main()
