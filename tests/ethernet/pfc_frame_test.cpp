// The PFC frame (IEEE 802.1Qbb) against bytes written out by hand, its checks, and the pause
// quantum (512 bit times) at each speed.
#include "sim/ethernet/pfc_frame.h"

#include <catch2/catch.hpp>

#include <vector>

#include "sim/core/crc32.h"
#include "sim/ethernet/ethernet_fcs.h"

using namespace ibfsim;

TEST_CASE("PFC frame: the bytes of an XOFF for priority 3 and an XON for priority 0", "[ethernet][pfc]") {
  PfcFrame f;
  f.src = {0x02, 0x00, 0x01, 0x00, 0x01, 0x02};
  f.class_enable = 0x09;  // priorities 0 and 3
  f.quanta[0] = 0;
  f.quanta[3] = 0xFFFF;
  f.quanta[5] = 0x1234;  // not enabled: sent as given, not acted on
  std::vector<std::uint8_t> want = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01,  // destination
                                    0x02, 0x00, 0x01, 0x00, 0x01, 0x02,  // source
                                    0x88, 0x08,                          // MAC control
                                    0x01, 0x01,                          // PFC
                                    0x00, 0x09,                          // class-enable vector
                                    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF,
                                    0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x00, 0x00};
  REQUIRE(want.size() == kPfcContentBytes);
  want.resize(60, 0);
  const std::vector<std::uint8_t> got = encode_pfc_frame(f);
  REQUIRE(got.size() == 64);
  CHECK(std::vector<std::uint8_t>(got.begin(), got.begin() + 60) == want);
  CHECK(load_crc32(got.data() + 60) == ethernet_fcs({ByteRun{want.data(), want.size()}}));

  // The same frame as a Packet a port sends: 64 bytes on the wire, the same bytes.
  Packet p;
  build_pfc_packet(p, f);
  CHECK(p.ethernet());
  CHECK(p.wire_bytes() == 64);
  std::vector<std::uint8_t> written;
  p.write_frame(written);
  CHECK(written == got);
  CHECK(is_mac_control_frame(p.header.data(), p.header_len));

  const ParsedPfcFrame back = parse_pfc_frame(got.data(), got.size());
  REQUIRE(back.ok());
  CHECK(back.frame == f);
  CHECK(back.frame.enabled(3));
  CHECK(!back.frame.enabled(5));
}

TEST_CASE("PFC frame: short, corrupted, other EtherType, other opcode and other destination are refused",
          "[ethernet][pfc]") {
  PfcFrame f;
  f.class_enable = 0x08;
  f.quanta[3] = 100;
  const std::vector<std::uint8_t> good = encode_pfc_frame(f);
  CHECK(parse_pfc_frame(good.data(), 63).error == PfcFrameError::kTooShort);
  std::vector<std::uint8_t> bad = good;
  bad[25] ^= 0x01;
  CHECK(parse_pfc_frame(bad.data(), bad.size()).error == PfcFrameError::kBadFcs);
  // Edited, then the FCS written again over the first 60 bytes.
  const auto edited = [&](std::size_t at, std::uint8_t v) {
    std::vector<std::uint8_t> e(good.begin(), good.begin() + 60);
    e[at] = v;
    append_ethernet_fcs(e);
    return e;
  };
  const auto not_control = edited(13, 0x00);  // EtherType 0x8800
  CHECK(parse_pfc_frame(not_control.data(), 64).error == PfcFrameError::kNotMacControl);
  CHECK(!is_mac_control_frame(not_control.data(), 64));
  const auto pause = edited(14, 0x00);  // opcode 0x0001: 802.3x PAUSE
  CHECK(parse_pfc_frame(pause.data(), 64).error == PfcFrameError::kNotPfc);
  const auto unicast = edited(0, 0x02);
  CHECK(parse_pfc_frame(unicast.data(), 64).error == PfcFrameError::kBadDestination);
}

TEST_CASE("PFC pause quantum: 512 bit times at each speed", "[ethernet][pfc]") {
  // 512 bits at 100 Gb/s: 5.12 ns; the longest pause (65,535 quanta): 335.5392 us.
  CHECK(pause_quanta_time(EthernetRate{EthernetSpeed::k100G, true}, 1) == 5'120'000);
  CHECK(pause_quanta_time(EthernetRate{EthernetSpeed::k100G, true}, 0xFFFF) == 335'539'200'000ull);
  CHECK(pause_quanta_time(EthernetRate{EthernetSpeed::k25G, true}, 1) == 20'480'000);   // 20.48 ns
  CHECK(pause_quanta_time(EthernetRate{EthernetSpeed::k50G, true}, 1) == 10'240'000);   // 10.24 ns
  CHECK(pause_quanta_time(EthernetRate{EthernetSpeed::k200G, true}, 1) == 2'560'000);   // 2.56 ns
  CHECK(pause_quanta_time(EthernetRate{EthernetSpeed::k400G, true}, 10) == 12'800'000);  // 1.28 ns each
  CHECK(pause_quanta_time(EthernetRate{EthernetSpeed::k100G, true}, 0) == 0);
}
