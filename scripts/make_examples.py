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

# Source locations in the HLO (the FileNames table) name this script relative to
# the repository root, so the output does not depend on where the checkout lives.
_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
jax.config.update("jax_hlo_source_file_canonicalization_regex",
                  "^" + re.escape(_REPO_ROOT + os.sep))

f32 = jnp.float32
s32 = jnp.int32


def spec(shape, dtype=f32):
    return jax.ShapeDtypeStruct(shape, dtype)


# The seed programs (shared with scripts/make_dumps.py).
from seed_programs import (cifar_cnn_train_step, mnist_train_step, reduce_sum,  # noqa: E402
                           running_example)


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
