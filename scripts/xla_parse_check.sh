#!/usr/bin/env bash
# Checks that XLA's own HLO text parser (as shipped in jaxlib) accepts each file.
# Sets up the same throwaway virtualenv as make_examples.sh when it is missing.
#   FUSEBOX_JAX_VENV    venv folder        (default /tmp/fusebox-jax-venv)
#   FUSEBOX_JAX_VERSION jax version to use (default 0.10.2)
# Usage: scripts/xla_parse_check.sh [-q] FILE...   (exit 0 only if every file parses)
set -euo pipefail

VENV="${FUSEBOX_JAX_VENV:-/tmp/fusebox-jax-venv}"
JAX_VERSION="${FUSEBOX_JAX_VERSION:-0.10.2}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if ! "$VENV/bin/python" -c "import jax" 2>/dev/null; then
  echo "xla_parse_check: setting up $VENV with jax==$JAX_VERSION" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip >&2
  "$VENV/bin/python" -m pip install -q "jax==$JAX_VERSION" "jaxlib==$JAX_VERSION" >&2
fi

JAX_PLATFORMS=cpu exec "$VENV/bin/python" "$HERE/xla_parse_check.py" "$@"
