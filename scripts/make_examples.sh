#!/usr/bin/env bash
# Regenerates assets/examples/*.hlo and assets/examples/xla_cpu/*.hlo with the real
# XLA, via jax (CPU jaxlib) from PyPI, installed into a throwaway virtualenv outside
# the repository. Re-runnable; reuses the venv when it already has the right jax.
#   FUSEBOX_JAX_VENV    venv folder        (default /tmp/fusebox-jax-venv)
#   FUSEBOX_JAX_VERSION jax version to use (default 0.10.2, the one the assets came from)
# Usage: scripts/make_examples.sh [--out DIR]
set -euo pipefail

VENV="${FUSEBOX_JAX_VENV:-/tmp/fusebox-jax-venv}"
JAX_VERSION="${FUSEBOX_JAX_VERSION:-0.10.2}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if ! "$VENV/bin/python" -c "import jax, sys; sys.exit(jax.__version__ != '$JAX_VERSION')" 2>/dev/null; then
  echo "make_examples: setting up $VENV with jax==$JAX_VERSION" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip >&2
  "$VENV/bin/python" -m pip install -q "jax==$JAX_VERSION" "jaxlib==$JAX_VERSION" >&2
fi

# XLA_FLAGS from the caller would change what XLA dumps; the script sets its own.
env -u XLA_FLAGS JAX_PLATFORMS=cpu "$VENV/bin/python" "$HERE/make_examples.py" "$@"
