// The scenario's `ipoib:` section (docs/scenario.md, "IPoIB"): the IPv4 subnet of the HCAs' ib0
// interfaces (datagram or connected mode), which `transport: ipoib_udp` and `ipoib_tcp` traffic
// classes send over. Each HCA
// gets the subnet's address numbered by its place among the topology's HCAs (the first HCA .1).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/ethernet/ip_prefix.h"

namespace ibfsim {

class YamlMap;
struct Scenario;

struct IpoibSpec {
  IpPrefix subnet;
  std::uint16_t p_key = 0xFFFF;  // the partition whose broadcast group the interfaces join
  bool connected = false;        // `mode: connected`: IP over RC connections the CM makes
  std::uint32_t connected_mtu = 65520;  // the IPoIB MTU in connected mode
  // By topology node: its ib0 in connected mode (`ipoib.interfaces`, else `mode`), as Linux sets
  // the mode per interface (/sys/class/net/ib0/mode).
  std::vector<bool> connected_node;
};

// Reads `ipoib:` if present (nullopt if absent), and gives every ipoib_udp class its hosts'
// addresses; checks what ipoib_udp classes need (the section, the in-band SM not on one of their
// hosts, no static `multicast:` groups). Throws InputError naming file:line:col.
std::optional<IpoibSpec> parse_ipoib(const YamlMap& root, Scenario& s);

// The address of the `ordinal`th HCA (0-based) in `subnet`: its base plus ordinal + 1.
std::array<std::uint8_t, 4> ipoib_host_address(const IpPrefix& subnet, std::size_t ordinal);

}  // namespace ibfsim
