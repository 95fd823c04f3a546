#include "compiler/support/bit_generators.h"

#include <array>

namespace fusebox {

namespace {

using Words4 = std::array<uint32_t, 4>;
using Words2 = std::array<uint32_t, 2>;

uint32_t Low(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t High(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

// Philox-4x32 with 10 rounds, the key raised by the Weyl constants after each round.
Words4 Philox(Words4 x, Words2 key) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t a = uint64_t{0xD2511F53} * x[0];
    const uint64_t b = uint64_t{0xCD9E8D57} * x[2];
    x = {High(b) ^ x[1] ^ key[0], Low(b), High(a) ^ x[3] ^ key[1], Low(a)};
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
  return x;
}

uint32_t RotateLeft(uint32_t v, int r) { return (v << r) | (v >> (32 - r)); }

// Threefry-2x32 with 20 rounds: five groups of four, a key injection after each.
Words2 Threefry(Words2 x, Words2 key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  for (int group = 0; group < 5; ++group) {
    for (int r = 0; r < 4; ++r) {
      x[0] += x[1];
      x[1] = RotateLeft(x[1], kRotations[(group % 2) * 4 + r]);
      x[1] ^= x[0];
    }
    x[0] += ks[(group + 1) % 3];
    x[1] += ks[(group + 2) % 3] + static_cast<uint32_t>(group + 1);
  }
  return x;
}

}  // namespace

int64_t ThreefryHalvedDimension(const std::vector<int64_t>& dims) {
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] % 2 == 0) return static_cast<int64_t>(d);
  }
  int64_t longest = 0;
  for (size_t d = 1; d < dims.size(); ++d) {
    if (dims[d] > dims[static_cast<size_t>(longest)]) longest = static_cast<int64_t>(d);
  }
  return longest;
}

std::string GenerateXlaBits(BitGenerator generator, const std::vector<uint64_t>& state, const std::vector<int64_t>& dims,
                            int element_bits, std::vector<uint64_t>* bits, std::vector<uint64_t>* new_state) {
  if (state.size() < 2) return "the state must hold at least two u64 words (key, counter)";
  if (element_bits == 8 || element_bits == 16) {
    // Narrow elements: the low bits of the 32-bit elements of the same shape, the state
    // advanced as for those.
    const std::string error = GenerateXlaBits(generator, state, dims, 32, bits, new_state);
    const uint64_t mask = (uint64_t{1} << element_bits) - 1;
    for (uint64_t& v : *bits) v &= mask;
    return error;
  }
  if (element_bits != 32 && element_bits != 64) return "the generators make 8-, 16-, 32- and 64-bit elements only";
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return "negative dimension";
    n *= d;
  }
  bits->assign(static_cast<size_t>(n), 0);
  *new_state = state;
  const uint64_t key = state[0];
  const Words2 key_words = {Low(key), High(key)};
  if (generator == BitGenerator::kPhilox) {
    const uint64_t low = state[1];
    const uint64_t high = state.size() >= 3 ? state[2] : state[0];
    const int64_t words = element_bits == 32 ? n : 2 * n;
    const int64_t blocks = (words + 3) / 4;
    for (int64_t i = 0; i < blocks; ++i) {
      const uint64_t lo = low + static_cast<uint64_t>(i);
      const uint64_t hi = high + (lo < low ? 1 : 0);
      const Words4 out = Philox({Low(lo), High(lo), Low(hi), High(hi)}, key_words);
      if (element_bits == 32) {
        for (int64_t j = 0; j < 4 && 4 * i + j < n; ++j) (*bits)[static_cast<size_t>(4 * i + j)] = out[j];
      } else {
        for (int64_t j = 0; j < 2 && 2 * i + j < n; ++j) {
          (*bits)[static_cast<size_t>(2 * i + j)] = uint64_t{out[2 * j]} | (uint64_t{out[2 * j + 1]} << 32);
        }
      }
    }
    const uint64_t lo = low + static_cast<uint64_t>(blocks);
    (*new_state)[1] = lo;
    if (state.size() >= 3) (*new_state)[2] = state[2] + (lo < low ? 1 : 0);
    return "";
  }
  const uint64_t counter = state[1];
  auto encipher = [&](uint64_t i) {
    const uint64_t v = counter + i;
    return Threefry({Low(v), High(v)}, key_words);
  };
  if (element_bits == 64) {
    for (int64_t e = 0; e < n; ++e) {
      const Words2 out = encipher(static_cast<uint64_t>(e));
      (*bits)[static_cast<size_t>(e)] = uint64_t{out[0]} | (uint64_t{out[1]} << 32);
    }
    (*new_state)[1] = counter + static_cast<uint64_t>(n);
    return "";
  }
  if (dims.empty()) {
    (*bits)[0] = encipher(0)[0];
    (*new_state)[1] = counter + 1;
    return "";
  }
  const int64_t split = ThreefryHalvedDimension(dims);
  std::vector<int64_t> half = dims;
  half[static_cast<size_t>(split)] = (dims[static_cast<size_t>(split)] + 1) / 2;
  int64_t halves = 1;
  for (int64_t d : half) halves *= d;
  // Walk the full shape row-major; its index along `split` is 2q + r.
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t h = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      const int64_t i = static_cast<int64_t>(d) == split ? index[d] / 2 : index[d];
      h = h * half[d] + i;
    }
    const Words2 out = encipher(static_cast<uint64_t>(h));
    (*bits)[static_cast<size_t>(e)] = out[static_cast<size_t>(index[static_cast<size_t>(split)] % 2)];
    for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
      if (++index[static_cast<size_t>(d)] < dims[static_cast<size_t>(d)]) break;
      index[static_cast<size_t>(d)] = 0;
    }
  }
  (*new_state)[1] = counter + static_cast<uint64_t>(halves);
  return "";
}

}  // namespace fusebox
