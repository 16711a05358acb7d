// A frame's time on an Ethernet link: preamble and SFD, the frame, the inter-frame gap, at the
// byte clock; when a receiver has a frame's head or tail with RS-FEC. Figures computed by hand.
#include "sim/ethernet/ethernet_frame_timing.h"

#include <catch2/catch.hpp>

using namespace ibfsim;

TEST_CASE("Ethernet wire time: 8 bytes of preamble and SFD, the frame, 12 bytes of gap", "[ethernet][timing]") {
  const EthernetRate e100{EthernetSpeed::k100G, true};
  // 1,078 bytes: 8 + 1,078 + 12 = 1,098 bytes x 80 ps = 87.84 ns.
  CHECK(ethernet_wire_edges(1078) == 1098);
  CHECK(ethernet_wire_time(e100, 1078) == 87'840'000);
  // The minimum frame: 84 bytes = 6.72 ns, so 100GbE carries 10^9 / 6.72 = 148,809,523.8 frames/s.
  CHECK(ethernet_wire_time(e100, 64) == 6'720'000);
  CHECK(kSec / ethernet_wire_time(e100, 64) == 148'809'523);
  // A RoCE v2 frame with 4,096 bytes of payload over IPv4: 14 + 20 + 8 + 12 + 4,096 + 4 + 4 =
  // 4,158 bytes; on each speed (4,178 bytes on the wire) 1,336.96 / 668.48 / 334.24 / 167.12 / 83.56 ns.
  CHECK(ethernet_wire_time({EthernetSpeed::k25G}, 4158) == 1'336'960'000);
  CHECK(ethernet_wire_time({EthernetSpeed::k50G}, 4158) == 668'480'000);
  CHECK(ethernet_wire_time({EthernetSpeed::k100G}, 4158) == 334'240'000);
  CHECK(ethernet_wire_time({EthernetSpeed::k200G}, 4158) == 167'120'000);
  CHECK(ethernet_wire_time({EthernetSpeed::k400G}, 4158) == 83'560'000);
  // FEC on or off changes no wire time: the code's overhead is in the line rate.
  CHECK(ethernet_wire_time({EthernetSpeed::k100G, false}, 1078) == ethernet_wire_time(e100, 1078));
}

TEST_CASE("Ethernet receive times: a frame's head and tail wait for their FEC codeword", "[ethernet][timing]") {
  const FecTiming fec = EthernetRate{EthernetSpeed::k100G, true}.fec_timing(0);
  const FecTiming none = EthernetRate{EthernetSpeed::k100G, false}.fec_timing(0);
  // A 1,078-byte frame whose preamble starts at edge 0: its Ethernet and IPv4 headers (34 bytes)
  // are in at edge 42, its last byte at edge 1,086.
  CHECK(ethernet_edges_until(34) == 42);
  CHECK(ethernet_available_edge(none, 0, 34) == 42);      // 3.36 ns
  CHECK(ethernet_available_edge(none, 0, 1078) == 1086);  // 86.88 ns
  // With RS(528,514) both wait for the end of their 640-byte codeword: 51.2 ns and 102.4 ns.
  CHECK(ethernet_available_edge(fec, 0, 34) == 640);
  CHECK(ethernet_available_edge(fec, 0, 1078) == 1280);
  // The next frame starts after the gap, at edge 1,098; its headers are in at 1,140, in the
  // codeword that ends at 1,280.
  CHECK(ethernet_available_edge(fec, 1098, 34) == 1280);
  const EthernetRate e100{EthernetSpeed::k100G, true};
  CHECK(e100.clock().time_of(ethernet_available_edge(fec, 0, 1078)) == 102'400'000);
}
