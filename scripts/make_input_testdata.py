#!/usr/bin/env python3
"""Writes the input fixtures of `fusebox run --inputs` (tests/data/inputs/): a small
batch-norm module dumped by XLA with its HloSnapshot, and .npz archives made by NumPy.

Needs jax (CPU) and numpy; run it in a throwaway virtualenv:
    python3 -m venv /tmp/jaxvenv && /tmp/jaxvenv/bin/pip install jax==0.10.2 numpy
    /tmp/jaxvenv/bin/python scripts/make_input_testdata.py
(it re-runs itself with XLA_FLAGS set so that XLA dumps the module and the snapshot).
It writes into tests/data/inputs/ (or --out DIR):
  batch_norm/                 an XLA dump folder, trimmed to what the tests read:
    module_0000.jit_batch_norm.before_optimizations.txt
    module_0000.jit_batch_norm.snapshot.<N>.pb   (--xla_dump_hlo_snapshots; renamed to N=0)
  batch_norm_expected.npy     jax's result on the snapshot's arguments
  batch_norm_positional.npz   np.savez(x, mean, var, scale, offset): arr_0 .. arr_4
  batch_norm_named.npz        np.savez_compressed(x=..., mean=..., ...): by name, deflated
  bad_extra.npz               six positional arrays for five parameters
  bad_shape.npz               positional, var with 4 elements instead of 8
  bad_dtype.npz               positional, x as float64
The C++ build and tests use only the committed outputs, never Python.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np


def batch_norm(x, mean, var, scale, offset):
    import jax
    return (x - mean) * jax.lax.rsqrt(var + 1e-3) * scale + offset


def arrays():
    rng = np.random.default_rng(22)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    mean = rng.standard_normal(8).astype(np.float32)
    var = rng.uniform(0.5, 2.0, 8).astype(np.float32)
    scale = rng.standard_normal(8).astype(np.float32)
    offset = rng.standard_normal(8).astype(np.float32)
    return x, mean, var, scale, offset


def child(out):
    import jax
    result = jax.jit(batch_norm)(*arrays())
    np.save(os.path.join(out, "batch_norm_expected.npy"), np.asarray(result))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..",
                                                      "tests", "data", "inputs"))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    if args.child:
        child(out)
        return

    with tempfile.TemporaryDirectory() as dump:
        env = dict(os.environ, JAX_PLATFORMS="cpu",
                   XLA_FLAGS=f"--xla_dump_to={dump} --xla_dump_hlo_snapshots --xla_dump_hlo_as_text")
        subprocess.run([sys.executable, __file__, "--child", "--out", out], env=env, check=True)
        folder = os.path.join(out, "batch_norm")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        shutil.copy(glob.glob(os.path.join(dump, "*.before_optimizations.txt"))[0], folder)
        snapshot = glob.glob(os.path.join(dump, "*.snapshot.*.pb"))[0]
        shutil.copy(snapshot, os.path.join(folder, "module_0000.jit_batch_norm.snapshot.0.pb"))

    x, mean, var, scale, offset = arrays()
    np.savez(os.path.join(out, "batch_norm_positional.npz"), x, mean, var, scale, offset)
    np.savez_compressed(os.path.join(out, "batch_norm_named.npz"), x=x, mean=mean, var=var,
                        scale=scale, offset=offset)
    np.savez(os.path.join(out, "bad_extra.npz"), x, mean, var, scale, offset, offset)
    np.savez(os.path.join(out, "bad_shape.npz"), x, mean, var[:4], scale, offset)
    np.savez(os.path.join(out, "bad_dtype.npz"), x.astype(np.float64), mean, var, scale, offset)


if __name__ == "__main__":
    main()
