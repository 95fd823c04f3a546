"""Writes tests/data/complex/: jax programs that compute with complex numbers (c64 and
c128) through the ops the GPU backend writes out itself (it has no C library): division,
exp, log, sqrt, the trigonometric, hyperbolic and inverse functions, abs, power, complex
dots, convolutions, reductions and FFTs. Each with the inputs and the outputs XLA's CPU
backend gave (glibc's and libgcc's complex arithmetic), for gpu_complex_test to run in the
GPU emulator.

Each case NAME gives NAME.hlo, NAME.inI.npy (one per parameter) and NAME.outI.npy. Run
from a virtual environment with jax (pinned 0.10.2 on the CPU):
    python scripts/make_complex_testdata.py
"""
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from hlo_cases import write_case

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "complex")
rng = np.random.default_rng(11)


def write(name, fn, args):
    text = jax.jit(fn).lower(*args).as_text(dialect="hlo")
    write_case(OUT, name, text, args, jax.jit(fn)(*args))
    print(name, len(text))


def state_step(a, b, theta, x):
    """A small state-vector step: normalize, phase, a unitary (the DFT), measurement
    probabilities and their entropy, and elementwise complex functions of the amplitudes."""
    psi = lax.complex(a, b)
    psi = psi / jnp.linalg.norm(psi, axis=1, keepdims=True)
    phase = jnp.exp(1j * theta)
    u = jnp.fft.fft(jnp.eye(8, dtype=jnp.complex64), norm="ortho")
    out = (psi * phase) @ u
    prob = jnp.abs(out) ** 2
    entropy = -jnp.sum(prob * jnp.log(prob + 1e-12), axis=1)
    ratio = jnp.sqrt(out) / (out + 2)
    inverse = jnp.arctanh(out * 0.5) + jnp.arcsin(out * 0.3) + jnp.arccosh(out + 3) - jnp.arctan(out)
    waves = jnp.tanh(out) * jnp.cos(out) + jnp.sinh(out * 0.5) / jnp.cosh(out) + out ** (0.5 + 0.25j)
    spectrum = jnp.fft.fft(x.astype(jnp.complex64) * phase[None, :], axis=-1)
    return prob, entropy, ratio, inverse, waves, jnp.sum(out, axis=0), spectrum


def filters(x, k):
    """A complex 1-D convolution (a filter bank), then magnitudes and angles."""
    zx = lax.complex(x, jnp.roll(x, 1, axis=1))
    zk = lax.complex(k, -k[::-1])
    y = lax.conv_general_dilated(zx, zk, (1,), "SAME", dimension_numbers=("NCH", "OIH", "NCH"))
    return jnp.abs(y), jnp.angle(y), jnp.log1p(y * 0.1), jnp.expm1(y * 0.1)


def main():
    os.makedirs(OUT, exist_ok=True)
    write("state_step", state_step,
          (rng.standard_normal((16, 8)).astype(np.float32), rng.standard_normal((16, 8)).astype(np.float32),
           rng.uniform(-3, 3, 8).astype(np.float32), rng.standard_normal((4, 8)).astype(np.float32)))
    write("filters", filters,
          (rng.standard_normal((2, 3, 32)).astype(np.float32), rng.standard_normal((4, 3, 5)).astype(np.float32)))
    jax.config.update("jax_enable_x64", True)
    write("state_step_c128", state_step,
          (rng.standard_normal((16, 8)), rng.standard_normal((16, 8)), rng.uniform(-3, 3, 8),
           rng.standard_normal((4, 8))))


if __name__ == "__main__":
    main()
