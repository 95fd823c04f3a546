#!/usr/bin/env python3
"""Writes fuzz/input_corpus/: the input fuzzer's seeds (fuzz/input_checks.h says what an
input is). Each seed is one byte naming the reader, then what the reader reads:

  proto_*        real binary HLO protos from tests/data/xla_dumps*/ (byte 0)
  gzip_proto_*   the same, gzip-compressed (byte 1)
  npy_*          every .npy fixture of tests/data/npy/ (byte 2)
  npyas_*        the same, read with the shape tests/data/npy/manifest.txt gives (byte 3)
  dump_*         small XLA dump folders, as records of file name and content (byte 4)
  npz_*          .npz archives for the parameters x.1: f32[2,3] and y: s32[4], stored and
                 deflated, named and arr_<p>, and a real one jax's inputs were saved in (byte 5)

proto_snapshot_tanh_dot is an HloSnapshot jax 0.10.2 wrote on the CPU
(XLA_FLAGS="--xla_dump_to=DIR --xla_dump_hlo_snapshots --xla_dump_hlo_as_proto", a jitted
tanh(x @ y) as bf16 and a column sum plus a scalar); it is kept as it is, not rewritten
here. Usage: scripts/make_input_fuzz_corpus.py
"""
import gzip
import io
import os
import struct
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "input_corpus")
CPU = os.path.join(ROOT, "tests", "data", "xla_dumps")
GPU = os.path.join(ROOT, "tests", "data", "xla_dumps_gpu")
NPY = os.path.join(ROOT, "tests", "data", "npy")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def seed(name, selector, body):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(bytes([selector]) + body)


def folder(files):
    """Records: name length (1 byte), name, content length (2 bytes LE), content."""
    out = b""
    for name, content in files:
        name = name.encode()
        assert len(name) < 256 and len(content) < 65536, name
        out += bytes([len(name)]) + name + struct.pack("<H", len(content)) + content
    return out


def npy(descr, shape, data):
    """An .npy file (format 1.0): magic, header padded to 64 bytes, then the data."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join("%d" % d for d in shape) if len(shape) != 1 else "%d," % shape[0])
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


def npz(members, compression):
    """A zip of .npy members as numpy.savez (ZIP_STORED) or savez_compressed writes it;
    fixed timestamps, so the same bytes on every run."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as z:
        for name, content in members:
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = compression
            z.writestr(info, content)
    return buffer.getvalue()


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f != "proto_snapshot_tanh_dot":
            os.remove(os.path.join(OUT, f))

    rs = "module_0000.jit_reduce_sum."
    re_ = "module_0000.jit_running_example."
    protos = {
        "reduce_sum_before": (CPU, "reduce_sum", rs + "before_optimizations.hlo.pb"),
        "reduce_sum_cpu_after": (CPU, "reduce_sum", rs + "cpu_after_optimizations.hlo.pb"),
        "running_example_cpu_after": (CPU, "running_example", re_ + "cpu_after_optimizations.hlo.pb"),
        "reduce_sum_gpu_after": (GPU, "reduce_sum", rs + "sm_9.0a_gpu_after_optimizations.hlo.pb"),
        "running_example_gpu_after": (GPU, "running_example", re_ + "sm_9.0a_gpu_after_optimizations.hlo.pb"),
        "mnist_after_spmd": (GPU, "mnist_train_step", "module_0000.jit_mnist_train_step.after_spmd_partitioner.hlo.pb"),
    }
    for name, (base, program, file) in protos.items():
        seed("proto_" + name, 0, read(os.path.join(base, program, file)))
    # mtime=0: the same bytes on every run.
    seed("gzip_proto_reduce_sum_cpu_after", 1,
         gzip.compress(read(os.path.join(CPU, "reduce_sum", rs + "cpu_after_optimizations.hlo.pb")), 9, mtime=0))
    seed("gzip_proto_snapshot_tanh_dot", 1,
         gzip.compress(read(os.path.join(OUT, "proto_snapshot_tanh_dot"))[1:], 9, mtime=0))

    for f in sorted(os.listdir(NPY)):
        if f.endswith(".npy"):
            seed("npy_" + f[:-4], 2, read(os.path.join(NPY, f)))
    with open(os.path.join(NPY, "manifest.txt")) as manifest:
        for line in manifest:
            if line.startswith("#") or not line.strip():
                continue
            file, shape = line.split()[:2]
            seed("npyas_" + file[:-4], 3, shape.encode() + b"\n" + read(os.path.join(NPY, file)))
    seed("npyas_fortran_f32_column_major", 3,
         b"f32[2,3,4]{0,1,2}\n" + read(os.path.join(NPY, "fortran_f32.npy")))

    def dump(base, program, suffixes):
        return folder([(rs_name, read(os.path.join(base, program, rs_name)))
                       for rs_name in ("module_0000.jit_%s.%s" % (program, s) for s in suffixes)])

    seed("dump_cpu_reduce_sum", 4, dump(CPU, "reduce_sum", [
        "before_optimizations.txt",
        "0005.simplification.after_pipeline-start.before_algsimp.txt",
        "0011.dot-library-passes.after_dot-library-rewriter.before_pipeline-end.txt",
        "0015.copy-insertion.after_adding_copies_to_resolve_interference.hlo.pb",
        "cpu_after_optimizations.txt",
        "cpu_after_optimizations-buffer-assignment.txt",
        "cpu_after_optimizations-memory-usage-report.txt",
    ]))
    seed("dump_gpu_reduce_sum", 4, dump(GPU, "reduce_sum", [
        "before_optimizations.hlo.pb",
        "after_spmd_partitioner.txt",
        "sm_9.0a_gpu_after_optimizations.txt",
        "sm_9.0a_gpu_after_optimizations-live-range.txt",
        "thunk_sequence.txt",
        "debug_options",
    ]))
    # Two runs of one program (timestamped names) and a module XLA renumbered.
    before = read(os.path.join(CPU, "reduce_sum", rs + "before_optimizations.txt"))
    after = read(os.path.join(CPU, "reduce_sum", rs + "cpu_after_optimizations.txt"))
    seed("dump_timestamps_renumbered", 4, folder([
        ("1700000000000001.module_0003.jit_reduce_sum.before_optimizations.txt", before),
        ("1700000000000002.module_0003.jit_reduce_sum.before_optimizations.txt", before),
        ("module_0007.jit_reduce_sum.before_optimizations.txt", before),
        ("module_0008.jit_reduce_sum.cpu_after_optimizations.txt", after),
    ]))


    x = npy("<f4", (2, 3), struct.pack("<6f", 1, 2, 3, 4, 5, 6.5))
    y = npy("<i4", (4,), struct.pack("<4i", -1, 0, 7, 2**31 - 1))
    seed("npz_stored_named", 5, npz([("x", x), ("y", y)], zipfile.ZIP_STORED))
    seed("npz_deflated_arr", 5, npz([("arr_0", x), ("arr_1", y)], zipfile.ZIP_DEFLATED))
    seed("npz_full_names", 5, npz([("y", y), ("x.1", x)], zipfile.ZIP_DEFLATED))
    seed("npz_wrong_shape", 5, npz([("x", npy("<f4", (3, 2), struct.pack("<6f", *range(6)))), ("y", y)],
                                   zipfile.ZIP_STORED))
    seed("npz_extra_member", 5, npz([("x", x), ("y", y), ("z", y)], zipfile.ZIP_STORED))
    seed("npz_jax_inputs", 5, read(os.path.join(ROOT, "tests", "data", "multidevice", "psum_8dev", "inputs.npz")))


if __name__ == "__main__":
    main()
