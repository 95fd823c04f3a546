#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite: the release build
# (warnings as errors) and the ASan+UBSan build. Usage: scripts/test.sh [--fast]
# (--fast skips the sanitizer build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
jobs="$(nproc)"
scripts/build.sh release
ctest --preset release -j "$jobs"
if [ "${1:-}" != "--fast" ]; then
  scripts/build.sh asan
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --preset asan -j "$jobs"
fi
echo "fusebox: all tests passed"
