"""Writes tests/data/fft/: jax's HLO of programs with Fourier transforms (the `fft` op: XLA
runs it with ducc on the CPU, cuFFT on the GPU), with inputs and the outputs XLA's CPU
backend gave for them.

Each case NAME gives NAME.hlo, NAME.inI.npy (one per parameter) and NAME.outI.npy. Run
from a virtual environment with jax (pinned 0.10.2 on the CPU):
    python scripts/make_fft_testdata.py
"""
import os

import jax
import jax.numpy as jnp
import numpy as np

from hlo_cases import write_case

jax.config.update("jax_enable_x64", True)  # for the c128 case; the others say their types
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "fft")
rng = np.random.default_rng(7)


def complex_normal(*shape, dtype=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def real_normal(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def write(name, fn, args):
    text = jax.jit(fn).lower(*args).as_text(dialect="hlo")
    write_case(OUT, name, text, args, jax.jit(fn)(*args))
    print(name, [line.split("fft(")[1].split(")")[1].strip(", ") for line in text.splitlines() if " fft(" in line])


def main():
    os.makedirs(OUT, exist_ok=True)
    # 1000 = 8 x 125 (Cooley-Tukey, 125 = 5 x 25 nested).
    write("ifft_1000", jnp.fft.ifft, (complex_normal(2, 1000),))
    # A prime longer than one dot takes: Bluestein's chirp.
    write("fft_prime_1009", jnp.fft.fft, (complex_normal(2, 1009),))
    # Real-to-complex in two dimensions, and complex-to-real of an odd length.
    write("rfft2", jnp.fft.rfft2, (real_normal(2, 32, 48),))
    write("irfft_odd", lambda x: jnp.fft.irfft(x, n=45), (complex_normal(3, 23),))
    # Three dimensions at once, and double precision.
    write("fftn_3d", lambda x: jnp.fft.fftn(x, axes=(1, 2, 3)), (complex_normal(2, 6, 10, 12),))
    write("fft2_c128", jnp.fft.fft2, (complex_normal(2, 12, 20, dtype=np.complex128),))
    # A convolution through the frequency domain (zero-padded rfft, product, irfft).
    write("fft_convolution", lambda a, b: jnp.fft.irfft(jnp.fft.rfft(a, 512) * jnp.fft.rfft(b, 512), 512),
          (real_normal(4, 300), real_normal(4, 200)))


if __name__ == "__main__":
    main()
