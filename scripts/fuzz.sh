#!/usr/bin/env bash
# Builds the `fuzz` preset and runs the HLO parser fuzzer for SECONDS (default 600).
# Crash, timeout and OOM inputs are copied into fuzz/regressions/ (malformed_test
# replays every file there); the script exits non-zero if it found any.
# Usage: scripts/fuzz.sh [SECONDS]   (env: FUZZ_JOBS=N parallel workers, default 1)
set -euo pipefail

SECONDS_TO_RUN="${1:-600}"
JOBS="${FUZZ_JOBS:-1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

scripts/setup.sh --with-fuzz
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target parser_fuzzer

BUILD="$ROOT/build/fuzz"
FUZZER="$BUILD/fuzz/parser_fuzzer"
WORK_CORPUS="$BUILD/fuzz-corpus"         # grows across runs; the seeds stay untouched
ARTIFACTS="$BUILD/fuzz-artifacts/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$WORK_CORPUS" "$ARTIFACTS" fuzz/regressions

# Fork mode with ignore_* keeps fuzzing after the first crash, so one run can find
# several bugs; every failing input still lands in $ARTIFACTS.
set +e
"$FUZZER" "$WORK_CORPUS" fuzz/corpus \
  -dict=fuzz/hlo.dict -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
  -max_total_time="$SECONDS_TO_RUN" -print_final_stats=1 \
  -fork="$JOBS" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -artifact_prefix="$ARTIFACTS/" 2>&1 | tee "$ARTIFACTS/fuzz.log"
status=${PIPESTATUS[0]}
set -e

found=0
for f in "$ARTIFACTS"/crash-* "$ARTIFACTS"/timeout-* "$ARTIFACTS"/oom-* "$ARTIFACTS"/leak-*; do
  [ -e "$f" ] || continue
  cp "$f" fuzz/regressions/
  echo "fuzz: found $(basename "$f") -> fuzz/regressions/"
  found=$((found + 1))
done

if [ "$found" -gt 0 ]; then
  echo "fuzz: $found failing input(s); see $ARTIFACTS/fuzz.log" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "fuzz: the fuzzer exited with status $status; see $ARTIFACTS/fuzz.log" >&2
  exit "$status"
fi
echo "fuzz: no failures in ${SECONDS_TO_RUN}s"
