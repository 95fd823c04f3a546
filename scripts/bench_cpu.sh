#!/usr/bin/env bash
# Builds release and runs the CPU backend benchmark (bench/cpu_backend_bench.cc), then
# prints fused-over-unfused speedups and fractions of copy bandwidth from its JSON output.
#   scripts/bench_cpu.sh                             # default: 4096 cases, MNIST, copy baseline
#   scripts/bench_cpu.sh --benchmark_filter=Large    # the 16384x16384 cases (GiBs, slow)
# Extra arguments go to the benchmark. FUSEBOX_BUILD_DIR picks another build folder.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build_dir="${FUSEBOX_BUILD_DIR:-build/release}"
if [[ "$build_dir" == build/release ]]; then
  cmake --preset release >/dev/null
else
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFUSEBOX_WERROR=ON >/dev/null
fi
cmake --build "$build_dir" --target cpu_backend_bench
out=out/bench
mkdir -p "$out"
json="$out/cpu_backend_bench.json"
"$build_dir/bench/cpu_backend_bench" --benchmark_format=console \
  --benchmark_out="$json" --benchmark_out_format=json "$@"

python3 - "$json" <<'EOF'
import json, sys

to_ms = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
runs = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("error_occurred"):
        continue
    # With --benchmark_repetitions, read the medians.
    if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
        continue
    name = b.get("run_name", b["name"]).removesuffix("/real_time")
    if name in runs and b.get("run_type") != "aggregate":
        continue
    runs[name] = b

def ms(b):
    return b["real_time"] * to_ms[b["time_unit"]]

print()
print("baselines (copy: bytes read + written per second; read: bytes summed per second)")
for name, b in runs.items():
    if name.startswith(("CopyBaseline/", "ReadBaseline/")):
        print(f"  {name:<36} {b['bytes_per_second'] / 1e9:7.2f} GB/s")

groups = {}
for name, b in runs.items():
    group, _, mode = name.rpartition("/")
    if mode in ("fused", "unfused", "interpreter"):
        groups.setdefault(group, {})[mode] = b

print()
header = (f"{'workload':<26} {'fused ms':>9} {'unfused ms':>10} {'speedup':>8} {'interp/fused':>12}"
          f" {'fused GB/s':>10} {'of_copy_bw':>10} {'of_read_bw':>10} {'unfused of':>10} {'kernels':>9}")
print(header)
print("-" * len(header))
for group, modes in groups.items():
    f, u, i = modes.get("fused"), modes.get("unfused"), modes.get("interpreter")
    def cell(value, fmt, width, suffix=""):
        text = f"{value:{fmt}}{suffix}" if value is not None else "-"
        return f"{text:>{width}}"
    kernels = (f"{int(f['kernels'])}/{int(u['kernels'])}" if f and u else "-")
    print(f"{group:<26}"
          f" {cell(ms(f) if f else None, '.2f', 9)}"
          f" {cell(ms(u) if u else None, '.2f', 10)}"
          f" {cell(ms(u) / ms(f) if f and u else None, '.2f', 8, 'x')}"
          f" {cell(ms(i) / ms(f) if f and i else None, '.1f', 12, 'x')}"
          f" {cell(f['bytes_per_second'] / 1e9 if f else None, '.2f', 10)}"
          f" {cell(f['of_copy_bw'] if f else None, '.3f', 10)}"
          f" {cell(f.get('of_read_bw') if f else None, '.3f', 10)}"
          f" {cell(u['of_copy_bw'] if u else None, '.3f', 10)}"
          f" {kernels:>9}")
print()
print("speedup = unfused time / fused time; interp/fused = interpreter time / fused time;")
print("of_copy_bw = (inputs + outputs bytes / time) / multi-threaded copy bandwidth;")
print("of_read_bw = the same over the multi-threaded read (sum) bandwidth;")
print("kernels = launches per run, fused/unfused. JSON:", sys.argv[1])
EOF
