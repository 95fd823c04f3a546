#!/usr/bin/env bash
# Regenerates tests/data/multidevice/<program>/: small sharded jax programs compiled and
# run by XLA on 4 or 8 host CPU devices (--xla_force_host_platform_device_count), with
# the HLO before and after SPMD partitioning, global inputs and outputs, and a manifest
# of shardings and collectives; then tests/data/multidevice/README.md from the
# manifests. Uses the same throwaway virtualenv as scripts/make_dumps.sh.
#   FUSEBOX_JAX_VENV     venv folder        (default /tmp/fusebox-jax-venv)
#   FUSEBOX_JAX_VERSION  jax version to use (default 0.10.2, the one the data came from)
# Usage: scripts/make_multidevice_dumps.sh [PROGRAM...]
#        (default: all; see scripts/make_multidevice_dumps.py list)
set -euo pipefail

VENV="${FUSEBOX_JAX_VENV:-/tmp/fusebox-jax-venv}"
JAX_VERSION="${FUSEBOX_JAX_VERSION:-0.10.2}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
OUT_REL="tests/data/multidevice"

if ! "$VENV/bin/python" -c "import jax, numpy, sys; sys.exit(jax.__version__ != '$JAX_VERSION')" 2>/dev/null; then
  echo "make_multidevice_dumps: setting up $VENV with jax==$JAX_VERSION" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip >&2
  "$VENV/bin/python" -m pip install -q "jax==$JAX_VERSION" "jaxlib==$JAX_VERSION" numpy >&2
fi

if [[ $# -gt 0 ]]; then
  programs=("$@")
else
  mapfile -t programs < <("$VENV/bin/python" "$HERE/make_multidevice_dumps.py" list)
fi

cd "$ROOT"
mkdir -p "$OUT_REL"
for program in "${programs[@]}"; do
  # The script sets XLA_FLAGS itself (device count, a temporary dump folder); the
  # caller's would change what XLA does.
  env -u XLA_FLAGS JAX_PLATFORMS=cpu \
    "$VENV/bin/python" "$HERE/make_multidevice_dumps.py" run "$program" "$OUT_REL/$program"
done
"$VENV/bin/python" "$HERE/make_multidevice_dumps.py" readme "$OUT_REL"

echo "make_multidevice_dumps: folder sizes (KiB) and file counts:"
for program in "${programs[@]}"; do
  dir="$OUT_REL/$program"
  printf '  %-24s %6s KiB %5s files\n' "$program" "$(du -sk "$dir" | cut -f1)" \
    "$(find "$dir" -type f | wc -l)"
done
printf '  %-24s %6s KiB\n' "total" "$(du -sk "$OUT_REL" | cut -f1)"
