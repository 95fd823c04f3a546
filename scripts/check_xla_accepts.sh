#!/usr/bin/env bash
# Prints every corpus and example module with `fusebox print` and asks XLA's own parser
# (jaxlib, in a throwaway venv) whether it accepts the printed text.
# Usage: scripts/check_xla_accepts.sh [FILES...]   (default: the whole corpus + examples)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fb=build/release/app/fusebox
[ -x "$fb" ] || scripts/build.sh release >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ $# -eq 0 ]; then
  mapfile -t files < <(find tests/data/xla_corpus assets/examples -name '*.hlo' -o -name '*.txt' | sort)
else
  files=("$@")
fi
i=0
for f in "${files[@]}"; do
  i=$((i + 1))
  "$fb" print "$f" --split-dir "$out/$i" 2>/dev/null || echo "fusebox could not print $f" >&2
done
scripts/xla_parse_check.sh "$out"/*/*.hlo
