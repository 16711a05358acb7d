// The priority-based flow control frame of IEEE 802.1Qbb (a MAC control frame of IEEE 802.3
// clause 31 with its own opcode), as a pure codec:
//   bytes 0-5   destination 01-80-C2-00-00-01 (the MAC control multicast address)
//         6-11  source MAC (the sending port's)
//         12-13 EtherType 0x8808 (MAC control), untagged
//         14-15 opcode 0x0101 (PFC; 0x0001 is 802.3x PAUSE)
//         16-17 class-enable vector: bit i set when pause time i is to be acted on (bits 8-15 zero)
//         18-33 eight pause times, priority 0 first, 16 bits each, in quanta
//   then zeros to 60 bytes and the FCS: every PFC frame is 64 bytes on the wire.
// A quantum is 512 bit times at the link's speed (64 bytes of the MAC's stream: one edge of
// phy/ethernet_speed.h's byte clock is one byte), so 5.12 ns at 100GbE; a time of 0 for an
// enabled class is XON (resume now), anything else is XOFF for that long from the frame's receipt.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/packet.h"
#include "sim/core/time.h"
#include "sim/ethernet/ethernet_header.h"
#include "sim/phy/ethernet_speed.h"

namespace ibfsim {

constexpr MacAddress kPfcDestinationMac{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
constexpr std::uint16_t kMacControlOpcodePfc = 0x0101;
constexpr std::size_t kPfcContentBytes = 34;  // destination MAC .. the last pause time
constexpr std::size_t kPfcFrameBytes = 64;    // with the pad and the FCS
constexpr std::uint64_t kPauseQuantumBytes = 64;  // 512 bit times
constexpr unsigned kPfcClasses = 8;

struct PfcFrame {
  MacAddress src{};
  std::uint8_t class_enable = 0;  // bit i: quanta[i] applies to priority i
  std::array<std::uint16_t, kPfcClasses> quanta{};
  bool enabled(unsigned prio) const { return (class_enable >> prio & 1) != 0; }
  bool operator==(const PfcFrame& o) const {
    return src == o.src && class_enable == o.class_enable && quanta == o.quanta;
  }
};

// The frame's 64 bytes (destination MAC .. FCS).
std::vector<std::uint8_t> encode_pfc_frame(const PfcFrame& f);
// `p` becomes the frame (Ethernet framing, no ICRC): what a port's transmitter sends.
void build_pfc_packet(Packet& p, const PfcFrame& f);

enum class PfcFrameError : std::uint8_t {
  kNone,
  kTooShort,        // fewer than 64 bytes
  kBadFcs,
  kNotMacControl,   // EtherType not 0x8808
  kNotPfc,          // another MAC control opcode
  kBadDestination,  // not 01-80-C2-00-00-01
};
struct ParsedPfcFrame {
  PfcFrameError error = PfcFrameError::kNone;
  PfcFrame frame;
  bool ok() const { return error == PfcFrameError::kNone; }
};
// Reads a whole frame (destination MAC .. FCS) of `len` bytes.
ParsedPfcFrame parse_pfc_frame(const std::uint8_t* f, std::size_t len);
// Whether the frame whose first `len` bytes are given is a MAC control frame (EtherType 0x8808
// right after the MACs): a port acts on those itself and never hands them to its node.
bool is_mac_control_frame(const std::uint8_t* f, std::size_t len);

// A pause of `quanta` quanta at `rate`: quanta x 64 byte periods.
inline Time pause_quanta_time(const EthernetRate& rate, std::uint32_t quanta) {
  return static_cast<Time>(quanta) * kPauseQuantumBytes * rate.info().byte_period_fs;
}

}  // namespace ibfsim
