// Two real HCAs on Ethernet for tests: h1 - sw1 - sw2 - h2, each HCA one port (LID 1 and 2 as
// handles, IPs 10.0.0.1 and 10.0.0.2), both switches L3 with host routes, every link at one rate
// with 125 edges of cable and a 100 ns FEC decoder, switch latency 300 ns.
#pragma once
#include <memory>

#include "sim/core/time.h"
#include "sim/ethernet/ethernet_link.h"
#include "sim/ethernet/ethernet_switch.h"
#include "sim/transport/hca.h"

namespace ibfsim::test {

inline const MacAddress kH1Mac{0x02, 0, 0, 0, 0, 0x01};
inline const MacAddress kH2Mac{0x02, 0, 0, 0, 0, 0x02};
inline MacAddress switch_mac(unsigned sw, unsigned port) {
  return {0x02, 0, 0, 0, static_cast<std::uint8_t>(sw), static_cast<std::uint8_t>(port)};
}
inline const IpAddress kH1Ip = IpAddress::v4(10, 0, 0, 1);
inline const IpAddress kH2Ip = IpAddress::v4(10, 0, 0, 2);
inline constexpr Time k100GEdge = 80'000;  // 100GbE: one byte per 80 ps edge

inline EthernetSwitchConfig switch_config(unsigned sw, const MacAddress& left, const MacAddress& right, bool cut_through) {
  EthernetSwitchConfig c;
  c.num_ports = 2;
  c.port_macs = {switch_mac(sw, 1), switch_mac(sw, 2)};
  c.neighbour_macs = {left, right};
  c.routes.add(IpPrefix{kH1Ip, 32}, {1});
  c.routes.add(IpPrefix{kH2Ip, 32}, {2});
  c.ecmp_seed = sw;
  c.cut_through = cut_through;
  c.latency = 300 * kNs;
  return c;
}

inline std::shared_ptr<const RoceAddressBook> address_book() {
  auto b = std::make_shared<RoceAddressBook>();
  b->add(1, kH1Ip);
  b->add(2, kH2Ip);
  return b;
}

// An ideal host interface (no DMA time), the default 250 ns from doorbell to wire.
inline HcaConfig hca_config(std::uint32_t node, Lid lid, const MacAddress& mac, const MacAddress& gateway,
                     const IpAddress& ip) {
  HcaConfig c;
  c.port_lids = {lid};
  c.node_index = node;
  c.host.unlimited = true;
  c.carry_payload = true;
  RocePortConfig r;
  r.mac = mac;
  r.gateway_mac = gateway;
  r.ip = ip;
  c.roce_ports = {r};
  c.roce_addresses = address_book();
  return c;
}

struct RoceHcaLine {
  explicit RoceHcaLine(const EthernetRate& rate, bool cut_through = true)
      : h1("h1", hca_config(1, 1, kH1Mac, switch_mac(1, 1), kH1Ip), pool, ledger),
        h2("h2", hca_config(2, 2, kH2Mac, switch_mac(2, 2), kH2Ip), pool, ledger),
        sw1("sw1", switch_config(1, kH1Mac, switch_mac(2, 1), cut_through), pool, ledger),
        sw2("sw2", switch_config(2, switch_mac(1, 2), kH2Mac, cut_through), pool, ledger),
        l1(h1.ethernet_port(), h1, sw1.port(1), sw1, rate, 125, 100 * kNs, 1, 2),
        l2(sw1.port(2), sw1, sw2.port(1), sw2, rate, 125, 100 * kNs, 3, 4),
        l3(sw2.port(2), sw2, h2.ethernet_port(), h2, rate, 125, 100 * kNs, 5, 6) {}
  PacketPool pool;
  PacketLedger ledger;
  Hca h1, h2;
  EthernetSwitch sw1, sw2;
  EthernetLink l1, l2, l3;
};

}  // namespace ibfsim::test
