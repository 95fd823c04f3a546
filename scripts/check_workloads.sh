#!/usr/bin/env bash
# `fusebox run --check` / `--expected` on bench/compare_xla's workloads (jax 0.10.2 in a
# throwaway venv; see check_workloads.py). Usage: scripts/check_workloads.sh [--scale small|full]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="${FUSEBOX_JAX_VENV:-/tmp/fusebox-jax-venv}"
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q jax==0.10.2 numpy; }
"$VENV/bin/python" scripts/check_workloads.py "$@"
