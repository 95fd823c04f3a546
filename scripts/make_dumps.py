#!/usr/bin/env python3
"""Runs one Fusebox seed program under jax so that XLA writes its dump folder.

Called by scripts/make_dumps.sh, once per program and in a fresh process each time:
XLA reads XLA_FLAGS (which carries --xla_dump_to) only once, when it is first loaded.
  make_dumps.py run PROGRAM    jit-compile and execute PROGRAM on seeded inputs
  make_dumps.py trim DIR       cut DIR's per-pass snapshots down (see trim())
  make_dumps.py list           print the program names
The programs match scripts/make_examples.py, with smaller shapes for the reductions.
"""
import os
import re
import sys

PROGRAMS = ["reduce_sum", "running_example", "mnist_train_step", "cifar_cnn_train_step"]

# A per-pass snapshot: module_<id>.<name>.<4-digit seq>.<pipeline>.after_<pass>...
_SNAPSHOT = re.compile(r"^(module_\d+)\..*?\.(\d{4})\.[^/]*(?:\.txt|\.hlo\.pb)$")


def run(name):
    import numpy as np
    import jax

    # Source locations inside the HLO name this script relative to the repository root.
    repo_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    jax.config.update("jax_hlo_source_file_canonicalization_regex",
                      "^" + re.escape(repo_root + os.sep))

    f32 = np.float32
    rng = np.random.default_rng(0)

    def rand(*shape):
        return rng.standard_normal(shape).astype(f32)

    def labels(n, classes=10):
        return rng.integers(0, classes, size=(n,)).astype(np.int32)

    from seed_programs import (cifar_cnn_train_step, mnist_train_step, reduce_sum,
                               running_example)

    def mnist_params():
        return (rand(784, 10) * f32(0.01), np.zeros((10,), f32))

    def zeros_like(tree):
        return tuple(np.zeros_like(a) for a in tree)

    def cnn_params():
        return (rand(3, 3, 3, 16) * f32(0.1), np.zeros((16,), f32),
                rand(3, 3, 16, 32) * f32(0.1), np.zeros((32,), f32),
                rand(8 * 8 * 32, 10) * f32(0.01), np.zeros((10,), f32))

    if name == "reduce_sum":
        fn, args = reduce_sum, (rand(256, 256), rand(256, 256), rand(256, 256))
    elif name == "running_example":
        fn, args = running_example, (rand(256, 256), rand(256, 256))
    elif name == "mnist_train_step":
        p = mnist_params()
        fn, args = mnist_train_step, (p, zeros_like(p), zeros_like(p), np.int32(0),
                                      rand(128, 784), labels(128))
    elif name == "cifar_cnn_train_step":
        fn, args = cifar_cnn_train_step, (cnn_params(), rand(32, 32, 32, 3), labels(32))
    else:
        sys.exit(f"make_dumps: unknown program {name!r}; known: {' '.join(PROGRAMS)}")

    # The function's own name becomes the module name: jit_<name>. Inputs are numpy
    # arrays, so no helper jit modules get compiled just to build them.
    out = jax.jit(fn)(*args)
    jax.block_until_ready(out)
    import jaxlib
    print(f"make_dumps: ran {name} with jax {jax.__version__}, jaxlib {jaxlib.__version__}")


def tree_size(root):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)


def trim(root, max_bytes, keep_snapshots):
    """When root holds more than max_bytes, drops each module's per-pass snapshots
    (.txt and .hlo.pb) numbered keep_snapshots and up. Everything else stays."""
    size = tree_size(root)
    if size <= max_bytes:
        print(f"make_dumps: {root}: {size} bytes, nothing trimmed")
        return
    dropped = 0
    for f in sorted(os.listdir(root)):
        m = _SNAPSHOT.match(f)
        if m and int(m.group(2)) >= keep_snapshots:
            path = os.path.join(root, f)
            dropped += os.path.getsize(path)
            os.remove(path)
    print(f"make_dumps: {root}: {size} bytes, dropped {dropped} bytes of per-pass "
          f"snapshots numbered {keep_snapshots} and up, {tree_size(root)} bytes left")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "run":
        run(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "trim":
        trim(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) == 2 and sys.argv[1] == "list":
        print("\n".join(PROGRAMS))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
