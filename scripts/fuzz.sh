#!/usr/bin/env bash
# Fuzzes the HLO parser (libFuzzer, the `fuzz` preset), with --inputs the readers of
# binary HLO protos and .npy files (libFuzzer too), or with --differential the compiler
# (random valid modules, interpreter against the CPU backend; release build).
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/fuzz.sh [SECONDS]
       scripts/fuzz.sh --inputs [SECONDS]
       scripts/fuzz.sh --differential SECONDS [differential_fuzzer options...]

Without --differential: builds the `fuzz` preset (clang-19; only the support, ir, parser
and verifier sources, under a minute from clean) and runs the HLO parser fuzzer for
SECONDS (default 600). Any input must parse or fail with a located message; what parses
must print to a fixed point; the verifier must not crash. Crash, timeout and OOM inputs
are copied into fuzz/regressions/ (malformed_test replays every file there).

With --inputs: the same for fuzz/input_fuzzer, from the seeds in fuzz/input_corpus/: XLA's
binary HLO protos (plain and gzip; HloModuleProto, HloProto, HloSnapshot), NumPy .npy
files (with and without a parameter's shape), XLA dump folders (files as records,
written to a temporary folder) and .npz archives (matched to two parameters), the first byte of an input choosing the reader
(fuzz/input_checks.h). Every input must import or fail with a message naming the file or
folder; an imported module must print to a fixed point; every array must write as .npy and
read back the same; a dump index's JSON must parse. Failing inputs go to
fuzz/input_regressions/ (input_regressions_test replays them).

With --differential: builds the release target differential_fuzzer and runs it for
SECONDS: random valid modules (elementwise chains, broadcasts, reductions, dots,
transposes, slices, pads, concatenates, selects, converts, while loops, conditionals,
tuple roots), each run in a forked child by the interpreter, the CPU backend fused and
unfused, and the GPU emulator when small, and judged by the numeric check. A mismatch,
error, crash or hang keeps the module in tests/regressions/seed_<SEED>.hlo (replayed by
the ctest differential_fuzzer_regressions); `build/release/fuzz/differential_fuzzer
--replay FILE` runs one again, `--print SEED` shows a seed's module. Options after
SECONDS go to differential_fuzzer (see its --help), e.g. --ops 48 --no-gpu.

Exits non-zero when something failed.
Environment: FUZZ_JOBS=N parallel libFuzzer workers (default 1); FUZZ_NO_BUILD=1
uses the binaries already built; FUZZ_BUILD_DIR=DIR takes the libFuzzer targets from DIR
(default build/fuzz; CI runs the one of its sanitizer build, build/asan, which the
`asan` preset builds too, on the libraries the core tests use).
EOF
}

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --differential)
    [ $# -ge 2 ] || { usage >&2; exit 2; }
    DIFF_SECONDS="$2"
    shift 2
    if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
      cmake --preset release >/dev/null
      cmake --build --preset release --target differential_fuzzer
    fi
    # Seeds start at a random point, so runs add up instead of repeating one another.
    exec build/release/fuzz/differential_fuzzer --seconds "$DIFF_SECONDS" \
      --seeds "$(( (RANDOM << 15 | RANDOM) + 1000 ))" --quiet "$@"
    ;;
esac

TARGET=parser_fuzzer
SEEDS=fuzz/corpus
REGRESSIONS=fuzz/regressions
OPTIONS=(-dict=fuzz/hlo.dict -max_len=4096)
if [ "${1:-}" = --inputs ]; then
  shift
  TARGET=input_fuzzer
  SEEDS=fuzz/input_corpus
  REGRESSIONS=fuzz/input_regressions
  # The largest seed (a real dump's proto) is 15.6 KB.
  OPTIONS=(-dict=fuzz/input.dict -max_len=16384)
fi
SECONDS_TO_RUN="${1:-600}"
JOBS="${FUZZ_JOBS:-1}"

if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
  scripts/setup.sh --with-fuzz
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz --target "$TARGET"
fi

BUILD="${FUZZ_BUILD_DIR:-$ROOT/build/fuzz}"
FUZZER="$BUILD/fuzz/$TARGET"
WORK_CORPUS="$BUILD/fuzz-corpus/$TARGET"  # grows across runs; the seeds stay untouched
ARTIFACTS="$BUILD/fuzz-artifacts/$TARGET-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$WORK_CORPUS" "$ARTIFACTS" "$REGRESSIONS"

# Fork mode with ignore_* keeps fuzzing after the first crash, so one run can find
# several bugs; every failing input still lands in $ARTIFACTS.
set +e
"$FUZZER" "$WORK_CORPUS" "$SEEDS" \
  "${OPTIONS[@]}" -timeout=10 -rss_limit_mb=4096 \
  -max_total_time="$SECONDS_TO_RUN" -print_final_stats=1 \
  -fork="$JOBS" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -artifact_prefix="$ARTIFACTS/" 2>&1 | tee "$ARTIFACTS/fuzz.log"
status=${PIPESTATUS[0]}
set -e

found=0
for f in "$ARTIFACTS"/crash-* "$ARTIFACTS"/timeout-* "$ARTIFACTS"/oom-* "$ARTIFACTS"/leak-*; do
  [ -e "$f" ] || continue
  cp "$f" "$REGRESSIONS/"
  echo "fuzz: found $(basename "$f") -> $REGRESSIONS/"
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
echo "fuzz: $TARGET: no failures in ${SECONDS_TO_RUN}s"
