#include "sim/workload/ipoib_spec.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/fabric/yaml_input.h"
#include "sim/transport/ipoib/ipoib_cm.h"
#include "sim/workload/message_packets.h"
#include "sim/workload/scenario.h"

namespace ibfsim {

std::array<std::uint8_t, 4> ipoib_host_address(const IpPrefix& subnet, std::size_t ordinal) {
  const std::uint32_t base = (std::uint32_t{subnet.address.bytes[0]} << 24) | (std::uint32_t{subnet.address.bytes[1]} << 16) |
                             (std::uint32_t{subnet.address.bytes[2]} << 8) | subnet.address.bytes[3];
  const std::uint32_t a = base + static_cast<std::uint32_t>(ordinal) + 1;
  return {static_cast<std::uint8_t>(a >> 24), static_cast<std::uint8_t>(a >> 16), static_cast<std::uint8_t>(a >> 8),
          static_cast<std::uint8_t>(a)};
}

std::optional<IpoibSpec> parse_ipoib(const YamlMap& root, Scenario& s) {
  std::optional<IpoibSpec> spec;
  const std::vector<std::size_t> hcas = s.topology.hcas();
  if (auto v = root.find("ipoib")) {
    const YamlMap m = v->as_map();
    m.check_no_unknown_keys({"subnet", "p_key", "mode", "connected_mtu", "interfaces"});
    IpoibSpec sp;
    const YamlValue sv = m.get("subnet");
    const auto p = parse_ip_prefix(sv.as<std::string>());
    if (!p || p->address.version != IpVersion::kV4 || p->length > 30)
      sv.fail("an IPv4 subnet such as 10.0.0.0/24 (its host bits zero, /30 at most)", "'" + sv.as<std::string>() + "'");
    // Host numbers 1 .. 2^(32-length) - 2: the all-zero and all-one host parts are not hosts.
    const std::uint64_t room = (std::uint64_t{1} << (32 - p->length)) - 2;
    if (hcas.size() > room)
      sv.fail(fmt::format("a subnet with room for the topology's {} HCAs", hcas.size()),
              fmt::format("'{}' ({} addresses)", sv.as<std::string>(), room));
    sp.subnet = *p;
    if (auto k = m.find("p_key")) {
      sp.p_key = k->as_in_range<std::uint16_t>(1, 0xFFFF);
      if ((sp.p_key & 0x7FFF) == 0) k->fail("a P_Key whose low 15 bits are not all zero (0x0000 and 0x8000 are invalid)");
    }
    auto read_mode = [](const YamlValue& mv) {
      const auto mode = mv.as<std::string>();
      if (mode != "connected" && mode != "datagram") mv.fail("an IPoIB mode: datagram or connected");
      return mode == "connected";
    };
    if (auto mv = m.find("mode")) sp.connected = read_mode(*mv);
    sp.connected_node.assign(s.topology.nodes.size(), sp.connected);
    if (auto iv = m.find("interfaces")) {
      // One entry per HCA whose ib0 is in another mode than `mode`: {h6: {mode: connected}}.
      const YamlMap per = iv->as_map();
      for (const auto& kv : per.node()) {
        const std::string name = kv.first.as<std::string>();
        const YamlValue where(kv.first, m.file());
        const auto n = s.topology.find_node(name);
        if (!n || s.topology.nodes[*n].type != NodeType::kHca)
          where.fail("the name of an HCA of the topology", "'" + name + "'");
        const YamlMap e = per.map(name);
        e.check_no_unknown_keys({"mode"});
        sp.connected_node[*n] = read_mode(e.get("mode"));
      }
    }
    const auto& cn = sp.connected_node;
    const bool any_connected = std::find(cn.begin(), cn.end(), true) != cn.end();
    if (auto cv = m.find("connected_mtu")) {
      sp.connected_mtu = cv->as_in_range<std::uint32_t>(kIpoibCmMinMtu, kIpoibCmMaxMtu);
      if (!any_connected)
        cv->fail("no connected_mtu when every interface is in datagram mode (it applies to mode: connected)",
                 "a connected_mtu");
    }
    spec = sp;
  }
  std::vector<std::string> ipoib_class_of(s.topology.nodes.size());  // one ib0 per HCA, one class on it
  for (TrafficClassSpec& c : s.classes) {
    if (!c.ipoib()) continue;
    if (!spec)
      root.fail(fmt::format("an `ipoib:` section with the interfaces' subnet (traffic class '{}' has transport: "
                            "{})", c.name, class_transport_name(c.transport)), "none");
    if (!s.subnet_manager.in_band)
      root.get("subnet_manager").fail(fmt::format(
          "the in-band subnet manager (traffic class '{}' is IPoIB, whose interfaces join their broadcast group "
          "through the SA)", c.name), "static");
    if (!s.multicast.empty())
      root.get("multicast").fail(fmt::format(
          "no static multicast groups alongside IPoIB (traffic class '{}'): the SA's groups take MLIDs from 0xC000 "
          "as they do", c.name));
    const SubnetManagerSettings sm = subnet_manager_settings(s);
    c.ipoib_addresses.clear();
    c.ipoib_connected_hosts.clear();
    for (std::size_t node : c.hosts) {
      if (node == sm.host)
        root.fail(fmt::format("an SM host that is no host of IPoIB traffic class '{}' (an SA client on the SM's own "
                              "node is not modelled): leave {} out of the class's hosts, or run the SM on another HCA",
                              c.name, s.topology.nodes[node].name),
                  "'" + s.topology.nodes[node].name + "'");
      if (!ipoib_class_of[node].empty())
        root.fail(fmt::format("each HCA in one IPoIB traffic class at most (its one ib0 interface): {} is in "
                              "'{}' and '{}'", s.topology.nodes[node].name, ipoib_class_of[node], c.name),
                  "'" + s.topology.nodes[node].name + "' twice");
      ipoib_class_of[node] = c.name;
      const auto at = std::find(hcas.begin(), hcas.end(), node);
      c.ipoib_addresses.push_back(ipoib_host_address(spec->subnet, static_cast<std::size_t>(at - hcas.begin())));
      c.ipoib_connected_hosts.push_back(spec->connected_node[node]);
    }
    c.ipoib_p_key = spec->p_key;
    const auto& ch = c.ipoib_connected_hosts;
    const bool any = std::find(ch.begin(), ch.end(), true) != ch.end();
    const bool all = std::find(ch.begin(), ch.end(), false) == ch.end();
    // The largest IPoIB MTU among the class's interfaces bounds a UDP datagram (a larger one fits no
    // path) and sets the TCP MSS it advertises (less 40 bytes of headers); each connection then
    // sends segments of the smaller of its two ends' MSS, as TCP's MSS option makes it.
    const std::uint32_t ip_mtu = any ? spec->connected_mtu : ipoib_mtu(c.mtu);
    const char* mode = all ? (any ? "connected" : "datagram") : "mixed";
    if (any) {
      c.ipoib_connected_mtu = spec->connected_mtu;
      if (c.transport == ClassTransport::kIpoibTcp) c.tcp.mss = ip_mtu - (kIpoibTcpOverhead - 4);
    }
    if (c.transport == ClassTransport::kIpoibUdp) {
      const std::uint32_t max_size = ip_mtu - (kIpoibUdpOverhead - 4);
      // The default: the most one datagram carries on every path of the class (a mixed class has
      // datagram-mode paths: the datagram MTU).
      if (c.message_size_at.empty())
        c.sizes = MessageSizeMix(all ? max_size : ipoib_mtu(c.mtu) - (kIpoibUdpOverhead - 4));
      else if (c.sizes.largest() > max_size)
        throw InputError(fmt::format("{}: expected a message size of at most {} (one UDP datagram within the IPoIB "
                                     "MTU of {} of the class's interfaces ({} mode), less 28 bytes of IPv4 and UDP "
                                     "headers), got {}",
                                     c.message_size_at, max_size, ip_mtu, mode, c.sizes.largest()));
    }
  }
  return spec;
}

}  // namespace ibfsim
