#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs Fusebox on the bundled
# examples (the running example reduce_mean(x**2 * 3 + y) on 16384x16384 f32, and the
# MNIST training step in the workbench), writing everything it produces to out/example/:
# headless, the workbench's views are rendered to PNGs under Xvfb; with a display, the
# workbench then opens.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
scripts/build.sh release
fb=build/release/app/fusebox
example="${1:-assets/examples/running_example.hlo}"
out=out/example
mkdir -p "$out"
"$fb" inspect "$example" | tee "$out/inspect.txt"
"$fb" inspect --json "$example" > "$out/inspect.json"
"$fb" print --verify "$example" -o "$out/canonical.hlo"
"$fb" verify "$example"
"$fb" compile "$example" --dump-to "$out/dump" -o "$out/optimized.hlo"
"$fb" explain "$example" | tee "$out/explain.txt"
"$fb" compile "$example" --stage llvm_ir_optimized -o "$out/kernels.ll"
"$fb" compile "$example" --stage cpu_asm -o "$out/kernels.s"
"$fb" compile "$example" --stage ptx -o "$out/kernels.ptx"
# ptxas info needs CUDA's ptxas; the GPU run needs a driver and a GPU: say so and go on.
"$fb" compile "$example" --stage ptxas_info -o "$out/ptxas_info.txt" || echo "fusebox: no ptxas_info (see above)"
if ! "$fb" run "$example" --backend gpu --seed 1 --iterations 3 --trace "$out/trace_gpu.json" \
  2>&1 | tee "$out/gpu_fused.txt"; then
  echo "fusebox: no GPU run (see $out/gpu_fused.txt)"
fi
"$fb" run "$example" --backend cpu --seed 1 --iterations 3 --unfused --trace "$out/trace_unfused.json" \
  2>&1 | tee "$out/cpu_unfused.txt"
"$fb" run "$example" --backend cpu --seed 1 --iterations 3 --trace "$out/trace_fused.json" --print \
  --output-dir "$out/run_cpu" 2>&1 | tee "$out/cpu_fused.txt"
"$fb" run "$example" --backend interpreter --seed 1 --print --output-dir "$out/run"
"$fb" graph "$example" --format svg --out "$out/graph.svg"
# The bug report: report.html, report.md, traces, graph, stages, reproducer, .tar.gz.
"$fb" report "$example" --seed 1 --iterations 3 --out "$out/report"
# A real XLA dump folder: its index, and XLA's fusion against Fusebox's.
dump=tests/data/xla_dumps/mnist_train_step
"$fb" index "$dump" | tee "$out/dump_index.txt"
"$fb" compare-fusion "$dump" | tee "$out/compare_fusion.txt"
# Memory over the schedule: the peak fused and unfused, the buffers there, XLA's own peak.
"$fb" memory "$dump" | tee "$out/memory.txt"
# The workbench itself. With a display it opens on the example (after the files above are
# written); headless, the scripted workbench renders each view to a PNG under Xvfb.
gui_example=assets/examples/mnist_train_step.hlo
for view in stages passes graph timeline; do
  xvfb-run -a -s "-screen 0 1600x1000x24" "$fb" gui --open "$gui_example" --view "$view" \
    --select dot_general.2 --size 1600x1000 --scale 1 --screenshot "$out/workbench_$view.png" ||
    echo "fusebox: the workbench could not render the $view view (see above)"
done
xvfb-run -a -s "-screen 0 1600x1000x24" "$fb" gui --open "$dump" --view compare --size 1600x1000 \
  --scale 1 --screenshot "$out/workbench_compare.png" ||
  echo "fusebox: the workbench could not render the XLA-vs-Fusebox view (see above)"
xvfb-run -a -s "-screen 0 1600x1000x24" "$fb" gui --open tests/data/xla_dumps/cifar_cnn_train_step --view memory \
  --select fusion.16 --size 1600x1000 --scale 1 --screenshot "$out/workbench_memory.png" ||
  echo "fusebox: the workbench could not render the memory view (see above)"
echo "fusebox: wrote $out/inspect.txt, $out/inspect.json, $out/canonical.hlo, $out/optimized.hlo,"
echo "         $out/explain.txt, $out/dump/ (XLA dump layout with LLVM IR, assembly, buffers),"
echo "         $out/kernels.ll, $out/kernels.s, $out/kernels.ptx, $out/ptxas_info.txt,"
echo "         $out/cpu_{fused,unfused}.txt, $out/gpu_fused.txt, $out/trace_*.json"
echo "         (Chrome traces: open in https://ui.perfetto.dev), $out/run_cpu/ and $out/run/,"
echo "         $out/graph.svg, $out/report/ (report.html, report.md, repro/, .tar.gz),"
echo "         $out/dump_index.txt, $out/compare_fusion.txt, $out/memory.txt and $out/workbench_*.png"
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" && -z "${FUSEBOX_HEADLESS:-}" ]]; then
  echo "fusebox: opening the workbench on $gui_example (set FUSEBOX_HEADLESS=1 to skip)"
  "$fb" open "$gui_example"
fi
