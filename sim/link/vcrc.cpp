#include "sim/link/vcrc.h"

#include <boost/crc.hpp>

#include "sim/core/crc_zero_run.h"

namespace ibfsim {

namespace {

constexpr std::uint16_t kInit = 0xFFFF;
constexpr std::uint16_t kXorOut = 0xFFFF;
using Crc16 = boost::crc_optimal<16, 0x100B, kInit, kXorOut, true, true>;
// From an all-zero register without final xor: checksum() is the raw register.
using Crc16FromZero = boost::crc_optimal<16, 0x100B, 0, 0, true, true>;

std::uint16_t from_zero(const std::uint8_t* data, std::size_t len) {
  Crc16FromZero crc;
  crc.process_bytes(data, len);
  return crc.checksum();
}

}  // namespace

std::uint16_t vcrc16(std::initializer_list<ByteRun> runs) {
  // Leading real bytes (the header) stream through Boost; from the first elided run on, the
  // register continues by linearity so that zeros cost O(log n).
  Crc16 lead;
  auto it = runs.begin();
  for (; it != runs.end() && it->data != nullptr; ++it) lead.process_bytes(it->data, it->len);
  if (it == runs.end()) return lead.checksum();
  const auto reg = static_cast<std::uint16_t>(lead.checksum() ^ kXorOut);
  return static_cast<std::uint16_t>(
      crc_continue_runs<std::uint16_t, kVcrcReflectedPoly>(reg, it, runs.end(), from_zero) ^
      kXorOut);
}

std::uint16_t vcrc16_bytes(const std::uint8_t* data, std::size_t len) {
  Crc16 crc;
  crc.process_bytes(data, len);
  return crc.checksum();
}

std::uint16_t lpcrc16(const std::uint8_t* four) {
  struct Tables {
    std::uint16_t zero;
    std::uint16_t t[4][256];
    Tables() {
      const std::uint8_t none[4] = {0, 0, 0, 0};
      zero = vcrc16_bytes(none, 4);
      for (int i = 0; i < 4; ++i)
        for (int v = 0; v < 256; ++v) {
          // A fresh message per entry: GCC 12 -O2 dropped the reset of a reused buffer here.
          std::uint8_t m[4] = {0, 0, 0, 0};
          m[i] = static_cast<std::uint8_t>(v);
          t[i][v] = static_cast<std::uint16_t>(vcrc16_bytes(m, 4) ^ zero);
        }
    }
  };
  static const Tables tables;
  return static_cast<std::uint16_t>(tables.zero ^ tables.t[0][four[0]] ^ tables.t[1][four[1]] ^ tables.t[2][four[2]] ^
                                    tables.t[3][four[3]]);
}

std::uint16_t packet_vcrc(const Packet& p) {
  return vcrc16({{p.header.data(), p.header_len},
                 p.body_payload(),
                 p.body_pad(),
                 {p.icrc.data(), p.has_icrc ? p.icrc.size() : 0u}});
}

void write_vcrc(Packet& p) {
  store_crc16(p.vcrc.data(), packet_vcrc(p));
  p.may_be_corrupted = false;
}

bool vcrc_ok(const Packet& p) {
  if (!p.received_frame.empty()) {
    const auto& f = p.received_frame;
    return f.size() >= 2 && vcrc16_bytes(f.data(), f.size() - 2) == load_crc16(f.data() + f.size() - 2);
  }
  return packet_vcrc(p) == load_crc16(p.vcrc.data());
}

}  // namespace ibfsim
