// ICRC: equals zlib crc32 over the masked bytes, ignores exactly the variant fields (VL, FECN/BECN;
// for global packets also LRH, TClass, FlowLabel, HopLmt), treats elided payloads as zeros, and
// detects corruption.
#include "sim/transport/icrc.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "sim/core/packet.h"
#include "sim/network/grh.h"
#include "sim/link/lrh.h"
#include "sim/transport/bth.h"
#include "sim/transport/deth.h"

using namespace ibfsim;

namespace {

constexpr std::size_t kBthLocal = kLrhBytes;
constexpr std::size_t kBthGlobal = kLrhBytes + kGrhBytes;

// Bit-serial zlib crc32: an independent reference.
std::uint32_t ref_crc32(const std::vector<std::uint8_t>& bytes) {
  std::uint32_t reg = 0xFFFFFFFF;
  for (std::uint8_t b : bytes) {
    reg ^= b;
    for (int i = 0; i < 8; ++i) reg = (reg >> 1) ^ ((reg & 1u) ? 0xEDB88320u : 0u);
  }
  return ~reg;
}

// A UD-like packet with LRH [GRH] BTH DETH and a payload of `len` bytes (carried or elided).
Packet make_packet(bool global, std::uint32_t len, bool carried) {
  Packet p;
  const std::size_t bth_at = global ? kBthGlobal : kBthLocal;
  p.header_len = static_cast<std::uint16_t>(bth_at + kBthBytes + kDethBytes);
  p.payload_len = len;
  p.pad_len = static_cast<std::uint8_t>((4 - len) & 3);
  if (carried) {
    p.payload.resize(len);
    for (std::size_t i = 0; i < len; ++i) p.payload[i] = static_cast<std::uint8_t>(i * 7 + 1);
  }
  encode_lrh({2, 0, 4, global ? kLnhIbaGlobal : kLnhIbaLocal, 0x0010,
              static_cast<std::uint16_t>(p.pkt_len_words()), 0x0020},
             &p.header[0]);
  if (global) {
    Grh grh;
    grh.tclass = 0x12;
    grh.flow_label = 0x34567;
    grh.pay_len = static_cast<std::uint16_t>(4 * p.pkt_len_words() - 48);
    grh.hop_lmt = 64;
    for (std::size_t i = 0; i < 16; ++i) {
      grh.sgid[i] = static_cast<std::uint8_t>(0xA0 + i);
      grh.dgid[i] = static_cast<std::uint8_t>(0xB0 + i);
    }
    encode_grh(grh, &p.header[kLrhBytes]);
  }
  Bth bth;
  bth.opcode = kOpcodeUdSendOnly;
  bth.pad_cnt = p.pad_len;
  bth.dest_qp = 0x99;
  bth.psn = 0x1234;
  encode_bth(bth, &p.header[bth_at]);
  encode_deth({0x1234, 0x11}, &p.header[bth_at + kBthBytes]);
  write_icrc(p);
  return p;
}

std::vector<std::uint8_t> covered_bytes(const Packet& p) {
  std::vector<std::uint8_t> frame;
  p.write_frame(frame);
  frame.resize(p.header_len + p.payload_len + p.pad_len);  // LRH..pad
  return frame;
}

}  // namespace

TEST_CASE("local-route ICRC is crc32 with LRH.VL and BTH byte 4 forced to 1s", "[transport][crc]") {
  const Packet p = make_packet(false, 13, true);
  std::vector<std::uint8_t> masked = covered_bytes(p);
  masked[0] |= 0xF0;
  masked[kBthLocal + 4] = 0xFF;
  REQUIRE(packet_icrc(p) == ref_crc32(masked));
  REQUIRE(icrc_ok(p));
}

TEST_CASE(
    "global-route ICRC is crc32 with LRH, TClass, FlowLabel, HopLmt and BTH byte 4 forced to 1s",
    "[transport][crc]") {
  const Packet p = make_packet(true, 13, true);
  std::vector<std::uint8_t> masked = covered_bytes(p);
  for (std::size_t i = 0; i < kLrhBytes; ++i) masked[i] = 0xFF;
  masked[kLrhBytes + 0] |= 0x0F;
  for (std::size_t i = 1; i <= 3; ++i) masked[kLrhBytes + i] = 0xFF;
  masked[kLrhBytes + 7] = 0xFF;
  masked[kBthGlobal + 4] = 0xFF;
  REQUIRE(packet_icrc(p) == ref_crc32(masked));
  REQUIRE(icrc_ok(p));
}

TEST_CASE("ICRC is stored least-significant byte first", "[transport][crc]") {
  const Packet p = make_packet(false, 13, true);
  const std::uint32_t crc = packet_icrc(p);
  for (std::size_t i = 0; i < 4; ++i) REQUIRE(p.icrc[i] == ((crc >> (8 * i)) & 0xFF));
}

TEST_CASE("ICRC over an elided payload equals the ICRC over carried zeros", "[transport][crc]") {
  for (std::uint32_t n : {0u, 1u, 3u, 63u, 64u, 2048u, 4096u, 4099u})
    for (bool global : {false, true}) {
      INFO("payload " << n << " bytes, global " << global);
      Packet carried = make_packet(global, n, false);
      carried.payload.assign(n, 0);
      const Packet elided = make_packet(global, n, false);
      REQUIRE(packet_icrc(carried) == packet_icrc(elided));
      REQUIRE(compute_icrc(elided.header.data(), elided.header_len,
                           {{nullptr, n}, {nullptr, elided.pad_len}}) ==
              compute_icrc(carried.header.data(), carried.header_len,
                           {{carried.payload.data(), n}, {nullptr, carried.pad_len}}));
      REQUIRE(icrc_ok(elided));
    }
}

TEST_CASE("local ICRC ignores VL, FECN and BECN but not DLID, SL, SLID, PktLen or BTH fields",
          "[transport][crc]") {
  const Packet p = make_packet(false, 40, true);
  const std::uint32_t crc = packet_icrc(p);
  const auto with = [&](auto change) {
    Packet q = p;
    change(q.header.data());
    return packet_icrc(q);
  };
  REQUIRE(with([](std::uint8_t* h) { set_lrh_vl(h, 15); }) == crc);
  REQUIRE(with([](std::uint8_t* h) { set_lrh_vl(h, 0); }) == crc);
  REQUIRE(with([](std::uint8_t* h) { h[kBthLocal + 4] |= 0x80; }) == crc);  // FECN
  REQUIRE(with([](std::uint8_t* h) { h[kBthLocal + 4] |= 0x40; }) == crc);  // BECN

  REQUIRE(with([](std::uint8_t* h) { h[3] ^= 0x01; }) != crc);               // DLID
  REQUIRE(with([](std::uint8_t* h) { h[2] ^= 0x80; }) != crc);               // DLID high byte
  REQUIRE(with([](std::uint8_t* h) { h[1] ^= 0x10; }) != crc);               // SL
  REQUIRE(with([](std::uint8_t* h) { h[0] ^= 0x01; }) != crc);               // LVer
  REQUIRE(with([](std::uint8_t* h) { h[5] ^= 0x01; }) != crc);               // PktLen
  REQUIRE(with([](std::uint8_t* h) { h[7] ^= 0x01; }) != crc);               // SLID
  REQUIRE(with([](std::uint8_t* h) { h[kBthLocal + 2] ^= 0x01; }) != crc);   // P_Key
  REQUIRE(with([](std::uint8_t* h) { h[kBthLocal + 11] ^= 0x01; }) != crc);  // PSN
}

TEST_CASE("global ICRC ignores the LRH, TClass, FlowLabel, HopLmt, FECN and BECN but not the GIDs",
          "[transport][crc]") {
  const Packet p = make_packet(true, 40, true);
  const std::uint32_t crc = packet_icrc(p);
  const auto with = [&](auto change) {
    Packet q = p;
    change(q.header.data());
    return packet_icrc(q);
  };
  // Whole LRH, DLID included; LNH stays 3 (it says which masks apply).
  for (std::size_t i = 0; i < kLrhBytes; ++i)
    REQUIRE(with([i](std::uint8_t* h) { h[i] ^= (i == 1 ? 0xFC : 0xFF); }) == crc);
  REQUIRE(with([](std::uint8_t* h) { h[kLrhBytes + 0] ^= 0x0F; }) == crc);   // TClass high nibble
  REQUIRE(with([](std::uint8_t* h) { h[kLrhBytes + 1] ^= 0xFF; }) == crc);   // TClass / FlowLabel
  REQUIRE(with([](std::uint8_t* h) { h[kLrhBytes + 3] ^= 0xFF; }) == crc);   // FlowLabel
  REQUIRE(with([](std::uint8_t* h) { h[kLrhBytes + 7] = 1; }) == crc);       // HopLmt
  REQUIRE(with([](std::uint8_t* h) { h[kBthGlobal + 4] |= 0xC0; }) == crc);  // FECN + BECN

  REQUIRE(with([](std::uint8_t* h) { h[kLrhBytes + 0] ^= 0x10; }) != crc);   // IPVer
  REQUIRE(with([](std::uint8_t* h) { h[kLrhBytes + 5] ^= 0x01; }) != crc);   // PayLen
  REQUIRE(with([](std::uint8_t* h) { h[kLrhBytes + 6] ^= 0x01; }) != crc);   // NxtHdr
  REQUIRE(with([](std::uint8_t* h) { h[kLrhBytes + 8] ^= 0x01; }) != crc);   // SGID
  REQUIRE(with([](std::uint8_t* h) { h[kLrhBytes + 39] ^= 0x01; }) != crc);  // DGID
  REQUIRE(with([](std::uint8_t* h) { h[kBthGlobal + 7] ^= 0x01; }) != crc);  // DestQP
}

TEST_CASE("a corrupted header, payload or ICRC byte makes icrc_ok fail", "[transport][crc]") {
  const Packet good = make_packet(false, 64, true);
  REQUIRE(icrc_ok(good));
  for (std::size_t i = 0; i < good.header_len; ++i) {
    if (i == kBthLocal + 4) continue;  // masked FECN/BECN byte; 0x01 of byte 0 is LVer, covered
    Packet bad = good;
    bad.header[i] ^= 0x01;
    INFO("header byte " << i);
    REQUIRE_FALSE(icrc_ok(bad));
  }
  for (std::size_t i : {0u, 31u, 63u}) {
    Packet bad = good;
    bad.payload[i] ^= 0x01;
    REQUIRE_FALSE(icrc_ok(bad));
  }
  for (std::size_t i = 0; i < 4; ++i) {
    Packet bad = good;
    bad.icrc[i] ^= 0x01;
    REQUIRE_FALSE(icrc_ok(bad));
  }
}
