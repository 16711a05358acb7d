#include "sim/link/vcrc.h"

#include <boost/crc.hpp>

#include "sim/core/crc_zero_run.h"

namespace ibfsim {

namespace {

using Crc16 = boost::crc_optimal<16, 0x100B, 0xFFFF, 0xFFFF, true, true>;

// Boost keeps its interim remainder unreflected; crc_zero_run works on the reflected register.
void skip_zeros(Crc16& crc, std::uint64_t n) {
  const std::uint16_t reg = reflect_bits<std::uint16_t>(crc.get_interim_remainder());
  crc.reset(reflect_bits<std::uint16_t>(crc_zero_run<std::uint16_t, kVcrcReflectedPoly>(reg, n)));
}

}  // namespace

std::uint16_t vcrc16(std::initializer_list<ByteRun> runs) {
  Crc16 crc;
  std::uint64_t zeros = 0;  // adjacent elided runs (payload, pad) are skipped in one go
  for (const ByteRun& run : runs) {
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

std::uint16_t packet_vcrc(const Packet& p) {
  return vcrc16({{p.header.data(), p.header_len},
                 p.body_payload(),
                 p.body_pad(),
                 {p.icrc.data(), p.has_icrc ? p.icrc.size() : 0u}});
}

void write_vcrc(Packet& p) { store_crc16(p.vcrc.data(), packet_vcrc(p)); }

bool vcrc_ok(const Packet& p) { return packet_vcrc(p) == load_crc16(p.vcrc.data()); }

}  // namespace ibfsim
