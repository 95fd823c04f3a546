// Reading and writing NumPy .npy files (format versions 1.0-3.0), the tensor format users
// already have. NumPy dtypes map to element types: bool->pred, int8..int64 -> s8..s64,
// uint8..uint64 -> u8..u64, float16/32/64 -> f16/f32/f64, complex64/128 -> c64/c128.
//
// Types NumPy lacks (bf16, the f8 types, f4e2m1fn, s4/u4, s2/u2, s1/u1) come from
// ml_dtypes, and `np.save` does not record which one it was: it writes the raw element
// bytes with descr '<V2' (bfloat16) or '<V1' (the 1-byte types; the sub-byte integers and
// f4 take one byte per element, the value in the low bits), except that ml_dtypes 0.6
// writes float8_e5m2 as '<f1', which NumPy itself cannot load back. Such files are read
// only when the caller says which type to expect (see ReadNpy). Fusebox writes these
// types as '<V2' / '<V1' so that `np.load(path).view(ml_dtypes.bfloat16)` (or the
// matching ml_dtypes type) gives the values back.
#pragma once

#include <optional>
#include <string>

#include "compiler/ir/literal.h"
#include "compiler/support/status.h"

namespace fusebox::interpreter {

// Reads an .npy file into a literal with the file's dtype and shape. Fortran-order arrays
// are transposed into row-major. `expected` (optional) lets raw-bit dtypes (ml_dtypes'
// bfloat16 / float8 saved as void 'V1'/'V2') be read as that element type, and reports a
// clear error when the file's dtype or shape differs from what the module wants. With
// `expected`, the result has exactly that shape (layout included). Every error message
// starts with the file name.
StatusOr<Literal> ReadNpy(const std::string& path, const Shape* expected = nullptr);

// As above; `expected_what` names what `expected` describes, for messages such as
// "x.npy: holds float64[3,4] but parameter 0 of the module is f32[3,4]".
StatusOr<Literal> ReadNpy(const std::string& path, const Shape* expected,
                          const std::string& expected_what);

// Parses .npy bytes (for tests and archives). `name` starts every error message.
StatusOr<Literal> ParseNpy(const std::string& bytes, const std::string& name,
                           const Shape* expected = nullptr);
StatusOr<Literal> ParseNpy(const std::string& bytes, const std::string& name, const Shape* expected,
                           const std::string& expected_what);

// Writes an array literal as .npy (v1.0, little-endian, C order; v2.0 only if the header
// would not fit v1.0's 64 KiB). Types NumPy lacks are written as raw void of their slot
// size, as ml_dtypes' own np.save does (see the top of this file). Tuples, tokens and
// literals without storage are errors.
Status WriteNpy(const std::string& path, const Literal& literal);
// The bytes WriteNpy writes; empty for a literal WriteNpy would refuse.
std::string SerializeNpy(const Literal& literal);

}  // namespace fusebox::interpreter
