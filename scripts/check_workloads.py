"""Runs `fusebox run --check` (fused and unfused, CPU) and `--expected` (XLA's own
outputs) on every workload of bench/compare_xla, with the inputs compare_xla uses.

Usage: scripts/check_workloads.sh [--scale small|full] [--only a,b]
Prints one line per workload and mode with the check's summary; exits 1 if any fails.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import jax

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench", "compare_xla"))
import compare_xla as cx  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scale", default="small", choices=["small", "full"])
    p.add_argument("--only", default="")
    p.add_argument("--fusebox", default=os.path.join(HERE, "..", "build", "release", "app", "fusebox"))
    args = p.parse_args()
    only = set(filter(None, args.only.split(",")))
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        for name, _, fn, flat_args, _ in cx.workloads(args.scale):
            if only and name not in only:
                continue
            lowered = jax.jit(fn).lower(*flat_args)
            outs = [np.asarray(o) for o in jax.tree.leaves(jax.jit(fn)(*flat_args))]
            hlo, inputs, expected = cx.write_case(work, name, lowered, flat_args, outs)
            base = [args.fusebox, "run", hlo, "--backend", "cpu", "--inputs", ",".join(inputs)]
            for mode, extra in [("fused --check", ["--check"]), ("unfused --check", ["--unfused", "--check"]),
                                ("fused --expected XLA", ["--expected", ",".join(expected)])]:
                r = subprocess.run(base + extra, capture_output=True, text=True)
                lines = [l for l in r.stderr.splitlines() if l.startswith(("check:", "expected:", "error"))]
                print(f"{name:18s} {mode:22s} exit {r.returncode}: {lines[0] if lines else r.stderr[-300:]}")
                bounds = [l.strip() for l in r.stderr.splitlines() if l.startswith("  output")]
                for b in bounds[:3]:
                    print("      " + b[:260])
                failed += r.returncode != 0
    print(f"{failed} failing run(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
