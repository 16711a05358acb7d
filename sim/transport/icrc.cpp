#include "sim/transport/icrc.h"

#include <algorithm>
#include <array>
#include <boost/crc.hpp>

#include "sim/core/crc_zero_run.h"
#include "sim/network/grh.h"
#include "sim/link/lrh.h"
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

constexpr std::uint32_t kXorOut = 0xFFFFFFFF;
// From an all-zero register without final xor: checksum() is the raw register.
using Crc32FromZero = boost::crc_optimal<32, 0x04C11DB7, 0, 0, true, true>;

std::uint32_t from_zero(const std::uint8_t* data, std::size_t len) {
  Crc32FromZero crc;
  crc.process_bytes(data, len);
  return crc.checksum();
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
  // Headers and leading real runs stream through Boost; from the first elided run on, the register
  // continues by linearity so that zeros cost O(log n).
  boost::crc_32_type lead;
  lead.process_bytes(prefix.data(), n);
  lead.process_bytes(header + n, header_len - n);
  auto it = body.begin();
  for (; it != body.end() && it->data != nullptr; ++it) lead.process_bytes(it->data, it->len);
  if (it == body.end()) return lead.checksum();
  const std::uint32_t reg = lead.checksum() ^ kXorOut;
  return crc_continue_runs<std::uint32_t, kIcrcReflectedPoly>(reg, it, body.end(), from_zero) ^
         kXorOut;
}

std::uint32_t packet_icrc(const Packet& p) {
  return compute_icrc(p.header.data(), p.header_len, {p.body_payload(), p.body_pad()});
}

void write_icrc(Packet& p) { store_icrc(p.icrc.data(), packet_icrc(p)); }

bool icrc_ok(const Packet& p) {
  if (!p.received_frame.empty()) {
    // Bytes changed on a link: check the ICRC over what arrived (header as long as the packet's).
    const auto& f = p.received_frame;
    if (f.size() < p.header_len + 6u) return false;
    const std::size_t body = f.size() - p.header_len - 6;
    return compute_icrc(f.data(), p.header_len, {ByteRun{f.data() + p.header_len, body}}) ==
           load_icrc(f.data() + f.size() - 6);
  }
  return packet_icrc(p) == load_icrc(p.icrc.data());
}

}  // namespace ibfsim
