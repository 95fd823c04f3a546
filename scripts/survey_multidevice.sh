#!/usr/bin/env bash
# Runs scripts/survey_multidevice.py's sharded jax programs through XLA (jax on 8 host CPU
# devices) and Fusebox, and prints per program:
#   global      jax's global module, partitioned by Fusebox, on the interpreter and the CPU
#               backend, against XLA's outputs
#   xla-module  XLA's partitioned module run by Fusebox (--unpartitioned module.hlo)
#   collectives Fusebox's optimized program's collectives (compile --stage optimized_hlo)
#               and XLA's (partitioned.hlo), by kind, and whether they are the same
#   fallbacks   ops the partitioner computed whole on every device
# then the totals. Needs a jax venv (FUSEBOX_JAX_VENV, default /tmp/fusebox-jax-venv, made
# as scripts/make_multidevice_dumps.sh makes it) and a release build.
#   scripts/survey_multidevice.sh [OUTDIR [PROGRAM...]]
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
VENV="${FUSEBOX_JAX_VENV:-/tmp/fusebox-jax-venv}"
FB="${FUSEBOX:-$ROOT/build/release/app/fusebox}"
OUT="${1:-/tmp/fusebox-md-survey}"
shift || true
export FUSEBOX_HUGE_PAGES=0
if ! "$VENV/bin/python" -c "import jax" 2>/dev/null; then
  python3 -m venv "$VENV" && "$VENV/bin/python" -m pip install -q "jax==0.10.2" "jaxlib==0.10.2" numpy scipy || exit 1
fi
if [[ $# -gt 0 ]]; then programs=("$@"); else read -r -a programs < <("$VENV/bin/python" "$HERE/survey_multidevice.py" list x); fi
mkdir -p "$OUT"
collectives() { grep -oE " (all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute)(-start)?\(" | tr -d ' (' | sort | uniq -c | awk '{printf "%s%d %s", (NR>1?", ":""), $1, $2}'; }
n=0; global_ok=0; xla_ok=0; same=0; with_fallback=0
for p in "${programs[@]}"; do
  d="$OUT/$p"
  if [[ ! -f "$d/n" ]]; then
    env -u XLA_FLAGS JAX_PLATFORMS=cpu "$VENV/bin/python" "$HERE/survey_multidevice.py" "$p" "$OUT" > /dev/null 2>&1 || { echo "$p: jax failed"; continue; }
  fi
  read -r ni no < "$d/n"
  ins=""; for ((i = 0; i < ni; i++)); do ins="$ins${ins:+,}$d/in$i.npy"; done
  ex=""; for ((i = 0; i < no; i++)); do ex="$ex${ex:+,}$d/out$i.npy"; done
  g=ok
  for b in interpreter cpu; do
    r=$("$FB" run "$d/module.hlo" --backend $b --inputs "$ins" --expected "$ex" 2>&1)
    [[ $r == *"expected: matches"* ]] || g="FAIL($b)"
  done
  x=ok
  r=$("$FB" run "$d/partitioned.hlo" --backend interpreter --inputs "$ins" --unpartitioned "$d/module.hlo" --expected "$ex" 2>&1)
  [[ $r == *"expected: matches"* ]] || x=FAIL
  fc=$("$FB" compile "$d/module.hlo" --stage optimized_hlo 2>/dev/null | collectives)
  xc=$(collectives < "$d/partitioned.hlo")
  fb=$("$FB" explain --collectives "$d/module.hlo" 2>/dev/null | grep -c "  replicated-fallback  ")
  s=differ; [[ "$fc" == "$xc" ]] && s=same
  n=$((n + 1)); [[ $g == ok ]] && global_ok=$((global_ok + 1)); [[ $x == ok ]] && xla_ok=$((xla_ok + 1))
  [[ $s == same ]] && same=$((same + 1)); [[ $fb -gt 0 ]] && with_fallback=$((with_fallback + 1))
  printf "%-26s global %-18s xla-module %-5s collectives %-6s fallbacks %d | Fusebox: %s | XLA: %s\n" \
    "$p" "$g" "$x" "$s" "$fb" "${fc:-none}" "${xc:-none}"
done
echo "programs $n: global module matches $global_ok, XLA's module matches $xla_ok, same collectives $same, with fallbacks $with_fallback"
