#include "sim/workload/ipoib_spec.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "sim/fabric/yaml_input.h"
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
    m.check_no_unknown_keys({"subnet", "p_key"});
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
    }
    c.ipoib_p_key = spec->p_key;
  }
  return spec;
}

}  // namespace ibfsim
