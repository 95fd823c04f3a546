#!/usr/bin/env python3
"""Writes the .npy fixtures of tests/compiler/interpreter/npy_test.cc, made by NumPy itself.

Needs numpy and ml_dtypes; run it in a throwaway virtualenv:
    python3 -m venv /tmp/npyvenv && /tmp/npyvenv/bin/pip install numpy ml_dtypes
    /tmp/npyvenv/bin/python scripts/make_npy_testdata.py
It writes into tests/data/npy/ (or --out DIR):
  <name>.npy      one array per file: every NumPy dtype, every ml_dtypes type, Fortran
                  order, big-endian, 0-d, empty, format versions 2.0 and 3.0
  bad_*.npy       files Fusebox must reject with a clear message (the test names them)
  manifest.txt    one line per good file: `<file> <XLA shape> <element> ...`, elements in
                  row-major order as NumPy sees them:
                    pred, integers   decimal
                    real floats      <hex bits>/<repr(float(x))>, e.g. 3fc0/1.5
                    complex          <repr(re)>,<repr(im)>
The C++ build and tests use only the committed outputs, never Python.
"""
import argparse
import io
import os

import ml_dtypes
import numpy as np
from numpy.lib import format as npy_format

INF = float("inf")
NAN = float("nan")

# NumPy dtype -> XLA element type, for the manifest.
XLA_TYPE = {
    "bool": "pred",
    "int8": "s8", "int16": "s16", "int32": "s32", "int64": "s64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "float32": "f32", "float64": "f64",
    "complex64": "c64", "complex128": "c128",
    "bfloat16": "bf16",
    "float8_e4m3fn": "f8e4m3fn", "float8_e5m2": "f8e5m2", "float8_e4m3fnuz": "f8e4m3fnuz",
    "float8_e5m2fnuz": "f8e5m2fnuz", "float8_e4m3b11fnuz": "f8e4m3b11fnuz",
    "float8_e4m3": "f8e4m3", "float8_e3m4": "f8e3m4", "float8_e8m0fnu": "f8e8m0fnu",
    "float4_e2m1fn": "f4e2m1fn",
    "int4": "s4", "uint4": "u4", "int2": "s2", "uint2": "u2",
}


def element_text(array, value):
    name = array.dtype.newbyteorder("=").name
    if name == "bool" or np.issubdtype(array.dtype, np.integer) or name in (
            "int4", "uint4", "int2", "uint2"):
        return str(int(value))
    if np.issubdtype(array.dtype, np.complexfloating):
        return f"{float(value.real)!r},{float(value.imag)!r}"
    bits_type = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[array.dtype.itemsize]
    native = np.array([value], dtype=array.dtype.newbyteorder("="))
    bits = int(native.view(bits_type)[0])
    return f"{bits:x}/{float(value)!r}"


class Writer:
    def __init__(self, out):
        self.out = out
        self.manifest = []

    def save(self, name, array, version=None):
        path = os.path.join(self.out, name)
        if version is None:
            np.save(path, array, allow_pickle=False)
        else:
            with open(path, "wb") as f:
                npy_format.write_array(f, array, version=version, allow_pickle=False)
        dtype_name = array.dtype.newbyteorder("=").name
        dims = ",".join(str(d) for d in array.shape)
        shape = f"{XLA_TYPE[dtype_name]}[{dims}]"
        elements = [element_text(array, v) for v in array.ravel(order="C")]
        self.manifest.append(" ".join([name, shape] + elements))

    def raw(self, name, data):
        with open(os.path.join(self.out, name), "wb") as f:
            f.write(data)

    def finish(self):
        with open(os.path.join(self.out, "manifest.txt"), "w") as f:
            f.write("# Written by scripts/make_npy_testdata.py; see there for the format.\n")
            for line in self.manifest:
                f.write(line + "\n")


def header_bytes(header_dict_text, major=1):
    """A .npy prefix with a hand-written header, padded as NumPy pads."""
    header = header_dict_text.encode("latin1")
    length_size = 2 if major == 1 else 4
    total = 8 + length_size + len(header) + 1
    header += b" " * ((64 - total % 64) % 64) + b"\n"
    return b"\x93NUMPY" + bytes([major, 0]) + len(header).to_bytes(length_size, "little") + header


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--out", default=os.path.join(root, "tests", "data", "npy"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    w = Writer(args.out)

    # Every NumPy dtype, C order, little-endian (as np.save writes on any usual machine).
    w.save("bool.npy", np.array([[True, False, True], [False, False, True]]))
    for t in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(t)
        w.save(f"{np.dtype(t).name}.npy",
               np.array([[info.min, -1, 0], [1, 7, info.max]], dtype=t))
    for t in (np.uint8, np.uint16, np.uint32, np.uint64):
        info = np.iinfo(t)
        w.save(f"{np.dtype(t).name}.npy", np.array([[0, 1, 2], [7, 100, info.max]], dtype=t))
    w.save("float16.npy", np.array([[0.0, -0.0, 1.5], [-2.25, 65504.0, 6e-08],
                                    [INF, -INF, NAN]], dtype=np.float16))
    w.save("float32.npy", np.array([[0.1, -3.4e38, 1e-45], [INF, NAN, -0.0]],
                                   dtype=np.float32))
    w.save("float64.npy", np.array([0.1, -1e308, 5e-324, -INF, NAN, 2.0 / 3.0]))
    w.save("complex64.npy", np.array([1 + 2j, -0.5 - 0.25j, complex(INF, 1)],
                                     dtype=np.complex64))
    w.save("complex128.npy", np.array([[0.1 + 0.2j], [complex(NAN, -1)]], dtype=np.complex128))

    # ml_dtypes types: written raw ('<V2', '<V1', and '<f1' for float8_e5m2).
    floats = [0.0, 0.5, -1.0, 1.75, -0.125, 3.0]
    for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                 "float8_e5m2fnuz", "float8_e4m3b11fnuz", "float8_e4m3", "float8_e3m4"):
        t = getattr(ml_dtypes, name)
        w.save(f"{name}.npy", np.array(floats, dtype=np.float32).astype(t).reshape(2, 3))
    w.save("bfloat16_special.npy",
           np.array([INF, -INF, NAN, 3.0e38, 1e-40, -0.0], dtype=np.float32)
           .astype(ml_dtypes.bfloat16))
    w.save("float8_e8m0fnu.npy",
           np.array([0.25, 1.0, 2.0, 1024.0], dtype=np.float32).astype(ml_dtypes.float8_e8m0fnu))
    w.save("float4_e2m1fn.npy",
           np.array([0.0, 0.5, -1.5, 6.0, -6.0, 3.0], dtype=np.float32)
           .astype(ml_dtypes.float4_e2m1fn))
    w.save("int4.npy", np.array([-8, -1, 0, 7], dtype=ml_dtypes.int4))
    w.save("uint4.npy", np.array([0, 1, 9, 15], dtype=ml_dtypes.uint4))
    w.save("int2.npy", np.array([-2, -1, 0, 1], dtype=ml_dtypes.int2))
    w.save("uint2.npy", np.array([0, 1, 2, 3], dtype=ml_dtypes.uint2))

    # Layout and encoding variants.
    w.save("fortran_f32.npy", np.asfortranarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4)))
    w.save("fortran_i16.npy", np.asfortranarray(np.array([[1, 2], [3, 4], [5, 6]], np.int16)))
    w.save("fortran_bf16.npy", np.asfortranarray(
        np.array([[1, 2, 3], [4, 5, 6]], np.float32).astype(ml_dtypes.bfloat16)))
    w.save("big_i4.npy", np.array([1, -2, 0x12345678], dtype=">i4"))
    w.save("big_u2.npy", np.array([[1, 0xABCD]], dtype=">u2"))
    w.save("big_f8.npy", np.array([1.5, -INF, 0.1], dtype=">f8"))
    w.save("big_c8.npy", np.array([1 - 2j], dtype=">c8"))
    w.save("big_fortran_f4.npy", np.asfortranarray(np.array([[1, 2, 3], [4, 5, 6]], ">f4")))
    w.save("scalar_f64.npy", np.array(2.5))
    w.save("scalar_i32.npy", np.array(-7, dtype=np.int32))
    w.save("scalar_bf16.npy", np.array(1.5, dtype=ml_dtypes.bfloat16))
    w.save("empty_f32.npy", np.zeros((0, 3), dtype=np.float32))
    w.save("empty_i8.npy", np.zeros((0,), dtype=np.int8))
    # NumPy writes empty arrays as C order; a Fortran-order one must still read.
    w.raw("empty_fortran_f64.npy",
          header_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 0, 3), }"))
    w.manifest.append("empty_fortran_f64.npy f64[2,0,3]")
    w.save("v2_i16.npy", np.array([[1, -1], [300, -300]], dtype=np.int16), version=(2, 0))
    w.save("v3_f32.npy", np.array([0.5, -0.5], dtype=np.float32), version=(3, 0))

    # Files to reject.
    good = io.BytesIO()
    np.save(good, np.arange(12, dtype=np.float32).reshape(3, 4))
    w.raw("bad_truncated.npy", good.getvalue()[:-20])
    w.raw("bad_trailing.npy", good.getvalue() + b"\0\0\0\0")
    w.raw("bad_magic.npy", b"\x93NUMPX" + good.getvalue()[6:])
    w.raw("bad_version.npy", good.getvalue()[:6] + b"\x04\x00" + good.getvalue()[8:])
    w.raw("bad_header_no_shape.npy",
          header_bytes("{'descr': '<f4', 'fortran_order': False, }") + b"\0" * 4)
    w.raw("bad_header_syntax.npy",
          header_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3 4), }") +
          b"\0" * 48)
    w.raw("bad_header_length.npy", b"\x93NUMPY\x01\x00\xff\x00{'descr'")
    structured = io.BytesIO()
    np.save(structured, np.zeros(2, dtype=[("a", "<f4"), ("b", "<i4")]))
    w.raw("bad_structured.npy", structured.getvalue())
    strings = io.BytesIO()
    np.save(strings, np.array(["ab", "c"]))
    w.raw("bad_unicode.npy", strings.getvalue())
    w.raw("bad_long_double.npy",
          header_bytes("{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }") +
          b"\0" * 16)
    w.finish()


if __name__ == "__main__":
    main()
