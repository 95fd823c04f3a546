#!/usr/bin/env bash
# Makes tests/data/check/*.hlo with jax 0.10.2 in a throwaway venv (see make_check_models.py).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="${FUSEBOX_JAX_VENV:-/tmp/fusebox-jax-venv}"
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q jax==0.10.2 numpy; }
"$VENV/bin/python" scripts/make_check_models.py tests/data/check
