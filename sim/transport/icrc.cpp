#include "sim/transport/icrc.h"

#include <algorithm>
#include <array>

#include <boost/crc.hpp>

#include "sim/core/crc_zero_run.h"
#include "sim/network/grh.h"
#include "sim/network/lrh.h"
#include "sim/transport/bth.h"

namespace ibfsim {

namespace {

// Every masked field lies in LRH + GRH + BTH: only that prefix is copied and patched, the extended
// headers after it stream straight from the caller's buffer.
constexpr std::size_t kMaskedPrefix = kLrhBytes + kGrhBytes + kBthBytes;

// Copies the header's first bytes (up to the end of the BTH) with the variant fields set to 1s.
std::size_t masked_prefix(const std::uint8_t* header, std::size_t header_len,
                          std::array<std::uint8_t, kMaskedPrefix>& out) {
  const std::size_t n = std::min(header_len, out.size());
  std::copy(header, header + n, out.begin());
  if (n < 2) return n;
  const auto set = [&](std::size_t i, std::uint8_t mask) {
    if (i < n) out[i] |= mask;
  };
  switch (lrh_lnh(header)) {
    case kLnhIbaLocal:
      set(0, 0xF0);
      set(kLrhBytes + kBthFecnByte, 0xFF);
      break;
    case kLnhIbaGlobal:
      for (std::size_t i = 0; i < kLrhBytes; ++i) set(i, 0xFF);
      set(kLrhBytes + 0, 0x0F);
      for (std::size_t i = 1; i <= 3; ++i) set(kLrhBytes + i, 0xFF);
      set(kLrhBytes + 7, 0xFF);
      set(kLrhBytes + kGrhBytes + kBthFecnByte, 0xFF);
      break;
    default:  // raw packets carry no ICRC and have no invariant/variant split
      break;
  }
  return n;
}

void skip_zeros(boost::crc_32_type& crc, std::uint64_t n) {
  const std::uint32_t reg = reflect_bits<std::uint32_t>(crc.get_interim_remainder());
  crc.reset(reflect_bits<std::uint32_t>(crc_zero_run<std::uint32_t, kIcrcReflectedPoly>(reg, n)));
}

// Wire order: least-significant byte first, like the Ethernet FCS.
void store_icrc(std::uint8_t* out4, std::uint32_t crc) {
  for (std::size_t i = 0; i < kIcrcBytes; ++i) out4[i] = static_cast<std::uint8_t>(crc >> (8 * i));
}
std::uint32_t load_icrc(const std::uint8_t* in4) {
  std::uint32_t crc = 0;
  for (std::size_t i = 0; i < kIcrcBytes; ++i) crc |= std::uint32_t{in4[i]} << (8 * i);
  return crc;
}

}  // namespace

std::uint32_t compute_icrc(const std::uint8_t* header, std::size_t header_len,
                           std::initializer_list<ByteRun> body) {
  std::array<std::uint8_t, kMaskedPrefix> prefix;
  const std::size_t n = masked_prefix(header, header_len, prefix);
  boost::crc_32_type crc;
  crc.process_bytes(prefix.data(), n);
  crc.process_bytes(header + n, header_len - n);
  std::uint64_t zeros = 0;  // adjacent elided runs (payload, pad) are skipped in one go
  for (const ByteRun& run : body) {
    if (run.data == nullptr) {
      zeros += run.len;
      continue;
    }
    if (zeros != 0) skip_zeros(crc, zeros);
    zeros = 0;
    crc.process_bytes(run.data, run.len);
  }
  if (zeros != 0) skip_zeros(crc, zeros);
  return crc.checksum();
}

std::uint32_t packet_icrc(const Packet& p) {
  return compute_icrc(p.header.data(), p.header_len, {p.body_payload(), p.body_pad()});
}

void write_icrc(Packet& p) { store_icrc(p.icrc.data(), packet_icrc(p)); }

bool icrc_ok(const Packet& p) { return packet_icrc(p) == load_icrc(p.icrc.data()); }

}  // namespace ibfsim
