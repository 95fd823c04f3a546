"""Fusebox vs XLA's GPU backend on the same GPU, the same HLO and the same inputs.

For each workload of compare_xla.py: jax (with CUDA) lowers the function to HLO, XLA
compiles it for the GPU and runs it with device-resident arguments; XLA's time is the
median wall time per call (block_until_ready) and, when jax's profiler trace can be read,
the GPU kernel time per call from that trace. Fusebox then runs the same HLO through
`fusebox run --backend gpu` (arguments uploaded once, kernel time from CUPTI):
  * with NVIDIA's libraries (`--gpu-library=on`, TF32 for DEFAULT precision like XLA),
  * with its own kernels only (`--gpu-library=off`),
  * and once more with `--expected` XLA's outputs (full-f32 gemms) to check the result.
XLA's optimized module (`compiled.as_text()`, with its cuBLAS/cuDNN calls) also runs in
Fusebox against XLA's outputs: XLA's plan on Fusebox's runtime.

Printed per workload: XLA wall and kernel ms, Fusebox kernel ms (on, off), the ratio
XLA time / Fusebox kernel time (above 1: Fusebox faster), kernel counts, and whether
the outputs agree (with XLA's outputs computed at HIGHEST precision, so that TF32's
rounding is not held against an f32 check). Run through scripts/compare_xla.sh --backend gpu, or directly with a
python that has jax with CUDA:
  python3 bench/compare_xla/compare_xla_gpu.py --fusebox build/release/app/fusebox
"""
import argparse
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

import jax

sys.path.insert(0, os.path.dirname(__file__))
import compare_xla as cx  # noqa: E402  (its workloads and inputs)


def summarize_gpu_events(events, iterations, top=8):
    """Kernel time per call from a perfetto trace's events: (ms, kernels per call, the
    costliest kernels as "name: us per call (launches per call)"), memcpys and memsets
    left out; None when no GPU kernel is in the trace."""
    gpu_pids = set()
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            name = str(e.get("args", {}).get("name", ""))
            if "/device:GPU" in name or "GPU" in name and "Host" not in name:
                gpu_pids.add(e.get("pid"))
    total_us = 0.0
    count = 0
    by_name = {}
    for e in events:
        if e.get("ph") == "X" and e.get("pid") in gpu_pids and "dur" in e:
            name = str(e.get("name", ""))
            if name.startswith("Memcpy") or name.startswith("Memset") or "memcpy" in name.lower():
                continue
            total_us += float(e["dur"])
            count += 1
            us, n = by_name.get(name, (0.0, 0))
            by_name[name] = (us + float(e["dur"]), n + 1)
    if count == 0:
        return None
    costliest = sorted(by_name.items(), key=lambda kv: -kv[1][0])[:top]
    lines = [f"{name[:90]}: {us / iterations:.2f} us/call ({n / iterations:g}x)" for name, (us, n) in costliest]
    return total_us / 1e3 / iterations, count // iterations, lines


def xla_kernel_ms(compiled, device_args, iterations, trace_dir):
    """GPU kernel time per call from jax's profiler trace (perfetto JSON), or None; a note;
    XLA's costliest kernels (to hold beside Fusebox's)."""
    try:
        with jax.profiler.trace(trace_dir, create_perfetto_trace=True):
            for _ in range(iterations):
                jax.block_until_ready(compiled(*device_args))
        paths = glob.glob(os.path.join(trace_dir, "**", "perfetto_trace.json.gz"), recursive=True)
        if not paths:
            return None, "no perfetto trace", []
        with gzip.open(sorted(paths)[-1], "rt") as f:
            trace = json.load(f)
        events = trace["traceEvents"] if isinstance(trace, dict) else trace
        summary = summarize_gpu_events(events, iterations)
        if summary is None:
            return None, "no GPU events in the trace", []
        ms, per_call, top = summary
        return ms, f"{per_call} kernels per call", top
    except Exception as exc:  # the profiler is best effort: the wall time still stands
        return None, f"profiler: {exc}"[:200], []


def time_xla(fn, args, iterations, workdir, name):
    device_args = [jax.device_put(a) for a in args]
    jitted = jax.jit(fn)
    lowered = jitted.lower(*device_args)
    t0 = time.perf_counter()
    compiled = lowered.compile()
    compile_s = time.perf_counter() - t0
    out = compiled(*device_args)
    jax.block_until_ready(out)
    times = []
    for _ in range(iterations):
        s = time.perf_counter()
        jax.block_until_ready(compiled(*device_args))
        times.append(time.perf_counter() - s)
    times.sort()
    kernel_ms, kernel_note, top = xla_kernel_ms(compiled, device_args, iterations,
                                                os.path.join(workdir, name + ".xla_trace"))
    optimized = compiled.as_text()
    # The reference outputs in full f32: XLA's DEFAULT precision computes products in TF32,
    # whose rounding no f32 check would accept; Fusebox's checked runs use full f32 too.
    with jax.default_matmul_precision("highest"):
        reference = jax.jit(lambda *a: fn(*a))(*device_args)
    out = reference
    with open(os.path.join(workdir, name + ".xla_optimized.hlo"), "w") as f:
        f.write(optimized)
    outs = [np.asarray(o) for o in jax.tree.leaves(out)]
    return lowered, {"wall_ms": times[len(times) // 2] * 1e3, "kernel_ms": kernel_ms, "kernel_note": kernel_note,
                     "compile_s": compile_s, "top": top}, outs


PER_RUN = re.compile(r"per run \(median\): kernels ([0-9.]+) ms, host<->device copies ([0-9.]+) ms, wall ([0-9.]+) ms")
LAUNCHES = re.compile(r"(\d+) kernel launches per run \((\d+) kernels\)( \+ (\d+) library call)?")
COMPILE = re.compile(r"compile ([0-9.]+) s")


def run_fusebox(fusebox, hlo, inputs, iterations, extra, expected=None, timeout=600, log_path=None):
    cmd = [fusebox, "run", hlo, "--backend", "gpu", "--inputs", ",".join(inputs), "--iterations", str(iterations)]
    cmd += extra
    if expected:
        cmd += ["--expected", ",".join(expected)]
    env = dict(os.environ)
    if os.environ.get("FUSEBOX_LD_LIBRARY_PATH"):
        # The bundle's libraries for Fusebox only (python and jax keep the machine's own).
        env["LD_LIBRARY_PATH"] = os.environ["FUSEBOX_LD_LIBRARY_PATH"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    text = proc.stdout + proc.stderr
    if log_path:  # the whole output (every kernel's row), to read after the device is gone
        with open(log_path, "w") as f:
            f.write(" ".join(cmd) + "\n" + text)
    out = {"exit": proc.returncode}
    m = PER_RUN.search(text)
    if m:
        out.update(kernel_ms=float(m.group(1)), copies_ms=float(m.group(2)), wall_ms=float(m.group(3)))
    m = LAUNCHES.search(text)
    if m:
        out.update(launches=int(m.group(1)), library_calls=int(m.group(4) or 0))
    m = COMPILE.search(text)
    if m:
        out["compile_s"] = float(m.group(1))
    # The kernel table's first rows (the costliest kernels), to say where the time goes.
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Time (%)"):
            out["top"] = [l[:200] for l in lines[i + 2:i + 8] if l.strip() and not l.startswith("...")]
            break
    if proc.returncode != 0:
        out["error"] = text.strip()[-600:]
    out["match"] = proc.returncode == 0 and "does not match" not in text and "NOT match" not in text
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fusebox", required=True, help="path of the fusebox binary")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--scale", choices=["full", "small"], default="full")
    p.add_argument("--only", default="")
    p.add_argument("--json", default="")
    p.add_argument("--extras", action="store_true", help="also the workloads outside #26's table (topk, cuDNN attention)")
    p.add_argument("--workdir", default="")
    args = p.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="fusebox_compare_xla_gpu_")
    os.makedirs(workdir, exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    dev = jax.devices()[0]
    print(f"jax {jax.__version__} on {dev.platform} ({getattr(dev, 'device_kind', '?')}); work folder {workdir}",
          flush=True)
    if dev.platform != "gpu":
        print("compare_xla_gpu: jax sees no GPU", flush=True)
        return 1
    results = []
    print(f"{'workload':18s} {'XLA wall':>9s} {'XLA kern':>9s} | {'FB lib on':>9s} {'FB off':>9s} | "
          f"{'ratio on':>8s} {'ratio off':>9s} | launches (lib) | check | XLA's module in Fusebox", flush=True)
    extras = cx.extra_workloads(args.scale) + cx.gpu_extra_workloads(args.scale) if args.extras else []
    for name, klass, fn, flat_args, _ in cx.workloads(args.scale) + extras:
        if only and name not in only:
            continue
        row = {"name": name, "class": klass}
        try:
            lowered, xla, outs = time_xla(fn, flat_args, args.iterations, workdir, name)
        except Exception as exc:
            row["xla_error"] = str(exc)[:300]
            results.append(row)
            print(f"{name:18s} XLA failed: {row['xla_error']}", flush=True)
            continue
        hlo, inputs, expected = cx.write_case(workdir, name, lowered, flat_args, outs)
        row["xla"] = xla
        row["fusebox_on"] = run_fusebox(args.fusebox, hlo, inputs, args.iterations, ["--gpu-library=on"],
                                        log_path=os.path.join(workdir, name + ".fusebox_on.txt"))
        row["fusebox_off"] = run_fusebox(args.fusebox, hlo, inputs, args.iterations, ["--gpu-library=off"])
        row["check"] = run_fusebox(args.fusebox, hlo, inputs, 1, [], expected=expected)
        row["xla_module"] = run_fusebox(args.fusebox, os.path.join(workdir, name + ".xla_optimized.hlo"), inputs, 3,
                                        [], expected=expected)
        xla_ms = xla["kernel_ms"] if xla["kernel_ms"] is not None else xla["wall_ms"]
        on, off = row["fusebox_on"], row["fusebox_off"]
        ratio = lambda r: xla_ms / r["kernel_ms"] if r.get("kernel_ms") else float("nan")
        row["ratio_on"] = ratio(on)
        row["ratio_off"] = ratio(off)
        fmt = lambda v: f"{v:9.4f}" if isinstance(v, float) else f"{'-':>9s}"
        verdict = lambda r: "match" if r.get("match") else ("FAIL: " + r.get("error", "?").splitlines()[-1][:120])
        print(f"{name:18s} {fmt(xla['wall_ms'])} {fmt(xla['kernel_ms'])} | {fmt(on.get('kernel_ms'))} "
              f"{fmt(off.get('kernel_ms'))} | {row['ratio_on']:8.2f} {row['ratio_off']:9.2f} | "
              f"{on.get('launches', '-')} ({on.get('library_calls', 0)}) vs off {off.get('launches', '-')} | "
              f"{verdict(row['check'])} | {verdict(row['xla_module'])}", flush=True)
        print(f"{'':18s} XLA compile {xla['compile_s']:.2f} s, {xla['kernel_note']}; Fusebox compile "
              f"{on.get('compile_s', float('nan')):.2f} s, copies {on.get('copies_ms', float('nan')):.3f} ms/run, "
              f"wall {on.get('wall_ms', float('nan')):.3f} ms/run", flush=True)
        for line in on.get("top", []):
            print(f"{'':18s}   {line}", flush=True)
        if xla.get("top"):
            print(f"{'':18s} XLA's costliest kernels:", flush=True)
            for line in xla["top"]:
                print(f"{'':18s}   {line}", flush=True)
        for key in ("fusebox_on", "fusebox_off"):
            if "error" in row[key]:
                print(f"{'':18s} {key} failed: {row[key]['error'][-300:]}", flush=True)
        results.append(row)
        if args.json:  # after each workload: a step cut off by its time limit keeps the rows it ran
            with open(args.json, "w") as f:
                json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
