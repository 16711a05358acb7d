// The Ethernet II header (IEEE 802.3 clause 3 with an EtherType) and the IEEE 802.1Q tag:
//   bytes 0-5 destination MAC, 6-11 source MAC, then either the EtherType (2 bytes) or the tag:
//   TPID 0x8100 (2 bytes), TCI = PCP (15-13) | DEI (12) | VID (11-0), then the EtherType.
// Big-endian. The priority code point (PCP) is what a lossless Ethernet's PFC and traffic
// classes key on; VID 0 is a priority-only tag.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace ibfsim {

using MacAddress = std::array<std::uint8_t, 6>;

constexpr std::size_t kEthernetHeaderBytes = 14;  // untagged
constexpr std::size_t kVlanTagBytes = 4;

constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
constexpr std::uint16_t kEtherTypeIpv6 = 0x86DD;
constexpr std::uint16_t kEtherTypeArp = 0x0806;
constexpr std::uint16_t kEtherTypeVlan = 0x8100;        // 802.1Q TPID
constexpr std::uint16_t kEtherTypeMacControl = 0x8808;  // PAUSE and PFC frames

// An 802.1Q tag. PCP and VID are masked to 3 and 12 bits on encode.
struct VlanTag {
  std::uint8_t pcp = 0;
  bool dei = false;
  std::uint16_t vid = 0;
};

struct EthernetHeader {
  MacAddress dst{};
  MacAddress src{};
  std::optional<VlanTag> vlan;
  std::uint16_t ether_type = kEtherTypeIpv4;  // of what follows the header (and the tag)

  std::size_t bytes() const { return kEthernetHeaderBytes + (vlan ? kVlanTagBytes : 0); }
};

std::uint16_t encode_vlan_tci(const VlanTag& tag);
VlanTag decode_vlan_tci(std::uint16_t tci);

// Writes the header (14 bytes, 18 with a tag); returns the bytes written.
std::size_t encode_ethernet_header(const EthernetHeader& h, std::uint8_t* out);
// Decodes a header from the first `len` bytes of a frame: nullopt if they are too few for it.
// A TPID of 0x8100 is read as a tag; any other value as the EtherType.
std::optional<EthernetHeader> decode_ethernet_header(const std::uint8_t* in, std::size_t len);

// "02:00:00:00:00:01", lower case, as Wireshark prints it.
std::string mac_text(const MacAddress& mac);

}  // namespace ibfsim
