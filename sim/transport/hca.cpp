#include "sim/transport/hca.h"

#include "sim/core/error.h"
#include "sim/link/credit_counter.h"
#include "sim/link/vcrc.h"
#include "sim/network/lrh.h"
#include "sim/transport/bth.h"
#include "sim/transport/icrc.h"
#include "sim/transport/ud_send_packet.h"

namespace ibfsim {

std::uint8_t payload_pattern_byte(std::uint64_t packet_id, std::uint32_t offset) {
  std::uint64_t x = packet_id * 0x9E3779B97F4A7C15ull + offset;
  x ^= x >> 29;
  return static_cast<std::uint8_t>(x * 0xBF58476D1CE4E5B9ull >> 56);
}

Hca::Hca(const sc_core::sc_module_name& name, HcaConfig config, PacketPool& pool, PacketLedger& ledger)
    : ScheduledModule(name), config_(std::move(config)), pool_(pool), ledger_(ledger) {
  IBFSIM_CHECK(config_.port_lids.size() == config_.num_ports, "HCA needs one LID per port");
  if (config_.vl_arbitration.high.empty() && config_.vl_arbitration.low.empty())
    config_.vl_arbitration = default_vl_arbitration(config_.buffers.op_vls);
  for (unsigned i = 1; i <= config_.num_ports; ++i) {
    ports_.push_back(std::make_unique<LinkPort>(*this, *this, static_cast<PortNum>(i), config_.buffers,
                                                std::string(this->name()) + "/" + std::to_string(i)));
    arbiters_.emplace_back(config_.vl_arbitration);
  }
  send_queues_.resize(config_.num_ports);
  queued_vls_.assign(config_.num_ports, 0);
}

Qpn Hca::create_ud_qp(std::uint32_t q_key) {
  qps_.push_back(UdQp{q_key});
  return static_cast<Qpn>(kFirstQpn + qps_.size() - 1);
}

std::size_t Hca::queued_packets() const {
  std::size_t n = 0;
  for (const auto& port : send_queues_)
    for (const auto& q : port) n += q.size();
  return n;
}

std::uint64_t Hca::post_ud_send(Qpn src_qp, Lid dlid, Qpn dest_qp, std::uint32_t q_key, std::uint32_t bytes,
                                bool measured, std::uint8_t sl, std::uint16_t flow) {
  UdQp* qp = find_qp(src_qp);
  IBFSIM_CHECK(qp != nullptr, "post on a QP that does not exist");
  Packet* p = pool_.acquire();
  p->id = make_packet_id(config_.node_index, next_packet_seq_++);
  p->created = now();
  p->src_node = config_.node_index;
  p->measured = measured;
  p->flow = flow;
  const std::uint8_t vl = config_.sl_to_vl.vl(sl);
  UdSendFields f;
  f.sl = sl;
  f.vl = vl;
  f.dlid = dlid;
  f.slid = lid(1);
  f.dest_qp = dest_qp;
  f.psn = qp->next_psn;
  qp->next_psn = (qp->next_psn + 1) & 0xFFFFFF;
  f.q_key = q_key;
  f.src_qp = src_qp;
  std::vector<std::uint8_t> data;
  if (config_.carry_payload) {
    data.resize(bytes);
    for (std::uint32_t i = 0; i < bytes; ++i) data[i] = payload_pattern_byte(p->id, i);
  }
  build_ud_send(*p, f, bytes, config_.carry_payload ? data.data() : nullptr);
  ledger_.created();
  if (vl == kVl15 || vl >= ports_[0]->op_vls()) {
    drop_unsent(p, DropReason::kSlToVlDrop);
    return p->id;
  }
  send_queues_[0][vl].push_back(p);
  queued_vls_[0] |= static_cast<std::uint16_t>(1u << vl);
  try_send(1);
  return p->id;
}

void Hca::drop_unsent(Packet* p, DropReason reason) {
  ledger_.injected();  // counted as injected and dropped at once, so the ledger balances
  ledger_.dropped(reason);
  pool_.release(p);
}

void Hca::try_send(PortNum n) {
  auto& queues = send_queues_[n - 1];
  LinkPort& port = *ports_[n - 1];
  std::uint16_t ready = 0;
  if (queued_vls_[n - 1] == 0) return;
  for (std::uint16_t m = queued_vls_[n - 1]; m; m &= static_cast<std::uint16_t>(m - 1)) {
    const unsigned v = static_cast<unsigned>(__builtin_ctz(m));
    const bool fits = port.may_send(static_cast<std::uint8_t>(v), credits_for_bytes(queues[v].front()->wire_bytes()));
    if (fits) ready |= static_cast<std::uint16_t>(1u << v);
    port.set_credit_stalled(static_cast<std::uint8_t>(v), !fits && port.state() == PortState::kActive);
  }
  if (!port.can_start_data()) {
    port.notify_when_free();
    return;
  }
  const int vl = arbiters_[n - 1].choose(ready, false);
  if (vl < 0) return;  // no credits (on_credits retries) or the port is not Active yet
  auto& q = queues[vl];
  Packet* p = q.front();
  q.pop_front();
  if (q.empty()) {
    queued_vls_[n - 1] &= static_cast<std::uint16_t>(~(1u << vl));
    port.set_credit_stalled(static_cast<std::uint8_t>(vl), false);
  }
  p->injected = port.transmit(p);
  // The packet took credits: the next one may now lack them, and waits for them from now on.
  if (!q.empty())
    port.set_credit_stalled(static_cast<std::uint8_t>(vl),
                            !port.may_send(static_cast<std::uint8_t>(vl), credits_for_bytes(q.front()->wire_bytes())));
  // More to send: be told when this packet is out (no extra event, its end is already scheduled).
  if (queued_vls_[n - 1]) port.notify_when_free();
  arbiters_[n - 1].sent(vl, static_cast<std::uint32_t>(p->wire_bytes()));
  ledger_.injected();
  ++stats_.sent_packets;
  stats_.sent_payload_bytes += p->payload_len;
  if (send_observer_) send_observer_->on_injected(*this, *p);
}

void Hca::on_tx_done(LinkPort&, Packet*) {}

void Hca::on_output_free(LinkPort& port) { try_send(port.number()); }

void Hca::on_credits(LinkPort& port) { try_send(port.number()); }

void Hca::on_packet_head(LinkPort& port, Packet* p, Time, Time tail) {
  schedule(tail, this, kConsume, port.number(), p);
}

void Hca::on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) {
  IBFSIM_CHECK(kind == kConsume, "unknown HCA action");
  consume(static_cast<PortNum>(arg), static_cast<Packet*>(ptr));
}

void Hca::drop(PortNum n, Packet* p, DropReason reason) {
  ledger_.dropped(reason);
  ports_[n - 1]->free_rx(p->header[0] >> 4, credits_for_bytes(p->wire_bytes()));
  pool_.release(p);
}

void Hca::on_link_discard(LinkPort&, Packet* p, DropReason reason) {
  ledger_.dropped(reason);
  pool_.release(p);
}

void Hca::consume(PortNum n, Packet* p) {
  // The link layer first (PHY errors, EBP, VCRC of a packet the line changed), then every check
  // over the bytes themselves.
  if (auto bad = ports_[n - 1]->check_tail(p->link_seq, p)) return drop(n, p, *bad);
  if (!vcrc_ok(*p)) return drop(n, p, DropReason::kVcrcError);
  // Management packets (VL15, QP0) await the subnet manager agent; none is sent yet.
  if ((p->header[0] >> 4) == kVl15) return drop(n, p, DropReason::kNoQp);
  const Lrh lrh = decode_lrh(p->header.data());
  if (lrh.lver != 0 || lrh.pkt_len != p->pkt_len_words()) return drop(n, p, DropReason::kMalformed);
  const bool multicast = is_multicast_lid(lrh.dlid);
  if (multicast ? !mcast_qp_.count(lrh.dlid) : lrh.dlid != lid(n)) return drop(n, p, DropReason::kWrongDlid);
  if (!icrc_ok(*p)) return drop(n, p, DropReason::kIcrcError);
  auto ud = parse_ud_send(*p);
  if (!ud || ud->bth.tver != 0) return drop(n, p, DropReason::kMalformed);
  // Multicast goes to DestQP 0xFFFFFF only (R14) and is delivered to the QP attached to the group.
  if (multicast && ud->bth.dest_qp != 0xFFFFFF) return drop(n, p, DropReason::kMalformed);
  const UdQp* qp = find_qp(multicast ? mcast_qp_.at(lrh.dlid) : ud->bth.dest_qp);
  if (qp == nullptr) return drop(n, p, DropReason::kNoQp);
  if (qp->q_key != ud->deth.q_key) return drop(n, p, DropReason::kQkeyMismatch);
  if (!p->payload.empty()) {
    for (std::uint32_t i = 0; i < p->payload_len; ++i) {
      if (p->payload[i] != payload_pattern_byte(p->id, i)) {
        ++stats_.payload_mismatches;
        break;
      }
    }
  }
  ++stats_.received_packets;
  stats_.received_payload_bytes += p->payload_len;
  ledger_.delivered();
  if (observer_) observer_->on_delivered(*this, *p, now());
  ports_[n - 1]->free_rx(p->header[0] >> 4, credits_for_bytes(p->wire_bytes()));
  pool_.release(p);
}

}  // namespace ibfsim
