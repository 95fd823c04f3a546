// XLA's random bit generators, bit for bit: what its RngBitGenerator expansion computes for
// rng-bit-generator on the CPU and GPU (checked against jax's lax.rng_bit_generator on
// XLA's CPU backend: tests/compiler/interpreter/rng_bit_generator_test.cc). The
// interpreter and the CPU runtime both call this, so that a jax program whose keys use the
// rbg or unsafe_rbg implementations draws the same numbers as under XLA.
//
// The state is u64[n], n >= 2; element 0 is the key.
//   Philox-4x32-10 (RNG_PHILOX, and RNG_DEFAULT on XLA's CPU and GPU): the counter is a
//   128-bit number, low word state[1], high word state[2] (n >= 3) or state[0] (n == 2).
//   Block i (i = 0, 1, ...) enciphers counter + i under the key's two 32-bit halves and
//   gives four 32-bit words; 32-bit elements take them in order, 64-bit ones pair them
//   (word 0 low, word 1 high; then words 2 and 3). The new state is the key and the
//   counter advanced by the blocks used (its low word only when n == 2).
//   Threefry-2x32-20 (RNG_THREE_FRY): state[1] is a 64-bit counter. 64-bit elements:
//   element e enciphers counter + e (row-major). 32-bit elements: the shape is halved
//   along its first even dimension (else its longest), each element h of the halved shape
//   enciphers counter + h into two words, which go to positions 2q and 2q + 1 of that
//   dimension (the second dropped past an odd end); a scalar takes the first word. The new
//   state is the key and the counter advanced by the elements enciphered.
//   8- and 16-bit elements (u8, u16, as jax's lax.rng_bit_generator makes them): the low
//   bits of the 32-bit elements of the same shape, the state advanced as for those.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fusebox {

enum class BitGenerator { kPhilox, kThreeFry };

// The dimension Threefry halves for 32-bit elements of `dims` (rank >= 1): the first of
// even size, else the longest (the first of equals).
int64_t ThreefryHalvedDimension(const std::vector<int64_t>& dims);

// One uint64_t per element in `bits` (32-bit elements in its low half), row-major over
// `dims`; `element_bits` is 8, 16, 32 or 64. Returns "" or what is wrong with the request.
std::string GenerateXlaBits(BitGenerator generator, const std::vector<uint64_t>& state, const std::vector<int64_t>& dims,
                            int element_bits, std::vector<uint64_t>* bits, std::vector<uint64_t>* new_state);

}  // namespace fusebox
