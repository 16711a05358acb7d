// Advancing a reflected (LSB-first) CRC register through n zero bytes in O(log n).
//
// Elided payloads (ByteRun.data == nullptr) stand for runs of zero bytes, and VCRC is recomputed on
// every hop: walking 2 KiB of zeros byte by byte per hop would dominate the simulator's time. Zero
// bytes act on the register as a linear map M over GF(2), so n zeros are M^n; the powers M^(2^k)
// are built at compile time (as nibble lookup tables) and n is applied one set bit at a time (one
// table lookup per register nibble and set bit; a power-of-two length like 2048 is one step).
//
// The register here is the raw shift register: after the init value, before the final xor. For a
// reflected CRC that is checksum ^ xorout (e.g. Boost.CRC's checksum() ^ final xor value).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ibfsim {

namespace crc_detail {

// A linear map on the register: column i is the image of register bit i.
template <typename Reg>
using Matrix = std::array<Reg, 8 * sizeof(Reg)>;

template <typename Reg>
constexpr Reg apply(const Matrix<Reg>& m, Reg v) {
  std::uint32_t r = 0;
  // Branch-free over all bits: the loop has a fixed trip count the compiler can unroll.
  for (std::size_t i = 0; i < m.size(); ++i) r ^= m[i] & (0u - ((std::uint32_t{v} >> i) & 1u));
  return static_cast<Reg>(r);
}

// One zero byte, bit by bit: the reference definition of the map.
template <typename Reg, Reg kPoly>
constexpr Reg step_zero_byte(Reg reg) {
  for (int b = 0; b < 8; ++b) reg = static_cast<Reg>((reg >> 1) ^ ((reg & 1u) ? kPoly : 0u));
  return reg;
}

// powers[k] = the map for 2^k zero bytes.
template <typename Reg, Reg kPoly>
constexpr std::array<Matrix<Reg>, 64> zero_byte_powers() {
  std::array<Matrix<Reg>, 64> powers{};
  for (std::size_t i = 0; i < 8 * sizeof(Reg); ++i)
    powers[0][i] = step_zero_byte<Reg, kPoly>(static_cast<Reg>(Reg{1} << i));
  for (std::size_t k = 1; k < powers.size(); ++k)
    for (std::size_t i = 0; i < 8 * sizeof(Reg); ++i)
      powers[k][i] = apply<Reg>(powers[k - 1], powers[k - 1][i]);
  return powers;
}

template <typename Reg, Reg kPoly>
inline constexpr std::array<Matrix<Reg>, 64> kZeroBytePowers = zero_byte_powers<Reg, kPoly>();

// The same maps as nibble tables: entry [k][j][x] is the image of nibble x in register nibble j
// under the map for 2^k zero bytes. Applying a map is then 4 (CRC16) or 8 (CRC32) lookups instead
// of 16 or 32 masked xors; it runs a few times per CRC on every packet. Only the powers of real
// packet lengths are touched (k < 14: under 1 KiB for CRC16, 7 KiB for CRC32).
template <typename Reg>
using NibbleTables = std::array<std::array<Reg, 16>, 2 * sizeof(Reg)>;

template <typename Reg, Reg kPoly>
constexpr std::array<NibbleTables<Reg>, 64> zero_byte_nibble_tables() {
  std::array<NibbleTables<Reg>, 64> tables{};
  for (std::size_t k = 0; k < tables.size(); ++k)
    for (std::size_t j = 0; j < 2 * sizeof(Reg); ++j)
      for (std::uint32_t x = 0; x < 16; ++x)
        tables[k][j][x] = apply<Reg>(kZeroBytePowers<Reg, kPoly>[k], static_cast<Reg>(x << (4 * j)));
  return tables;
}

template <typename Reg, Reg kPoly>
inline constexpr std::array<NibbleTables<Reg>, 64> kZeroByteNibbleTables = zero_byte_nibble_tables<Reg, kPoly>();

template <typename Reg>
inline Reg apply_nibbles(const NibbleTables<Reg>& t, Reg v) {
  Reg r = 0;
  for (std::size_t j = 0; j < t.size(); ++j) r = static_cast<Reg>(r ^ t[j][(v >> (4 * j)) & 15u]);
  return r;
}

}  // namespace crc_detail

// The raw register of a reflected CRC (Reg = uint16_t or uint32_t, kReflectedPoly e.g. 0xD008 or
// 0xEDB88320) after n_bytes zero bytes.
template <typename Reg, Reg kReflectedPoly>
inline Reg crc_zero_run(Reg reg, std::uint64_t n_bytes) {
  static_assert(std::is_same_v<Reg, std::uint16_t> || std::is_same_v<Reg, std::uint32_t>);
  const auto& tables = crc_detail::kZeroByteNibbleTables<Reg, kReflectedPoly>;
  for (std::size_t k = 0; n_bytes != 0; ++k, n_bytes >>= 1)
    if (n_bytes & 1u) reg = crc_detail::apply_nibbles<Reg>(tables[k], reg);
  return reg;
}

// Continues a raw register over runs [first, last) of bytes (anything with .data and .len;
// data == nullptr means len zero bytes). Real bytes are folded in by linearity: feeding bytes D
// to register r leaves zeros(r, |D|) ^ raw_from_zero(D.data, |D|), where raw_from_zero returns the
// register D leaves in an all-zero register (a table-driven engine with init 0, no final xor).
// So a zero run and the real run after it cost one crc_zero_run together.
template <typename Reg, Reg kReflectedPoly, typename RunIt, typename RawFromZero>
Reg crc_continue_runs(Reg reg, RunIt first, RunIt last, RawFromZero raw_from_zero) {
  std::uint64_t skip = 0;
  for (; first != last; ++first) {
    skip += first->len;
    if (first->data == nullptr) continue;
    reg = static_cast<Reg>(crc_zero_run<Reg, kReflectedPoly>(reg, skip) ^
                           raw_from_zero(first->data, first->len));
    skip = 0;
  }
  return crc_zero_run<Reg, kReflectedPoly>(reg, skip);
}

}  // namespace ibfsim
