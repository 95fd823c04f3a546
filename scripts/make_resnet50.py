"""Writes bench/data/resnet50_inference.hlo: a Keras-style ResNet-50 (v1, bottleneck
blocks [3, 4, 6, 3], batch norm in inference form with its statistics as parameters)
on one 224x224x3 image, as jax 0.10.2 lowers it. 53 convolutions and 267 parameters:
the size of module issue #26 measures the GPU compile time on.

Usage: scripts/make_resnet50.sh (makes a throwaway venv with jax 0.10.2).
"""
import os
import sys

import jax
import jax.numpy as jnp

OUT = sys.argv[1] if len(sys.argv) > 1 else "bench/data"


def conv(x, w, stride):
    return jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))


def batch_norm(x, p):
    gamma, beta, mean, var = p
    return (x - mean) * jax.lax.rsqrt(var + 1e-3) * gamma + beta


def bottleneck(x, p, stride):
    h = jax.nn.relu(batch_norm(conv(x, p["w1"], 1), p["bn1"]))
    h = jax.nn.relu(batch_norm(conv(h, p["w2"], stride), p["bn2"]))
    h = batch_norm(conv(h, p["w3"], 1), p["bn3"])
    shortcut = x
    if "wp" in p:
        shortcut = batch_norm(conv(x, p["wp"], stride), p["bnp"])
    return jax.nn.relu(h + shortcut)


def resnet50(x, params):
    h = jax.nn.relu(batch_norm(conv(x, params["stem"], 2), params["stem_bn"]))
    h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
    for stage, blocks in enumerate(params["stages"]):
        for i, p in enumerate(blocks):
            h = bottleneck(h, p, 2 if (i == 0 and stage > 0) else 1)
    h = jnp.mean(h, axis=(1, 2))
    return jax.nn.softmax(h @ params["dense_w"] + params["dense_b"])


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
    os.makedirs(OUT, exist_ok=True)
    x, params = shapes()
    text = jax.jit(resnet50).lower(x, params).as_text(dialect="hlo")
    path = os.path.join(OUT, "resnet50_inference.hlo")
    with open(path, "w") as f:
        f.write(text)
    print("wrote", path, len(text), "bytes")


if __name__ == "__main__":
    main()
