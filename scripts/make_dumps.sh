#!/usr/bin/env bash
# Regenerates tests/data/xla_dumps/<program>/: real XLA dump folders (what
# --xla_dump_to writes) of Fusebox's seed programs, made by jax (CPU jaxlib) from PyPI
# in a throwaway virtualenv outside the repository. Each program runs in its own
# process, with the dump flags below, and the folder is then trimmed if it is large.
#   FUSEBOX_JAX_VENV     venv folder        (default /tmp/fusebox-jax-venv)
#   FUSEBOX_JAX_VERSION  jax version to use (default 0.10.2, the one the dumps came from)
#   FUSEBOX_DUMP_MAX_KB  folders above this size get trimmed (default 3072)
#   FUSEBOX_DUMP_KEEP    per-pass snapshots kept per module when trimming (default 40)
#   FUSEBOX_DUMP_PLATFORM cpu (default) or cuda: on a GPU machine, XLA's GPU compiler
#                        dumps into tests/data/xla_dumps_gpu/ instead (optimized HLO with
#                        its cuBLAS/cuDNN calls, PTX, buffer assignment, thunk sequence,
#                        autotuning results), with the jax already installed there
#   FUSEBOX_DUMP_PYTHON  a python that has jax already (skips the venv; needed for cuda,
#                        as the GPU machine cannot reach PyPI)
# Usage: scripts/make_dumps.sh [PROGRAM...]   (default: all; see make_dumps.py list)
set -euo pipefail

VENV="${FUSEBOX_JAX_VENV:-/tmp/fusebox-jax-venv}"
JAX_VERSION="${FUSEBOX_JAX_VERSION:-0.10.2}"
MAX_KB="${FUSEBOX_DUMP_MAX_KB:-3072}"
KEEP="${FUSEBOX_DUMP_KEEP:-40}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
OUT_REL="tests/data/xla_dumps"

PLATFORM="${FUSEBOX_DUMP_PLATFORM:-cpu}"
PYTHON="${FUSEBOX_DUMP_PYTHON:-$VENV/bin/python}"
EXTRA_FLAGS=""
case "$PLATFORM" in
  cpu) ;;
  cuda)
    OUT_REL="tests/data/xla_dumps_gpu"
    EXTRA_FLAGS="--xla_gpu_dump_llvmir"
    ;;
  *) echo "make_dumps: FUSEBOX_DUMP_PLATFORM is cpu or cuda, not $PLATFORM" >&2; exit 1 ;;
esac
if [[ -z "${FUSEBOX_DUMP_PYTHON:-}" ]] &&
   ! "$VENV/bin/python" -c "import jax, sys; sys.exit(jax.__version__ != '$JAX_VERSION')" 2>/dev/null; then
  echo "make_dumps: setting up $VENV with jax==$JAX_VERSION" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip >&2
  "$VENV/bin/python" -m pip install -q "jax==$JAX_VERSION" "jaxlib==$JAX_VERSION" >&2
fi

if [[ $# -gt 0 ]]; then
  programs=("$@")
else
  mapfile -t programs < <("$PYTHON" "$HERE/make_dumps.py" list)
fi

# Run from the repository root and dump to a relative path, so the folder (and the
# xla_dump_to recorded in its *.debug_options files) does not depend on the checkout.
cd "$ROOT"
mkdir -p "$OUT_REL"
for program in "${programs[@]}"; do
  dir="$OUT_REL/$program"
  rm -rf "$dir"
  # XLA_FLAGS from the caller would change what XLA dumps; this sets its own. (XLA's GPU
  # dump has the autotuner's choices per module already: *.autotune_results.pbtxt.)
  env -u XLA_FLAGS JAX_PLATFORMS="$PLATFORM" \
    XLA_FLAGS="--xla_dump_to=$dir --xla_dump_hlo_as_text --xla_dump_hlo_as_proto --xla_dump_hlo_pass_re=.* $EXTRA_FLAGS" \
    "$PYTHON" "$HERE/make_dumps.py" run "$program"
  "$PYTHON" "$HERE/make_dumps.py" trim "$dir" $((MAX_KB * 1024)) "$KEEP"
  # GPU folders keep their per-pass snapshots as text only (the proto twins of the
  # before/after modules stay): half the size, and the text is what the tests read.
  if [[ "$PLATFORM" == cuda ]]; then
    find "$dir" -regextype posix-extended -regex '.*\.[0-9]{4}\..*\.hlo\.pb' -delete
  fi
done

echo "make_dumps: folder sizes (KiB) and file counts:"
for program in "${programs[@]}"; do
  dir="$OUT_REL/$program"
  printf '  %-24s %6s KiB %5s files\n' "$program" "$(du -sk "$dir" | cut -f1)" \
    "$(find "$dir" -type f | wc -l)"
done
printf '  %-24s %6s KiB\n' "total" "$(du -sk "$OUT_REL" | cut -f1)"

# A full run also remakes the multi-device programs (tests/data/multidevice/).
if [[ $# -eq 0 && "$PLATFORM" == cpu ]]; then
  FUSEBOX_JAX_VENV="$VENV" FUSEBOX_JAX_VERSION="$JAX_VERSION" "$HERE/make_multidevice_dumps.sh"
fi
