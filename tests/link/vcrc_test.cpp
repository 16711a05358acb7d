// VCRC/LPCRC: the CRC-16 check value, run concatenation, elided zero runs and corruption detection.
#include "sim/link/vcrc.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <numeric>
#include <vector>

#include "sim/core/packet.h"

using namespace ibfsim;

namespace {

const std::vector<std::size_t> kZeroLengths = {0, 1, 3, 63, 64, 2048, 4096, 4099};

// A plausible packet: 28 header bytes, the given payload, pad, and an arbitrary ICRC.
Packet make_packet(std::uint32_t payload_len, bool carried) {
  Packet p;
  p.header_len = 28;
  for (std::size_t i = 0; i < p.header_len; ++i)
    p.header[i] = static_cast<std::uint8_t>(0x11 * i + 3);
  p.payload_len = payload_len;
  p.pad_len = static_cast<std::uint8_t>((4 - payload_len) & 3);
  if (carried) p.payload.assign(payload_len, 0);
  p.icrc = {0xDE, 0xAD, 0xBE, 0xEF};
  write_vcrc(p);
  return p;
}

}  // namespace

TEST_CASE("VCRC of \"123456789\" is the check value 0x0A3D", "[link][crc]") {
  const std::uint8_t check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  REQUIRE(vcrc16({{check, sizeof check}}) == 0x0A3D);
}

TEST_CASE("vcrc16 over several runs equals vcrc16 over their concatenation", "[link][crc]") {
  std::vector<std::uint8_t> bytes(100);
  std::iota(bytes.begin(), bytes.end(), std::uint8_t{7});
  const std::uint16_t whole = vcrc16({{bytes.data(), bytes.size()}});
  REQUIRE(vcrc16({{bytes.data(), 10}, {bytes.data() + 10, 0}, {bytes.data() + 10, 90}}) == whole);
  REQUIRE(vcrc16({{bytes.data(), 1}, {bytes.data() + 1, 98}, {bytes.data() + 99, 1}}) == whole);
  REQUIRE(vcrc16({}) == vcrc16({{bytes.data(), 0}}));
}

TEST_CASE("vcrc16 of an elided run equals vcrc16 over real zero bytes", "[link][crc]") {
  const std::uint8_t head[] = {0x00, 0x02, 0x00, 0x02, 0x00, 0x0c, 0x00, 0x01};
  const std::uint8_t tail[] = {0x7f, 0xac, 0x31, 0x01};
  for (std::size_t n : kZeroLengths) {
    const std::vector<std::uint8_t> zeros(n, 0);
    INFO("zero run of " << n << " bytes");
    REQUIRE(vcrc16({{nullptr, n}}) == vcrc16({{zeros.data(), n}}));
    REQUIRE(vcrc16({{head, sizeof head}, {nullptr, n}, {tail, sizeof tail}}) ==
            vcrc16({{head, sizeof head}, {zeros.data(), n}, {tail, sizeof tail}}));
    // Adjacent elided runs (payload then pad) behave as one.
    REQUIRE(vcrc16({{head, sizeof head}, {nullptr, n}, {nullptr, 3}}) ==
            vcrc16({{head, sizeof head}, {nullptr, n + 3}}));
  }
}

TEST_CASE("packet VCRC with an elided payload equals the VCRC with the zeros carried",
          "[link][crc]") {
  for (std::size_t n : kZeroLengths) {
    INFO("payload of " << n << " bytes");
    const Packet elided = make_packet(static_cast<std::uint32_t>(n), false);
    const Packet carried = make_packet(static_cast<std::uint32_t>(n), true);
    REQUIRE(elided.vcrc == carried.vcrc);
    REQUIRE(vcrc_ok(elided));
    REQUIRE(vcrc_ok(carried));
  }
}

TEST_CASE("write_vcrc stores the VCRC least-significant byte first", "[link][crc]") {
  Packet p = make_packet(13, true);
  const std::uint16_t crc = packet_vcrc(p);
  REQUIRE(p.vcrc[0] == (crc & 0xFF));
  REQUIRE(p.vcrc[1] == (crc >> 8));
  REQUIRE(load_crc16(p.vcrc.data()) == crc);
}

TEST_CASE("VCRC covers the ICRC only when the packet has one", "[link][crc]") {
  Packet p = make_packet(13, true);
  const std::uint16_t with_icrc = packet_vcrc(p);
  p.has_icrc = false;
  REQUIRE(packet_vcrc(p) != with_icrc);
  const std::uint16_t raw = packet_vcrc(p);
  p.icrc = {1, 2, 3, 4};
  REQUIRE(packet_vcrc(p) == raw);
}

TEST_CASE("a corrupted header, payload, ICRC or VCRC byte makes vcrc_ok fail", "[link][crc]") {
  const Packet good = make_packet(64, true);
  REQUIRE(vcrc_ok(good));
  for (std::size_t i = 0; i < good.header_len; ++i) {
    Packet bad = good;
    bad.header[i] ^= 0x01;
    REQUIRE_FALSE(vcrc_ok(bad));
  }
  for (std::size_t i : {0u, 31u, 63u}) {
    Packet bad = good;
    bad.payload[i] = 0x80;
    REQUIRE_FALSE(vcrc_ok(bad));
  }
  for (std::size_t i = 0; i < 4; ++i) {
    Packet bad = good;
    bad.icrc[i] ^= 0x10;
    REQUIRE_FALSE(vcrc_ok(bad));
  }
  for (std::size_t i = 0; i < 2; ++i) {
    Packet bad = good;
    bad.vcrc[i] ^= 0x01;
    REQUIRE_FALSE(vcrc_ok(bad));
  }
}

TEST_CASE("the table-driven LPCRC equals Boost's CRC over the same 4 bytes", "[link][vcrc]") {
  std::uint32_t x = 0x12345678;
  for (int i = 0; i < 100000; ++i) {
    x = x * 1664525u + 1013904223u;  // a simple LCG walks through many 4-byte values
    const std::uint8_t b[4] = {static_cast<std::uint8_t>(x >> 24), static_cast<std::uint8_t>(x >> 16),
                               static_cast<std::uint8_t>(x >> 8), static_cast<std::uint8_t>(x)};
    REQUIRE(lpcrc16(b) == vcrc16_bytes(b, 4));
    REQUIRE(lpcrc16(b) == vcrc16({{b, 4}}));
  }
  const std::uint8_t fc[4] = {0x00, 0x64, 0x00, 0xc8};
  CHECK(lpcrc16(fc) == 0x9C5F);  // the flow-control reference packet, docs/compliance.md
}
