#!/usr/bin/env bash
# Installs what is missing, builds, and runs the test suite: the release build (clang-19,
# warnings as errors, every test case as a ctest test), the ASan+UBSan build (clang-19) of
# the core tests (the stages below codegen, label `core`: one process per binary or shard)
# and of the parser and input fuzzers, which then run 30 and 20 s. Prints the time of each phase at the end. This is what CI runs; it must stay
# under 45 minutes on a 2-core machine. Usage: scripts/test.sh [--fast | --all-sanitizers]
#   --fast            the release build and its tests only
#   --all-sanitizers  every test binary under ASan+UBSan, not only the core ones (about an
#                     hour more on 2 cores; run it before landing changes to codegen, the
#                     runtime or the session)
# What runs where, and why: docs/testing.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
jobs="$(nproc)"
# Tests check results, never speed: large buffers without the huge-page advice, which on
# the CI's virtual machines doubles the kernel's time to fault in fresh memory (the
# running example's interpreter run: 20 s -> 10.7 s). cpu_executable_test still runs
# both ways (it sets the advice itself). See docs/testing.md.
export FUSEBOX_HUGE_PAGES="${FUSEBOX_HUGE_PAGES:-0}"

phases=()
phase() {  # phase NAME COMMAND...: runs and times one phase
  local name="$1"; shift
  local start=$SECONDS
  echo "=== $name"
  "$@"
  phases+=("$(printf '%-24s %4d s' "$name" $((SECONDS - start)))")
}
report() {
  echo "=== phase times"
  for p in "${phases[@]}"; do echo "  $p"; done
  echo "  total                    $(printf '%4d s' "$SECONDS")"
}
trap report EXIT

phase "setup" scripts/setup.sh
phase "release build" scripts/build.sh release
phase "release tests" ctest --preset release -j "$jobs"
if [ "${1:-}" != "--fast" ]; then
  sanitized=(env ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1)
  if [ "${1:-}" = "--all-sanitizers" ]; then
    phase "asan build" scripts/build.sh asan
    phase "asan tests" "${sanitized[@]}" ctest --preset asan -j "$jobs"
  else
    phase "asan build (core)" bash -c 'cmake --preset asan >/dev/null &&
      cmake --build --preset asan -j "$0" --target fusebox_core_tests parser_fuzzer input_fuzzer' "$jobs"
    phase "asan tests (core)" "${sanitized[@]}" ctest --preset asan -L core -j "$jobs"
  fi
  # Fuzz targets (issue 22), so they cannot rot again. The differential fuzzer of the
  # compiler runs in ctest above (differential_fuzzer_seeds, _regressions). Here the parser
  # fuzzer, built above by the sanitizer build (clang-19: its support and hlo libraries,
  # which the core tests use, carry the fuzzer's coverage flag), runs for 30 seconds, and
  # the input fuzzer (binary HLO protos, .npy files) for 20. FUSEBOX_SKIP_FUZZ=1 skips them.
  if [ "${FUSEBOX_SKIP_FUZZ:-0}" != 1 ]; then
    phase "parser fuzzer 30 s" env FUZZ_NO_BUILD=1 FUZZ_BUILD_DIR=build/asan scripts/fuzz.sh 30
    phase "input fuzzer 20 s" env FUZZ_NO_BUILD=1 FUZZ_BUILD_DIR=build/asan scripts/fuzz.sh --inputs 20
  fi
fi
echo "fusebox: all tests passed"
