#include "sim/transport/hca.h"

#include "sim/core/error.h"

namespace ibfsim {

std::uint8_t payload_pattern_byte(std::uint64_t packet_id, std::uint32_t offset) {
  std::uint64_t x = packet_id * 0x9E3779B97F4A7C15ull + offset;
  x ^= x >> 29;
  return static_cast<std::uint8_t>(x * 0xBF58476D1CE4E5B9ull >> 56);
}

Hca::Hca(const sc_core::sc_module_name& name, HcaConfig config, PacketPool& pool, PacketLedger& ledger)
    : ScheduledModule(name),
      config_(std::move(config)),
      pool_(pool),
      ledger_(ledger),
      verbs_(*this),
      management_(*this),
      receive_(*this, config_.host, config_.num_ports),
      send_shared_(config_.host) {
  IBFSIM_CHECK(config_.port_lids.size() == config_.num_ports, "HCA needs one LID per port");
  if (config_.vl_arbitration.high.empty() && config_.vl_arbitration.low.empty())
    config_.vl_arbitration = default_vl_arbitration(config_.buffers.op_vls);
  for (unsigned i = 1; i <= config_.num_ports; ++i) {
    ports_.push_back(std::make_unique<LinkPort>(*this, *this, static_cast<PortNum>(i), config_.buffers,
                                                std::string(this->name()) + "/" + std::to_string(i)));
  }
  if (config_.memory_keys != MemoryKeyMode::kSequential)
    verbs_.set_memory_key_mode(config_.memory_keys, RngStream(config_.seed, kMemoryKeyStream + config_.node_index));
  port_sl_to_vl_.assign(config_.num_ports, config_.sl_to_vl);
  subnet_prefix_.assign(config_.num_ports, config_.subnet_prefix);
  port_lmc_.assign(config_.num_ports, 0);
  for (unsigned i = 1; i <= config_.num_ports; ++i)
    senders_.push_back(std::make_unique<SendEngine>(*this, static_cast<PortNum>(i), config_.vl_arbitration, send_shared_));
  if (!config_.roce_ports.empty()) {
    IBFSIM_CHECK(config_.roce_ports.size() == config_.num_ports && config_.roce_addresses,
                 "an HCA on Ethernet needs a RoCE port configuration per port and an address book");
    for (unsigned i = 1; i <= config_.num_ports; ++i) {
      eth_ports_.push_back(std::make_unique<EthernetPort>(*this, *this, static_cast<PortNum>(i),
                                                          std::string(this->name()) + "/" + std::to_string(i)));
      eth_ports_.back()->set_packet_pool(&pool_);  // PFC frames the switch sends it
      senders_[i - 1]->attach_ethernet(*eth_ports_.back(), config_.roce_ports[i - 1], *config_.roce_addresses);
    }
  }
  if (config_.dcqcn) dcqcn_ = std::make_unique<HcaDcqcn>(*this, *config_.dcqcn);
}

std::uint64_t Hca::send_raw(const Packet& raw, PortNum n) {
  IBFSIM_CHECK(n >= 1 && n <= ports_.size(), "send_raw on a port the HCA does not have");
  return send_engine(n).send_raw(raw);
}

std::size_t Hca::queued_packets() const {
  std::size_t n = 0;
  for (const auto& s : senders_) n += s->queued();
  if (cc_) n += cc_->queued_cnps();
  if (dcqcn_) n += dcqcn_->queued_cnps();
  return n;
}

Grh Hca::port_grh_source(PortNum port) const {
  Grh g;
  // RoCE v2: the port's GID is its IP address (IPv4-mapped).
  g.sgid = ethernet() ? roce_gid(roce_port(port).ip)
                      : make_gid(subnet_prefix_.at(port - 1), config_.port_guid_base + port);
  return g;
}

void Hca::set_congestion_control(const CaCongestionConfig& config) {
  if (cc_) cc_->set_config(config);
  else cc_ = std::make_unique<HcaCongestionControl>(*this, config);
}

const std::map<Qpn, CcQpCounters>& Hca::cc_counters() const {
  static const std::map<Qpn, CcQpCounters> none;
  return cc_ ? cc_->counters() : none;
}

// --- PortOwner ---

void Hca::on_packet_head(LinkPort& port, Packet* p, Time, Time tail) {
  schedule<&ReceiveEngine::tail_arrives>(tail, &receive_, p, port.number());
}

void Hca::on_tx_done(LinkPort&, Packet*) {}

void Hca::on_output_free(LinkPort& port) { engine(port.number()).try_send(); }

void Hca::on_credits(LinkPort& port) { engine(port.number()).try_send(); }

void Hca::on_link_discard(LinkPort& port, Packet* p, DropReason reason) {
  receive_.link_discard(port.number(), p, reason);
}

void Hca::on_port_state_change(LinkPort& port) {
  // SMPs waiting for a port that went down are lost with it (its output stage drops them).
  if (port.state() == PortState::kDown) engine(port.number()).try_send();
  management_.on_port_state_change(port.number());
}

// --- EthernetPortOwner ---

void Hca::on_frame_head(EthernetPort& port, Packet* p, Time, Time tail) {
  schedule<&ReceiveEngine::roce_tail_arrives>(tail, &receive_, p, port.number());
}

void Hca::on_tx_done(EthernetPort& port) { engine(port.number()).try_send(); }

void Hca::on_tx_ready(EthernetPort& port) { engine(port.number()).try_send(); }

}  // namespace ibfsim
