// PFC headroom: the bytes a lossless priority of an ingress port must still be able to take after
// the switch decided to send XOFF, because they are already on their way or cannot be stopped in
// time. Pure arithmetic over one link, in bytes at the link's rate (one byte per edge of the byte
// clock, phy/ethernet_speed.h). The terms follow the worst-case delay components of IEEE 802.1Qbb's
// annex on headroom, as switch vendors spell them out (Cisco's white paper on PFC for the Nexus
// 5000; the "D-Max-Frame-Len, D-Pause, D-Intf, D-Cable, D-Resp" breakdown of lossless Ethernet
// headroom write-ups), each measured on this simulator's own timing:
//   own_frame   the pausing port's transmitter may just have started a frame of the largest size:
//               the pause frame waits for it (mtu_frame_bytes + preamble + gap);
//   pause_frame the pause frame itself: 64 bytes + preamble + gap;
//   cable       the cable's propagation both ways: the pause frame travelling to the sender, and
//               the bytes the sender put on the cable before it stopped travelling back;
//   phy         the PHY both ways (D-Intf): with RS-FEC a receiver has data only at the end of the
//               FEC block holding it, plus the decoder's latency (fec block + decoder edges each way);
//   response    the sender's response time once the pause frame is in (D-Resp; the simulator's
//               ports act on it at its FCS, 0, but a margin may be set);
//   peer_frame  the frame the sender had started when it stopped finishes (mtu_frame_bytes +
//               preamble + gap);
//   head        a switch counts a frame when its headers are in (l3_decision_bytes): frames whose
//               headers had not arrived when XOFF was decided started that much earlier (preamble +
//               decision_bytes).
#pragma once
#include <cstdint>

#include "sim/core/time.h"
#include "sim/phy/ethernet_speed.h"

namespace ibfsim {

struct PfcHeadroomInputs {
  EthernetRate rate{EthernetSpeed::k100G, true};
  Time cable_propagation = 0;          // one way
  std::uint64_t phy_edges = 0;         // one way: FEC block + decoder, in edges (0 without FEC)
  std::uint64_t mtu_frame_bytes = 0;   // the largest frame either side may send (MAC .. FCS)
  Time response_time = 0;
  std::uint64_t decision_bytes = 62;   // l3_decision_bytes of the longest headers (802.1Q + IPv6 + UDP ports)
};

struct PfcHeadroom {
  std::uint64_t own_frame = 0, pause_frame = 0, cable = 0, phy = 0, response = 0, peer_frame = 0, head = 0;
  std::uint64_t total() const { return own_frame + pause_frame + cable + phy + response + peer_frame + head; }
};

PfcHeadroom pfc_headroom(const PfcHeadroomInputs& in);

// The bytes the link carries in `t`, rounded up.
std::uint64_t bytes_in_time(const EthernetRate& rate, Time t);

}  // namespace ibfsim
