#include "sim/fabric/fabric.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.h"
#include "sim/fabric/cable_training.h"
#include "sim/phy/fec.h"
#include "sim/report/erf_record.h"
#include "sim/report/pcap_writer.h"
#include "sim/subnet_manager/congestion_control/congestion_control_agent.h"

namespace ibfsim {

namespace {

// Writes every packet a port starts sending into one pcap file (ERF InfiniBand records), stamped
// with the time its first symbol enters the wire; link ids name the cable direction.
class PcapCapture : public CaptureSink {
 public:
  PcapCapture(const std::string& path, bool link_packets, std::uint32_t snaplen)
      : writer_(path, PcapLinkType::kErf, snaplen), link_packets_(link_packets) {}
  void name_link(std::uint32_t id, std::string name) { writer_.set_link_name(id, std::move(name)); }
  void capture_data(Time start, const Packet& p, std::uint32_t link_id) override {
    writer_.flush_until(ScheduledModule::now());
    p.write_frame(frame_);
    writer_.add(start, kErfTypeInfiniband, frame_.data(), frame_.size(), link_id);
  }
  void capture_link_packet(Time start, const std::uint8_t* bytes, std::size_t len, std::uint32_t link_id) override {
    if (!link_packets_) return;
    writer_.flush_until(ScheduledModule::now());
    writer_.add(start, kErfTypeInfinibandLink, bytes, len, link_id);
  }
  bool wants_link_packets() const override { return link_packets_; }
  void close() { writer_.close(); }

 private:
  PcapWriter writer_;
  bool link_packets_;
  std::vector<std::uint8_t> frame_;
};

}  // namespace

Fabric::Fabric(const Topology& topo, const FabricOptions& options)
    : topo_(topo), routing_(options.subnet_manager ? StaticRouting{} : compute_static_routing(topo)),
      subnets_(topology_subnets(topo)) {
  IBFSIM_CHECK(topo.routers().empty() || options.subnet_manager,
               "a fabric with routers runs its subnets' subnet managers");
  init_time_resolution();
  const bool sm = options.subnet_manager.has_value();
  build_nodes(options);
  build_management_agents(options);
  cable(options);
  start_links(options);
  if (sm) start_subnet_manager(options);
  // With the SM the CC MADs go in-band (SubnetManager::set_cc_targets); without it, at setup.
  if (options.congestion_control.enabled && !sm) configure_congestion_control(options.congestion_control);
  partitioning_.part.assign(topo_.nodes.size(), 0);
  partitioning_.part_weight.assign(1, 0);
  if (options.partitions) partition(*options.partitions);
}


// The switches and HCAs. With a subnet manager they start as after power-up and the SM programs
// their settings; without one, with the static LIDs, routes and link settings.
void Fabric::build_nodes(const FabricOptions& options) {
  const bool sm = options.subnet_manager.has_value();
  const LinkSettings link = sm ? LinkSettings{} : options.link;
  hcas_.resize(topo_.nodes.size());
  switches_.resize(topo_.nodes.size());
  routers_.assign(topo_.nodes.size(), nullptr);
  std::vector<Mft> mfts = compute_static_multicast(topo_, options.multicast);
  for (std::size_t i = 0; i < topo_.nodes.size(); ++i) {
    const TopoNode& n = topo_.nodes[i];
    if (n.type == NodeType::kHca) {
      HcaConfig c;
      c.num_ports = n.num_ports;
      c.buffers = PortBuffers{n.op_vls, n.rx_buffer_credits, n.vl15_buffer_credits};
      c.sl_to_vl = link.sl_to_vl ? *link.sl_to_vl : SlToVlTable::identity_modulo(n.op_vls);
      c.vl_arbitration = link.vl_arbitration;
      if (sm) c.port_lids.assign(n.num_ports, 0);
      else c.port_lids.assign(routing_.port_lid[i].begin() + 1, routing_.port_lid[i].begin() + 1 + n.num_ports);
      c.node_index = static_cast<std::uint32_t>(i);
      c.seed = options.seed;
      c.carry_payload = options.carry_payload;
      c.port_guid_base = n.guid;
      if (subnets_.of(i) != kNoSubnet) c.subnet_prefix = subnets_.prefix[static_cast<std::size_t>(subnets_.of(i))];
      if (options.configure_hca) options.configure_hca(i, c);
      hcas_[i] = std::make_unique<Hca>(n.name.c_str(), c, pool_, ledger_);
    } else {
      SwitchConfig c;
      c.num_ports = n.num_ports;
      c.latency = n.switch_latency;
      c.buffers = PortBuffers{n.op_vls, n.rx_buffer_credits, n.vl15_buffer_credits};
      c.mtu = link.mtu;
      c.hoq_life_code = link.hoq_life_code;
      c.life_time_code = link.switch_lifetime_code;
      c.horizon = options.horizon;
      c.seed = options.seed;
      c.node_index = static_cast<std::uint32_t>(i);
      const auto& map = link.switch_sl_to_vl ? link.switch_sl_to_vl : link.sl_to_vl;
      if (map) c.sl_to_vl.assign(n.num_ports + 1, std::vector<SlToVlTable>(n.num_ports + 1, *map));
      c.vl_arbitration = link.vl_arbitration;
      if (options.subnet_manager)
        c.ar_notification_latency = options.subnet_manager->config.sweep.adaptive_routing.notification_latency;
      if (!sm) {
        c.lid = routing_.port_lid[i][0];
        c.lft = Lft(routing_.lft[i]);
      }
      c.mft = std::move(mfts[i]);
      if (n.type == NodeType::kRouter) {
        auto r = std::make_unique<Router>(n.name.c_str(), c, pool_, ledger_);
        routers_[i] = r.get();
        switches_[i] = std::move(r);
      } else {
        switches_[i] = std::make_unique<Switch>(n.name.c_str(), c, pool_, ledger_);
      }
    }
  }
}

void Fabric::build_management_agents(const FabricOptions& options) {
  // Every node's SMA (management port 0 of a switch, QP0 of an HCA).
  hca_smas_.resize(topo_.nodes.size());
  switch_smas_.resize(topo_.nodes.size());
  router_smas_.resize(topo_.nodes.size());
  for (std::size_t i = 0; i < topo_.nodes.size(); ++i) {
    const TopoNode& n = topo_.nodes[i];
    SmaTiming timing = options.sma_timing;
    for (const auto& [node, t] : options.sma_timing_by_node)
      if (node == i) timing = t;
    std::vector<std::uint8_t> speeds(n.num_ports + 1), speeds_ext(n.num_ports + 1), widths(n.num_ports + 1);
    for (unsigned p = 1; p <= n.num_ports; ++p) {
      speeds[p] = portinfo_link_speed_enabled(n.enabled_speeds(p));
      speeds_ext[p] = portinfo_link_speed_ext_enabled(n.enabled_speeds(p));
      widths[p] = n.enabled_widths(p);
    }
    if (n.type == NodeType::kHca) {
      hca_smas_[i] = std::make_unique<HcaSma>(*hcas_[i], HcaSmaConfig{n.guid, n.name, timing, speeds, speeds_ext, widths});
    } else if (n.type == NodeType::kRouter) {
      router_smas_[i] = std::make_unique<RouterSma>(*routers_[i], RouterSmaConfig{n.guid, n.name, timing});
    } else {
      SwitchSmaConfig c;
      c.node_guid = n.guid;
      c.description = n.name;
      c.timing = timing;
      c.speeds = speeds;
      c.speeds_ext = speeds_ext;
      c.widths = widths;
      switch_smas_[i] = std::make_unique<SwitchSma>(*switches_[i], std::move(c));
    }
  }
}

// Every cable: its Link (two wires, with FEC where it runs), SKIPs, a bit-exact PHY where asked, captures.
void Fabric::cable(const FabricOptions& options) {
  PcapCapture* pcap = nullptr;
  if (!options.pcap_path.empty()) {
    auto cap = std::make_unique<PcapCapture>(options.pcap_path, options.pcap_link_packets, options.pcap_snaplen);
    pcap = cap.get();
    capture_ = std::move(cap);
  }
  for (std::size_t k = 0; k < topo_.cables.size(); ++k) {
    const TopoCable& c = topo_.cables[k];
    training_.push_back(train_cable(topo_, k));
    const TrainingResult& t = training_.back();
    // The link runs at what training settled on (a failed lane takes a 4x link to 1x); a link
    // that cannot train stays down.
    const LinkRate rate = t.up ? LinkRate{t.speed, t.lanes} : c.rate;
    LinkPort& a = port(c.node_a, c.port_a);
    LinkPort& b = port(c.node_b, c.port_b);
    const std::uint64_t prop = rate.clock().cycle_at_or_after(topo_.cable_delay(k));
    const auto id_ab = static_cast<std::uint32_t>(2 * k), id_ba = static_cast<std::uint32_t>(2 * k + 1);
    // The FEC of the speed it trained at, where the cable asks for it or the speed requires it.
    const FecTiming fec(fec_code_for(rate.speed, c.fec),
                        rate.clock().cycle_at_or_after(options.phy.fec_decoder_latency));
    links_.push_back(
        std::make_unique<Link>(a, module(c.node_a), b, module(c.node_b), rate, prop, id_ab, id_ba, fec));
    a.set_skip_interval(options.phy.skip_interval_edges);
    b.set_skip_interval(options.phy.skip_interval_edges);
    const bool exact = options.phy.bit_exact &&
                       (options.phy.links.empty() ||
                        std::any_of(options.phy.links.begin(), options.phy.links.end(), [&](const auto& l) {
                          return (l.first == c.node_a && l.second == c.port_a) || (l.first == c.node_b && l.second == c.port_b);
                        }));
    if (exact) {
      BitExactLinkConfig pc;
      pc.rate = rate;
      pc.lanes_reversed = t.lane_reversed;
      pc.bit_error_rate = options.phy.bit_error_rate;
      pc.skip_interval_edges = options.phy.skip_interval_edges;
      pc.seed = options.seed;
      pc.stream_id = 2 * k;
      a.set_bit_exact(pc);
      pc.stream_id = 2 * k + 1;
      b.set_bit_exact(pc);
    }
    if (pcap) {
      a.set_capture(pcap);
      b.set_capture(pcap);
      pcap->name_link(id_ab, a.name() + "->" + b.name());
      pcap->name_link(id_ba, b.name() + "->" + a.name());
    }
  }
}

void Fabric::start_links(const FabricOptions& options) {
  const bool sm = options.subnet_manager.has_value();
  // Links that trained come up when training is over: in Init for the subnet manager to configure,
  // or straight to Active with the static assignment.
  ScheduledModule* scheduler = nullptr;
  for (auto& h : hcas_)
    if (h && !scheduler) scheduler = h.get();
  for (auto& sw : switches_)
    if (sw && !scheduler) scheduler = sw.get();
  IBFSIM_CHECK(scheduler != nullptr || topo_.cables.empty(), "a fabric with cables has nodes");
  if (scheduler) {
    bring_up_ = std::make_unique<LinkBringUp>(*scheduler, options.link.training_delay,
                                              sm ? PortState::kInit : PortState::kActive);
    for (std::size_t k = 0; k < topo_.cables.size(); ++k) {
      const TopoCable& c = topo_.cables[k];
      bring_up_->add_cable(port(c.node_a, c.port_a), port(c.node_b, c.port_b), training_[k]);
    }
    bring_up_->start();
  }
}

void Fabric::start_subnet_manager(const FabricOptions& options) {
  const SubnetManagerSettings& st = *options.subnet_manager;
  const bool on_switch = st.host < switches_.size() && switches_[st.host];
  IBFSIM_CHECK(on_switch ? st.port == 0
                         : st.host < hcas_.size() && hcas_[st.host] && st.port >= 1 &&
                               st.port <= topo_.nodes[st.host].num_ports,
               "the subnet manager runs on an HCA port or a switch's port 0");
  SubnetManagerConfig c = st.config;
  c.sweep.max_mtu_code = mtu_code_of_bytes(options.link.mtu);
  c.sweep.hoq_life = static_cast<std::uint8_t>(options.link.hoq_life_code);
  c.sweep.life_time = static_cast<std::uint8_t>(options.link.switch_lifetime_code);
  c.sweep.sl_to_vl = options.link.sl_to_vl;
  c.sweep.switch_sl_to_vl = options.link.switch_sl_to_vl;
  if (!options.link.vl_arbitration.high.empty() || !options.link.vl_arbitration.low.empty())
    c.sweep.vl_arbitration = options.link.vl_arbitration;
  // The SA's multicast groups take the MLIDs after the scenario's static groups (0xC000 + i).
  c.sa.first_mlid = static_cast<Lid>(kMulticastLidBase + options.multicast.size());
  SmaShell& host = on_switch ? static_cast<SmaShell&>(*switch_smas_[st.host]) : *hca_smas_[st.host];
  sm_ = std::make_unique<SubnetManager>(host, st.port, c);
  if (options.congestion_control.enabled) sm_->set_cc_targets(cc_targets(options.congestion_control), 0);
  sm_->start();
  // The other subnets' SMs (routers): the same configuration, each on its own host.
  for (const SubnetManagerSettings& other : options.other_subnet_managers) {
    const bool sw = other.host < switches_.size() && switches_[other.host] && !routers_[other.host];
    IBFSIM_CHECK(sw ? other.port == 0 : other.host < hcas_.size() && hcas_[other.host] != nullptr,
                 "a subnet manager runs on an HCA port or a switch's port 0");
    SmaShell& h = sw ? static_cast<SmaShell&>(*switch_smas_[other.host]) : *hca_smas_[other.host];
    other_sms_.push_back(std::make_unique<SubnetManager>(h, other.port, c));
    other_sms_.back()->start();
  }
}

std::vector<SubnetManager*> Fabric::subnet_managers() {
  std::vector<SubnetManager*> out;
  if (sm_) out.push_back(sm_.get());
  for (auto& s : other_sms_) out.push_back(s.get());
  return out;
}

std::vector<CcTarget> Fabric::cc_targets(const CongestionControlSettings& s) const {
  std::uint64_t tid = 1;
  std::vector<CcTarget> out;
  const CaCcPlan ca_plan = ca_cc_plan(s);
  for (std::size_t i = 0; i < topo_.nodes.size(); ++i) {
    const TopoNode& n = topo_.nodes[i];
    CcTarget t;
    t.node_guid = n.guid;
    if (routers_[i]) continue;  // routers run no congestion control agent
    if (switches_[i]) {
      std::vector<bool> hca_port(n.num_ports + 1, false);
      for (unsigned p = 1; p <= n.num_ports; ++p)
        if (auto k = topo_.cable_at(i, p)) {
          const TopoCable& c = topo_.cables[*k];
          const std::size_t peer = c.node_a == i && c.port_a == p ? c.node_b : c.node_a;
          hca_port[p] = topo_.nodes[peer].type == NodeType::kHca;
        }
      t.port = 0;
      t.mads = switch_cc_mads(switch_cc_plan(s, i, n.num_ports, hca_port), &tid);
    } else if (hcas_[i]) {
      t.port = 1;
      t.mads = ca_cc_mads(ca_plan, &tid);
    } else {
      continue;
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::size_t Fabric::configure_congestion_control(const CongestionControlSettings& s) {
  std::uint64_t tid = 1;
  std::size_t applied = 0;
  auto check = [&](const Mad& resp, const std::string& node) {
    const CcMad r = decode_cc_mad(resp);
    IBFSIM_CHECK(r.header.status == IB_MAD_STATUS_SUCCESS,
                 fmt::format("{}: congestion control MAD (attribute 0x{:04x}) answered with status 0x{:04x}", node,
                             r.header.attribute_id, r.header.status));
    ++applied;
  };
  const CaCcPlan ca_plan = ca_cc_plan(s);
  for (std::size_t i = 0; i < topo_.nodes.size(); ++i) {
    const TopoNode& n = topo_.nodes[i];
    if (routers_[i]) continue;  // routers run no congestion control agent
    if (Switch* sw = switches_[i].get()) {
      std::vector<bool> hca_port(n.num_ports + 1, false);
      for (unsigned p = 1; p <= n.num_ports; ++p)
        if (auto k = topo_.cable_at(i, p)) {
          const TopoCable& c = topo_.cables[*k];
          const std::size_t peer = c.node_a == i && c.port_a == p ? c.node_b : c.node_a;
          hca_port[p] = topo_.nodes[peer].type == NodeType::kHca;
        }
      SwitchCongestionConfig cfg = sw->congestion_config();
      for (const Mad& m : switch_cc_mads(switch_cc_plan(s, i, n.num_ports, hca_port), &tid))
        check(switch_cc_agent(m, cfg, n.num_ports), n.name);
      sw->set_congestion_control(cfg);
    } else if (Hca* h = hcas_[i].get()) {
      CaCongestionConfig cfg = h->cc_throttle() ? h->cc_throttle()->config() : CaCongestionConfig{};
      for (const Mad& m : ca_cc_mads(ca_plan, &tid)) check(ca_cc_agent(m, cfg), n.name);
      h->set_congestion_control(cfg);
    }
  }
  cc_mads_applied_ += applied;
  return applied;
}

Fabric::~Fabric() = default;

LinkPort& Fabric::port(std::size_t node, unsigned p) {
  if (hcas_.at(node)) return hcas_[node]->port(static_cast<PortNum>(p));
  return switches_.at(node)->port(static_cast<PortNum>(p));
}

ScheduledModule& Fabric::module(std::size_t node) {
  if (hcas_.at(node)) return *hcas_[node];
  return *switches_.at(node);
}

std::uint64_t Fabric::prop_cycles(std::size_t k) const {
  const TrainingResult& t = training_.at(k);
  const LinkRate rate = t.up ? LinkRate{t.speed, t.lanes} : topo_.cables.at(k).rate;
  return rate.clock().cycle_at_or_after(topo_.cable_delay(k));
}

std::size_t Fabric::queued_at_sources() const {
  std::size_t n = 0;
  for (const auto& h : hcas_)
    if (h) n += h->queued_packets();
  return n + others_queued_;
}

void Fabric::check_invariants() const { ledger_.check_balanced(pool_.live(), queued_at_sources()); }

void Fabric::schedule_faults(const std::vector<LinkFault>& faults) {
  for (const LinkFault& f : faults) {
    const auto k = topo_.cable_at(f.node, f.port);
    IBFSIM_CHECK(k && bring_up_, "a fault names a port with no cable");
    bring_up_->schedule_fault(f.at, *k, f.up);
  }
}

void Fabric::set_horizon(Time horizon) {
  for (auto& sw : switches_)
    if (sw) sw->set_horizon(horizon);
}

const std::vector<Time>& Fabric::link_up_times(std::size_t k) const { return bring_up_->up_times(k); }
const std::vector<Time>& Fabric::link_down_times(std::size_t k) const { return bring_up_->down_times(k); }

void Fabric::finish() {
  const Time end = ScheduledModule::now();
  for (const TopoCable& c : topo_.cables) {
    port(c.node_a, c.port_a).finish(end);
    port(c.node_b, c.port_b).finish(end);
  }
  if (capture_) static_cast<PcapCapture*>(capture_.get())->close();
}

std::uint64_t Fabric::events_run() const {
  return ranks_work_ ? ranks_work_->events : CalendarProcess::total_events();
}

}  // namespace ibfsim

namespace ibfsim {

std::uint64_t Fabric::packet_hops() {
  if (ranks_work_) return ranks_work_->hops;
  std::uint64_t n = 0;
  for (const TopoCable& c : topo_.cables)
    n += port(c.node_a, c.port_a).stats().tx_packets + port(c.node_b, c.port_b).stats().tx_packets;
  return n;
}

}  // namespace ibfsim
