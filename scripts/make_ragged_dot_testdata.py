"""Writes tests/data/ragged_dot/: jax's HLO of lax.ragged_dot (a mixture of experts'
grouped matmul) as jax lowers it for CUDA, where it stays the `ragged-dot` op (on the CPU
jax expands it itself), with inputs and what jax computes for the same function on the CPU.

Each case NAME gives NAME.hlo, NAME.inI.npy (one per parameter) and NAME.outI.npy. Run
from a virtual environment with jax (pinned 0.10.2 on the CPU):
    python scripts/make_ragged_dot_testdata.py
"""
import os
import re

import jax
import jax.numpy as jnp
import numpy as np

from hlo_cases import write_case

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "ragged_dot")
rng = np.random.default_rng(11)


def write(name, fn, args):
    text = jax.jit(fn).trace(*args).lower(lowering_platforms=("cuda",)).as_text(dialect="hlo")
    write_case(OUT, name, text, args, jax.jit(fn)(*args))
    print(name, len(re.findall(r" ragged-dot\(", text)), "ragged-dot")


def main():
    os.makedirs(OUT, exist_ok=True)
    tokens = rng.standard_normal((24, 16)).astype(np.float32)
    experts = rng.standard_normal((4, 16, 8)).astype(np.float32)
    # Four experts; the groups cover 21 of the 24 rows (the last three belong to none: zeros),
    # one expert gets no token.
    sizes = np.array([7, 0, 9, 5], np.int32)
    write("forward", lambda x, w, g: jax.lax.ragged_dot(x, w, g), (tokens, experts, sizes))
    # A training step's gradients: with respect to the tokens (a ragged-dot against the
    # experts' transposes) and to the experts (ragged in the contracted rows).
    loss = lambda x, w, g: (jnp.tanh(jax.lax.ragged_dot(x, w, g)) ** 2).sum()
    write("gradients", lambda x, w, g: jax.grad(loss, argnums=(0, 1))(x, w, g), (tokens, experts, sizes))


if __name__ == "__main__":
    main()
