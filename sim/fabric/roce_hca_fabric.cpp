#include "sim/fabric/roce_hca_fabric.h"

#include <string>

#include "sim/core/error.h"

namespace ibfsim {

RoceHcaFabric::RoceHcaFabric(EthernetFabricPlan plan, RoceHcaFabricOptions options, PacketPool& pool,
                             PacketLedger& ledger)
    : plan_(std::move(plan)), book_(std::make_shared<RoceAddressBook>()), hcas_(plan_.nodes.size()),
      switches_(plan_.nodes.size()), pool_(pool), ledger_(ledger) {
  partitioning_.part.assign(plan_.nodes.size(), 0);
  partitioning_.part_weight.assign(1, 0);
  // LIDs first: every HCA gets the whole book.
  Lid next_lid = 1;
  std::vector<Lid> lids(plan_.nodes.size(), 0);
  for (const std::size_t n : plan_.hosts()) {
    lids[n] = next_lid++;
    book_->add(lids[n], plan_.nodes[n].ip);
  }
  for (std::size_t n = 0; n < plan_.nodes.size(); ++n) {
    const EthernetNodePlan& node = plan_.nodes[n];
    if (node.is_switch) {
      EthernetSwitchConfig c = switch_config_from_plan(node);
      c.cut_through = options.cut_through;
      c.latency = options.switch_latency;
      c.buffer_bytes = options.switch_buffer_bytes;
      c.pfc = options.pfc;
      c.ecn = options.ecn;
      c.ecn_seed = options.seed;
      c.ecn_stream = kEcnMarkStream + n;
      switches_[n] = std::make_unique<EthernetSwitch>(node.name.c_str(), c, pool, ledger);
      continue;
    }
    IBFSIM_CHECK(node.num_ports() == 1, "RoceHcaFabric: a host of the plan has more than one port");
    HcaConfig c = options.hca;
    c.num_ports = 1;
    c.port_lids = {lids[n]};
    c.node_index = static_cast<std::uint32_t>(n);
    RocePortConfig r;
    r.mac = node.port_macs[0];
    r.gateway_mac = node.gateway_mac;
    r.ip = node.ip;
    c.roce_ports = {r};
    c.roce_addresses = book_;
    if (options.configure_hca) options.configure_hca(n, c);
    hcas_[n] = std::make_unique<Hca>(node.name.c_str(), std::move(c), pool, ledger);
    hcas_[n]->ethernet_port().set_storm_threshold(options.pfc.storm_threshold);
  }
  std::uint32_t id = 1;
  for (const EthernetCablePlan& c : plan_.cables) {
    const EthernetRate rate = cable_rate(c, options.rate);
    links_.push_back(std::make_unique<EthernetLink>(port(c.a, c.a_port), module(c.a), port(c.b, c.b_port),
                                                    module(c.b), rate,
                                                    cable_propagation_edges(c, rate, options.propagation_edges),
                                                    options.fec_decoder, id, id + 1));
    const std::string a = plan_.nodes[c.a].name + "/" + std::to_string(c.a_port);
    const std::string b = plan_.nodes[c.b].name + "/" + std::to_string(c.b_port);
    link_names_.emplace_back(id, a + "->" + b);
    link_names_.emplace_back(id + 1, b + "->" + a);
    id += 2;
  }
}

EthernetPort& RoceHcaFabric::port(std::size_t n, PortNum p) {
  return switches_[n] ? switches_[n]->port(p) : hcas_[n]->ethernet_port(p);
}

ScheduledModule& RoceHcaFabric::module(std::size_t n) {
  return switches_[n] ? static_cast<ScheduledModule&>(*switches_[n]) : static_cast<ScheduledModule&>(*hcas_[n]);
}

void RoceHcaFabric::set_capture(FrameCaptureSink* sink) {
  for (std::size_t n = 0; n < plan_.nodes.size(); ++n)
    for (PortNum p = 1; p <= plan_.nodes[n].num_ports(); ++p) port(n, p).set_capture(sink);
}

}  // namespace ibfsim
