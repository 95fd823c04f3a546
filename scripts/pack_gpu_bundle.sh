#!/usr/bin/env bash
# Packs the release build for a device call under its 64 MiB limit, where the tracked tree
# (22 MB in 2026-11) travels too. ../shared/gpu/bundle.sh packs the binaries with their
# Debian libraries and a copy of the sources the tests read (50 MB with the four binaries
# of scripts/gpu_session_26.sh: 72 MB with the tree, over the limit). This script then
#   * drops that copy of assets/, bench/, scripts/ and tests/: the tree travels anyway, and
#     the device command links /work/main to it (below);
#   * strips the binaries' debug sections;
#   * replaces libicudata.so.72 (30 MB, 7.5 MB packed) by a stub that defines its one
#     symbol: libLLVM needs libxml2, which needs ICU's data library to load, but Fusebox
#     never has libxml2 convert an encoding, so ICU's tables are never read;
#   * replaces libz3.so.4 (23 MB) by a stub of the functions libLLVM names (below).
# Result: .gpu/fusebox-gpu.tar.xz, about 37 MB. Run from the project's root after
#   scripts/build.sh release
# and on the device (the `run` tool, carrying .gpu):
#   if [ "$PWD" != /work/main ]; then mkdir -p /work; ln -sfn "$PWD" /work/main; fi
#   tar --keep-directory-symlink -xJf .gpu/fusebox-gpu.tar.xz -C / &&
#   export LD_LIBRARY_PATH=/opt/fusebox-gpu/lib && FUSEBOX_GPU_SRC=/work/main scripts/gpu_session_26.sh
set -euo pipefail
src=$(git rev-parse --show-toplevel)
cd "$src"
binaries=${1:-'(/app/fusebox$|/tests/(gpu_runtime_test|cli_gpu_test|gpu_corpus_test)$)'}
../shared/gpu/bundle.sh build/release "$binaries"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tar -xJf .gpu/fusebox-gpu.tar.xz -C "$stage"
root="$stage${src}"
rm -rf "$root/assets" "$root/bench" "$root/scripts" "$root/tests"
find "$root/build" -type f -perm -u+x -exec strip --strip-debug {} +
lib="$stage/opt/fusebox-gpu/lib"
if [[ -f "$lib/libicudata.so.72" ]]; then
  printf 'const unsigned char icudt72_dat[64] __attribute__((aligned(16))) = {0};\n' >"$stage/icu_stub.c"
  gcc -shared -fPIC -Wl,-soname,libicudata.so.72 -o "$lib/libicudata.so.72" "$stage/icu_stub.c"
  rm "$stage/icu_stub.c"
fi
# libLLVM needs Z3 (23 MB, 5 MB packed) for the static analyzer's constraint solver, which
# Fusebox never calls: a stub defines each Z3 function libLLVM names as one that aborts.
if [[ -f "$lib/libz3.so.4" ]]; then
  nm -D --undefined-only "$lib/libLLVM.so.19.1" | awk '$2 ~ /^Z3_/ {print "void " $2 "(void) { abort(); }"}' |
    { echo '#include <stdlib.h>'; cat; } >"$stage/z3_stub.c"
  gcc -shared -fPIC -Wl,-soname,libz3.so.4 -o "$lib/libz3.so.4" "$stage/z3_stub.c"
  rm "$stage/z3_stub.c"
fi
# The binaries must still load with the stubs in place.
LD_LIBRARY_PATH="$lib" "$root/build/release/app/fusebox" --help >/dev/null
for t in "$root"/build/release/tests/*; do LD_LIBRARY_PATH="$lib" "$t" --gtest_list_tests >/dev/null; done
tar -C "$stage" -cf - opt "${src#/}" | xz -9 -T0 >.gpu/fusebox-gpu.tar.xz
tree_bytes=$(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1)
bundle_bytes=$(stat -c %s .gpu/fusebox-gpu.tar.xz)
echo "pack: .gpu/fusebox-gpu.tar.xz $((bundle_bytes / 1000000)) MB + tracked tree $((tree_bytes / 1000000)) MB" \
  "= $(((bundle_bytes + tree_bytes) / 1000000)) MB (a device call carries 67 MB)"
(( bundle_bytes + tree_bytes < 67108864 )) || { echo "pack: over the 64 MiB a device call carries" >&2; exit 1; }
