#!/usr/bin/env bash
# Runs scripts/survey_programs.py's single-device jax programs through XLA (jax on the host
# CPU) and Fusebox, and prints per program whether Fusebox's outputs match XLA's:
#   interp   jax's module on the interpreter          cpu      on the CPU backend (fused)
#   unfused  on the CPU backend, one kernel per op    check    --check (CPU against the
#            interpreter and its f64 shadow)          xla      XLA's optimized module on
#            the interpreter
# ("ok", or "FAIL" with the first line of Fusebox's message in OUT/NAME/MODE.log), then
# the totals. Needs a jax venv (FUSEBOX_JAX_VENV, default /tmp/fusebox-jax-venv) and a
# release build.
#   scripts/survey_programs.sh [OUTDIR [PROGRAM...]]
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
VENV="${FUSEBOX_JAX_VENV:-/tmp/fusebox-jax-venv}"
FB="${FUSEBOX:-$ROOT/build/release/app/fusebox}"
OUT="${1:-/tmp/fusebox-survey}"
shift || true
export FUSEBOX_HUGE_PAGES=0
if ! "$VENV/bin/python" -c "import jax" 2>/dev/null; then
  python3 -m venv "$VENV" && "$VENV/bin/python" -m pip install -q "jax==0.10.2" "jaxlib==0.10.2" numpy scipy || exit 1
fi
if [[ $# -gt 0 ]]; then programs=("$@"); else read -r -a programs < <("$VENV/bin/python" "$HERE/survey_programs.py" list x); fi
mkdir -p "$OUT"
modes=(interp cpu unfused check xla)
declare -A ok
for m in "${modes[@]}"; do ok[$m]=0; done
n=0; all_ok=0
for p in "${programs[@]}"; do
  d="$OUT/$p"
  if [[ ! -f "$d/n" ]]; then
    env -u XLA_FLAGS JAX_PLATFORMS=cpu "$VENV/bin/python" "$HERE/survey_programs.py" "$p" "$OUT" > "$OUT/$p.jax.log" 2>&1 || { echo "$p: jax failed ($OUT/$p.jax.log)"; continue; }
  fi
  read -r ni no < "$d/n"
  ins=""; for ((i = 0; i < ni; i++)); do ins="$ins${ins:+,}$d/in$i.npy"; done
  ex=""; for ((i = 0; i < no; i++)); do ex="$ex${ex:+,}$d/out$i.npy"; done
  line=$(printf "%-26s" "$p"); good=1
  for m in "${modes[@]}"; do
    case $m in
      interp) args=("$d/module.hlo" --backend interpreter --expected "$ex") ;;
      cpu) args=("$d/module.hlo" --backend cpu --expected "$ex") ;;
      unfused) args=("$d/module.hlo" --backend cpu --unfused --expected "$ex") ;;
      check) args=("$d/module.hlo" --backend cpu --check) ;;
      xla) args=("$d/optimized.hlo" --backend interpreter --expected "$ex") ;;
    esac
    timeout 300 "$FB" run "${args[@]}" --inputs "$ins" > "$d/$m.log" 2>&1
    rc=$?
    if [[ $rc -eq 0 ]]; then ok[$m]=$((ok[$m] + 1)); line="$line $m ok     "
    else good=0; line="$line $m FAIL($rc)"; fi
  done
  n=$((n + 1)); [[ $good -eq 1 ]] && all_ok=$((all_ok + 1))
  echo "$line"
done
summary="programs $n: all modes ok $all_ok"
for m in "${modes[@]}"; do summary="$summary, $m ${ok[$m]}"; done
echo "$summary"
