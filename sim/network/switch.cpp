#include "sim/network/switch.h"

namespace ibfsim {

Time lifetime_from_code(unsigned code) {
  if (code >= 20) return kTimeNever;
  return static_cast<Time>(4096) * kNs * (Time{1} << code);  // 4.096 us x 2^code
}

Switch::Switch(const sc_core::sc_module_name& name, SwitchConfig config, PacketPool& pool, PacketLedger& ledger)
    : ScheduledModule(name), config_(std::move(config)), pool_(pool), ledger_(ledger),
      life_time_(lifetime_from_code(config_.life_time_code)),
      routing_(config_.num_ports, config_.buffers.op_vls, config_.mtu), adaptive_(*this), notifier_(*this), arn_(*this),
      queued_(config_.num_ports, std::array<std::uint32_t, kMaxDataVls + 1>{}), replicator_(*this), management_(*this) {
  if (config_.vl_arbitration.high.empty() && config_.vl_arbitration.low.empty())
    config_.vl_arbitration = default_vl_arbitration(config_.buffers.op_vls);
  routing_.set_lid(config_.lid);
  routing_.lft() = config_.lft;
  routing_.mft() = config_.mft;
  routing_.set_sl_to_vl(config_.sl_to_vl);
  for (unsigned i = 1; i <= config_.num_ports; ++i) {
    ports_.push_back(std::make_unique<LinkPort>(*this, *this, static_cast<PortNum>(i), config_.buffers,
                                                std::string(this->name()) + "/" + std::to_string(i)));
    ports_.back()->set_activate_on_data(true);
  }
  inputs_.reserve(config_.num_ports);
  for (auto& port : ports_) inputs_.emplace_back(*this, *port);
  const Time hoq_life = lifetime_from_code(config_.hoq_life_code);
  for (auto& port : ports_)
    outputs_.push_back(std::make_unique<OutputUnit>(*this, *port, config_.num_ports, config_.vl_arbitration, hoq_life));
  discards_.resize(config_.num_ports);
}

void Switch::count_lost_own(PortNum out, DropReason reason) {
  if (out >= 1 && out <= ports_.size()) ++discards_[out - 1][static_cast<int>(reason)];
  ++stats_.discarded;
  ledger_.dropped(reason, true);
}

void Switch::on_link_discard(LinkPort& port, Packet* p, DropReason reason) {
  count_discard(port.number(), reason, *p);
  pool_.release(p);
}

std::uint32_t Switch::output_queue_blocks(PortNum out) const {
  std::uint32_t n = 0;
  for (const InputUnit& in : inputs_) n += in.queued_blocks(out);
  return n;
}

void Switch::set_congestion_control(const SwitchCongestionConfig& config) {
  cc_config_ = config;
  if (!config.marks(num_ports())) {
    cc_.reset();
    return;
  }
  constexpr std::uint64_t kCcMarkingStream = std::uint64_t{0xCC} << 48;
  cc_ = std::make_unique<CongestionDetector>(config, num_ports(), config_.buffers.data_vl_blocks,
                                             RngStream(config_.seed, kCcMarkingStream + config_.node_index));
  // Packets already queued count from now on (they met no congestion: they came before it was on).
  for (InputUnit& in : inputs_) in.congestion_control_started(*cc_);
}

}  // namespace ibfsim
