#!/usr/bin/env bash
# Fusebox vs XLA's CPU backend on the same programs, side by side in one run
# (bench/compare_xla/compare_xla.py). jax comes from PyPI into a throwaway virtualenv
# outside the repository; neither the build nor the tests need it.
#   FUSEBOX_JAX_VENV     venv folder        (default /tmp/fusebox-jax-venv)
#   FUSEBOX_JAX_VERSION  jax version to use (default 0.10.2)
# Usage: scripts/compare_xla.sh [--scale full|small] [--iterations N] [--rounds N] [--only a,b] [--json OUT]
#
# On a GPU machine: scripts/compare_xla.sh --backend gpu [--scale ...] [--only ...] [--json OUT]
# runs bench/compare_xla/compare_xla_gpu.py with the python that has jax with CUDA
# (FUSEBOX_JAX_PYTHON, default python3: the GPU machine cannot reach PyPI) against
# build/release/app/fusebox: XLA's GPU backend and Fusebox's on the same GPU.
set -euo pipefail

if [[ "${1:-}" == "--backend" && "${2:-}" == "gpu" ]]; then
  shift 2
  ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  cd "$ROOT"
  [[ -x build/release/app/fusebox ]] || { cmake --preset release >/dev/null && cmake --build --preset release --target fusebox >/dev/null; }
  # jax beside Fusebox on one GPU: no preallocation of 75% of its memory.
  exec env XLA_PYTHON_CLIENT_PREALLOCATE=false "${FUSEBOX_JAX_PYTHON:-python3}" \
    bench/compare_xla/compare_xla_gpu.py --fusebox build/release/app/fusebox "$@"
fi

VENV="${FUSEBOX_JAX_VENV:-/tmp/fusebox-jax-venv}"
JAX_VERSION="${FUSEBOX_JAX_VERSION:-0.10.2}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"

"$HERE/setup.sh" --with-venv
if ! "$VENV/bin/python" -c "import jax, sys; sys.exit(jax.__version__ != '$JAX_VERSION')" 2>/dev/null; then
  echo "compare_xla: setting up $VENV with jax==$JAX_VERSION" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip >&2
  "$VENV/bin/python" -m pip install -q "jax==$JAX_VERSION" "jaxlib==$JAX_VERSION" >&2
fi
cmake --preset release >/dev/null
cmake --build --preset release --target compare_xla_fusebox >/dev/null
cd "$ROOT"
env -u XLA_FLAGS JAX_PLATFORMS=cpu "$VENV/bin/python" bench/compare_xla/compare_xla.py \
  --fusebox build/release/bench/compare_xla_fusebox "$@"
