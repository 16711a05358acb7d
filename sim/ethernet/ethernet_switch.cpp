#include "sim/ethernet/ethernet_switch.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/ethernet/l3_forwarding.h"

namespace ibfsim {

EthernetSwitchConfig switch_config_from_plan(const EthernetNodePlan& node) {
  EthernetSwitchConfig c;
  c.num_ports = node.num_ports();
  c.port_macs = node.port_macs;
  c.neighbour_macs = node.neighbour_macs;
  c.routes = node.routes;
  c.ecmp_seed = node.ecmp_seed;
  return c;
}

const char* ethernet_drop_name(EthernetDrop d) {
  switch (d) {
    case EthernetDrop::kNotIp: return "not_ip";
    case EthernetDrop::kNoRoute: return "no_route";
    case EthernetDrop::kTtlExpired: return "ttl_expired";
    case EthernetDrop::kBufferFull: return "buffer_full";
    case EthernetDrop::kCount: break;
  }
  return "?";
}

std::uint64_t EthernetSwitchStats::dropped_total() const {
  std::uint64_t n = 0;
  for (auto d : dropped) n += d;
  return n;
}

std::string EthernetSwitch::QueueRef::text() const { return fmt::format("out {} prio {}", out, priority); }

EthernetSwitch::EthernetSwitch(const sc_core::sc_module_name& name, EthernetSwitchConfig config, PacketPool& pool,
                               PacketLedger& ledger)
    : ScheduledModule(name), config_(std::move(config)), pool_(pool), ledger_(ledger),
      ecn_(config_.ecn, config_.num_ports, config_.ecn_seed, config_.ecn_stream), tx_priority_(config_.num_ports, 0) {
  IBFSIM_CHECK(config_.port_macs.size() == config_.num_ports && config_.neighbour_macs.size() == config_.num_ports,
               "EthernetSwitch: one MAC and one neighbour MAC per port");
  for (unsigned n = 1; n <= config_.num_ports; ++n) {
    ports_.push_back(std::make_unique<EthernetPort>(*this, *this, static_cast<PortNum>(n),
                                                    fmt::format("{}/{}", this->name(), n)));
    ports_.back()->set_packet_pool(&pool_);  // PFC frames
    ports_.back()->set_storm_threshold(config_.pfc.storm_threshold);
  }
  queues_.resize(config_.num_ports);
}

std::size_t EthernetSwitch::queued_frames() const {
  std::size_t n = 0;
  for (const auto& port : queues_)
    for (const auto& q : port) n += q.size();
  return n;
}

void EthernetSwitch::on_frame_head(EthernetPort& in, Packet* p, Time head, Time tail) {
  const L3Decision d = l3_decide(p->header.data(), p->header_len, config_.routes, config_.ecmp_seed);
  EthernetDrop why = EthernetDrop::kCount;
  switch (d.verdict) {
    case L3Verdict::kForward: break;
    case L3Verdict::kNotIp: why = EthernetDrop::kNotIp; break;
    case L3Verdict::kNoRoute: why = EthernetDrop::kNoRoute; break;
    case L3Verdict::kTtlExpired: why = EthernetDrop::kTtlExpired; break;
  }
  const std::uint64_t bytes = p->wire_bytes();
  const std::uint8_t priority = frame_priority(p->header.data(), p->header_len);
  PfcCharge charge;
  if (why == EthernetDrop::kCount) {
    const PfcIngress::Admission a = pfc_admit(in, priority, bytes);
    if (a.admitted) charge = a.charge;
    else why = EthernetDrop::kBufferFull;
  }
  if (why != EthernetDrop::kCount) {
    schedule<&EthernetSwitch::drop_at_tail>(tail, this, p, why);
    return;
  }
  IBFSIM_CHECK(d.port >= 1 && d.port <= num_ports() && d.port != in.number(),
               fmt::format("{}: route to port {} for a frame from port {}", name(), d.port, in.number()));
  buffer_used_ += bytes;
  stats_.buffer_peak_bytes = std::max(stats_.buffer_peak_bytes, buffer_used_);
  // The output may not outrun the input: cut-through only onto an output no faster than the input.
  const bool cut = config_.cut_through &&
                   port(d.port).rate().info().byte_period_fs >= in.rate().info().byte_period_fs;
  const QueueRef q{d.port, priority, charge};
  ecn_.enqueue(p->header.data(), p->header_len, q.out, q.priority, bytes);
  l3_rewrite(*p, config_.port_macs[d.port - 1], config_.neighbour_macs[d.port - 1]);
  schedule<&EthernetSwitch::frame_eligible>((cut ? head : tail) + config_.latency, this, p, q);
}

void EthernetSwitch::drop_at_tail(Packet* p, EthernetDrop why) {
  ++stats_.dropped[static_cast<int>(why)];
  ledger_.dropped_frame();
  pool_.release(p);
}

void EthernetSwitch::frame_eligible(Packet* p, QueueRef q) {
  queues_[q.out - 1][q.priority].push_back(p);
  pfc_.queued(q.out, q.priority, q.charge);
  try_send(q.out);
}

void EthernetSwitch::try_send(PortNum out) {
  EthernetPort& port = *ports_[out - 1];
  if (!port.idle()) return;  // on_tx_done comes back
  auto& queues = queues_[out - 1];
  for (unsigned prio = kEthernetPriorities; prio-- > 0;) {
    if (queues[prio].empty() || port.paused(prio)) continue;  // PFC: a paused priority waits
    Packet* p = queues[prio].front();
    queues[prio].pop_front();
    pfc_.started(out, static_cast<std::uint8_t>(prio));
    ++stats_.forwarded;
    tx_priority_[out - 1] = static_cast<std::uint8_t>(prio);
    port.transmit(p);
    return;
  }
}

void EthernetSwitch::on_tx_done(EthernetPort& port) {
  buffer_used_ -= port.last_frame_bytes();
  pfc_left(port.number(), port.last_frame_bytes());
  ecn_.dequeue(port.number(), tx_priority_[port.number() - 1], port.last_frame_bytes());
  try_send(port.number());
}

}  // namespace ibfsim
