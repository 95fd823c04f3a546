#!/usr/bin/env bash
# Issue #26's device checks, as one script for a GPU machine (at most 10 minutes). Build
# and pack here first:
#   scripts/build.sh release && ../shared/gpu/bundle.sh
# then on the device (the `run` tool), with $OUT the folder that comes back:
#   tar -xJf .gpu/fusebox-gpu.tar.xz -C / && export LD_LIBRARY_PATH=/opt/fusebox-gpu/lib && scripts/gpu_session_26.sh
# Writes $OUT/gpu_session_26.txt (every number below) and $OUT/xla_dumps_gpu.tar.gz (real
# XLA GPU dump folders of the seed programs, to commit under tests/data/xla_dumps_gpu/).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${OUT:-/tmp/gpu_session_26}"
mkdir -p "$out"
log="$out/gpu_session_26.txt"
fb=build/release/app/fusebox
export FUSEBOX_CACHE_DIR="$out/cache"
step() { echo; echo "=== $*" | tee -a "$log"; }
run() { echo "\$ $*" >>"$log"; timeout "${limit:-120}" "$@" >>"$log" 2>&1; echo "(exit $?)" >>"$log"; }

step "device"
run nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
run /usr/local/cuda/bin/ptxas --version
run nproc

step "GPU tests (runtime, CLI, real-GPU corpus)"
limit=240 run build/release/tests/gpu_runtime_test --gtest_brief=1
limit=120 run build/release/tests/cli_gpu_test --gtest_brief=1
limit=240 run build/release/tests/gpu_corpus_test --gtest_brief=1 --gtest_filter='*RealGpu*'

step "XLA GPU module with cuBLAS/cuDNN calls on the GPU (Fusebox's kernels of the lowered calls), checked"
run "$fb" run tests/data/library_calls/cnn_step_gpu.hlo --backend gpu --seed 1 --iterations 3 --check

step "CIFAR step: select-and-scatter as a parallel gather (was 8-16 ms serial per call)"
run "$fb" run assets/examples/cifar_cnn_train_step.hlo --backend gpu --seed 1 --iterations 5 --check \
  --trace "$out/cifar_trace.json"
grep -o '"name":"[^"]*select[^"]*"[^}]*"dur":[0-9.]*' "$out/cifar_trace.json" | head -5 >>"$log" 2>&1

step "ResNet-50 inference: GPU compile, cold cubin cache then cached (issue: <= 3 s)"
rm -rf "$FUSEBOX_CACHE_DIR"
for pass in cold cached; do
  echo "-- $pass" >>"$log"
  /usr/bin/time -f "wall %e s" "$fb" run bench/data/resnet50_inference.hlo --backend gpu --seed 1 --iterations 3 \
    >>"$log" 2>&1
done

step "GPU benchmark (fused vs unfused kernel time)"
limit=180 run build/release/bench/gpu_backend_bench --benchmark_min_time=0.05s

step "real XLA GPU dumps of the seed programs (jax on CUDA, as installed here)"
python=$(command -v python3)
if "$python" -c 'import jax; assert jax.devices()[0].platform == "gpu"' >>"$log" 2>&1; then
  FUSEBOX_DUMP_PLATFORM=cuda FUSEBOX_DUMP_PYTHON="$python" limit=300 run scripts/make_dumps.sh
  tar -czf "$out/xla_dumps_gpu.tar.gz" tests/data/xla_dumps_gpu && du -h "$out/xla_dumps_gpu.tar.gz" >>"$log"
  for d in tests/data/xla_dumps_gpu/*/; do run "$fb" index "$d"; done
else
  echo "no jax with a GPU here: no dumps" >>"$log"
fi
echo "done; see $log"
