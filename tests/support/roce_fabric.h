// The modules of an Ethernet fabric plan (ethernet_fabric_plan.h) for tests: an EthernetSwitch per
// switch, a RoceEndpoint per host, an EthernetLink per cable, at the cable's own rate and
// propagation where the plan gives them (EthernetCablePlan::own), else at the one given.
#pragma once
#include <memory>
#include <vector>

#include "sim/ethernet/ethernet_fabric_plan.h"
#include "sim/ethernet/ethernet_link.h"
#include "sim/ethernet/ethernet_switch.h"
#include "tests/support/roce_endpoint.h"

namespace ibfsim::test {

struct RoceFabric {
  RoceFabric(EthernetFabricPlan p, const EthernetRate& rate, std::uint64_t prop_edges, Time decoder, bool cut_through,
             Time latency)
      : plan(std::move(p)), switches(plan.nodes.size()), hosts(plan.nodes.size()) {
    for (std::size_t n = 0; n < plan.nodes.size(); ++n) {
      const EthernetNodePlan& node = plan.nodes[n];
      if (node.is_switch) {
        EthernetSwitchConfig c = switch_config_from_plan(node);
        c.cut_through = cut_through;
        c.latency = latency;
        switches[n] = std::make_unique<EthernetSwitch>(node.name.c_str(), c, pool, ledger);
      } else {
        hosts[n] = std::make_unique<RoceEndpoint>(node.name.c_str(), pool, ledger);
      }
    }
    std::uint32_t id = 1;
    for (const EthernetCablePlan& c : plan.cables) {
      const EthernetRate own = cable_rate(c, rate);
      links.push_back(std::make_unique<EthernetLink>(port(c.a, c.a_port), module(c.a), port(c.b, c.b_port),
                                                     module(c.b), own, cable_propagation_edges(c, own, prop_edges),
                                                     decoder, id, id + 1));
      id += 2;
    }
  }
  EthernetPort& port(std::size_t n, PortNum p) { return switches[n] ? switches[n]->port(p) : hosts[n]->port(); }
  ScheduledModule& module(std::size_t n) {
    return switches[n] ? static_cast<ScheduledModule&>(*switches[n]) : static_cast<ScheduledModule&>(*hosts[n]);
  }
  RoceEndpoint& host(const std::string& name) { return *hosts.at(plan.find(name)); }
  // What host `from` puts below the BTH of a frame to host `to`.
  RoceAddressing addressing(const std::string& from, const std::string& to) const {
    const EthernetNodePlan& f = plan.nodes.at(plan.find(from));
    RoceAddressing a;
    a.src_mac = f.port_macs[0];
    a.dst_mac = f.gateway_mac;
    a.src_ip = f.ip;
    a.dst_ip = plan.nodes.at(plan.find(to)).ip;
    return a;
  }

  EthernetFabricPlan plan;
  PacketPool pool;
  PacketLedger ledger;
  std::vector<std::unique_ptr<EthernetSwitch>> switches;  // by node index; null for hosts
  std::vector<std::unique_ptr<RoceEndpoint>> hosts;       // by node index; null for switches
  std::vector<std::unique_ptr<EthernetLink>> links;
};

}  // namespace ibfsim::test
