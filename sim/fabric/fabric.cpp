#include "sim/fabric/fabric.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.h"
#include "sim/fabric/cable_training.h"
#include "sim/report/erf_record.h"
#include "sim/report/pcap_writer.h"
#include "sim/subnet_manager/congestion_control_agent.h"

namespace ibfsim {

namespace {

// Writes every packet a port starts sending into one pcap file (ERF InfiniBand records), stamped
// with the time its first symbol enters the wire; link ids name the cable direction.
class PcapCapture : public CaptureSink {
 public:
  PcapCapture(const std::string& path, bool link_packets) : writer_(path), link_packets_(link_packets) {}
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
    : topo_(topo), routing_(compute_static_routing(topo)) {
  init_time_resolution();
  hcas_.resize(topo_.nodes.size());
  switches_.resize(topo_.nodes.size());
  std::vector<Mft> mfts = compute_static_multicast(topo_, options.multicast);
  for (std::size_t i = 0; i < topo_.nodes.size(); ++i) {
    const TopoNode& n = topo_.nodes[i];
    if (n.type == NodeType::kHca) {
      HcaConfig c;
      c.num_ports = n.num_ports;
      c.buffers = PortBuffers{n.op_vls, n.rx_buffer_credits, n.vl15_buffer_credits};
      c.sl_to_vl = options.link.sl_to_vl ? *options.link.sl_to_vl : SlToVlTable::identity_modulo(n.op_vls);
      c.vl_arbitration = options.link.vl_arbitration;
      c.port_lids.assign(routing_.port_lid[i].begin() + 1, routing_.port_lid[i].begin() + 1 + n.num_ports);
      c.node_index = static_cast<std::uint32_t>(i);
      c.carry_payload = options.carry_payload;
      if (options.configure_hca) options.configure_hca(i, c);
      hcas_[i] = std::make_unique<Hca>(n.name.c_str(), c, pool_, ledger_);
    } else {
      SwitchConfig c;
      c.num_ports = n.num_ports;
      c.latency = n.switch_latency;
      c.buffers = PortBuffers{n.op_vls, n.rx_buffer_credits, n.vl15_buffer_credits};
      c.mtu = options.link.mtu;
      c.hoq_life_code = options.link.hoq_life_code;
      c.life_time_code = options.link.switch_lifetime_code;
      c.horizon = options.horizon;
      c.seed = options.seed;
      c.node_index = static_cast<std::uint32_t>(i);
      const auto& map = options.link.switch_sl_to_vl ? options.link.switch_sl_to_vl : options.link.sl_to_vl;
      if (map) c.sl_to_vl.assign(n.num_ports + 1, std::vector<SlToVlTable>(n.num_ports + 1, *map));
      c.vl_arbitration = options.link.vl_arbitration;
      c.lid = routing_.port_lid[i][0];
      c.lft = Lft(routing_.lft[i]);
      c.mft = std::move(mfts[i]);
      switches_[i] = std::make_unique<Switch>(n.name.c_str(), c, pool_, ledger_);
    }
  }
  PcapCapture* pcap = nullptr;
  if (!options.pcap_path.empty()) {
    auto cap = std::make_unique<PcapCapture>(options.pcap_path, options.pcap_link_packets);
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
    a.connect(b, rate, prop, id_ab);
    b.connect(a, rate, prop, id_ba);
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
  // No subnet manager yet: links that trained come up straight to Active, when training is over.
  ScheduledModule* scheduler = nullptr;
  for (auto& h : hcas_)
    if (h && !scheduler) scheduler = h.get();
  for (auto& sw : switches_)
    if (sw && !scheduler) scheduler = sw.get();
  IBFSIM_CHECK(scheduler != nullptr || topo_.cables.empty(), "a fabric with cables has nodes");
  if (scheduler) {
    bring_up_ = std::make_unique<LinkBringUp>(*scheduler, options.link.training_delay, PortState::kActive);
    for (std::size_t k = 0; k < topo_.cables.size(); ++k) {
      const TopoCable& c = topo_.cables[k];
      bring_up_->add_cable(port(c.node_a, c.port_a), port(c.node_b, c.port_b), training_[k]);
    }
    bring_up_->start();
  }
  if (options.congestion_control.enabled) configure_congestion_control(options.congestion_control);
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

std::uint64_t Fabric::prop_cycles(std::size_t k) const {
  const TrainingResult& t = training_.at(k);
  const LinkRate rate = t.up ? LinkRate{t.speed, t.lanes} : topo_.cables.at(k).rate;
  return rate.clock().cycle_at_or_after(topo_.cable_delay(k));
}

std::size_t Fabric::queued_at_sources() const {
  std::size_t n = 0;
  for (const auto& h : hcas_)
    if (h) n += h->queued_packets();
  return n;
}

void Fabric::check_invariants() const { ledger_.check_balanced(pool_.live(), queued_at_sources()); }

void Fabric::schedule_faults(const std::vector<LinkFault>& faults) {
  for (const LinkFault& f : faults) {
    const auto k = topo_.cable_at(f.node, f.port);
    IBFSIM_CHECK(k && bring_up_, "a fault names a port with no cable");
    bring_up_->schedule_fault(f.at, *k, f.up);
  }
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

std::uint64_t Fabric::actions_run() const { return CalendarProcess::total_actions(); }

}  // namespace ibfsim

namespace ibfsim {

std::uint64_t Fabric::packet_hops() {
  std::uint64_t n = 0;
  for (const TopoCable& c : topo_.cables)
    n += port(c.node_a, c.port_a).stats().tx_packets + port(c.node_b, c.port_b).stats().tx_packets;
  return n;
}

}  // namespace ibfsim
