#!/usr/bin/env bash
# Makes bench/data/resnet50_inference.hlo (or, with --scoped tests/data/graph, the variant with layer scopes) with jax 0.10.2 in a throwaway venv (see make_resnet50.py).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="${FUSEBOX_JAX_VENV:-/tmp/fusebox-jax-venv}"
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q jax==0.10.2 numpy; }
"$VENV/bin/python" scripts/make_resnet50.py "${@:-bench/data}"
