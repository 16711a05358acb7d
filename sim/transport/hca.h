// A host channel adapter with one or more ports and UD queue pairs. The send side builds real
// packet bytes when a message is posted and transmits them in order as credits allow; the receive
// side checks VCRC, LRH, BTH, ICRC, QP and Q_Key from the bytes once the tail is in, then delivers
// or drops with a counted reason.
//
// QP0 (the SMI): a VL15 packet whose DLID is the permissive LID or one of the port's LIDs goes to
// the HCA's ManagementAgent (its SMA, and the SM on the SM's host); a packet for QP0 on any other
// VL is discarded (R2). The agent sends SMPs with send_management, ahead of data packets, and
// programs the ports through the setters (LID and LMC, SL->VL, VL arbitration, P_Keys).
#pragma once
#include <array>
#include <deque>
#include <optional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/ring_queue.h"
#include "sim/core/scheduled_module.h"
#include "sim/link/link_port.h"
#include "sim/link/port_output.h"
#include "sim/link/sl_to_vl_table.h"
#include "sim/link/vl_arbiter.h"
#include "sim/network/management_agent.h"
#include "sim/transport/becn_responder.h"
#include "sim/transport/cc_throttle.h"
#include "sim/transport/completion_queue.h"
#include "sim/transport/host_interface.h"
#include "sim/transport/host_memory.h"
#include "sim/transport/memory_region.h"
#include "sim/transport/queue_pair.h"

namespace ibfsim {

class Hca;

// Told about every packet the HCA delivers to a QP; `p` is valid only during the call.
class DeliveryObserver {
 public:
  virtual ~DeliveryObserver() = default;
  virtual void on_delivered(Hca& hca, const Packet& p, Time tail) = 0;
};

// Told about every packet the HCA puts on the wire (its first symbol has just been scheduled).
class SendObserver {
 public:
  virtual ~SendObserver() = default;
  virtual void on_injected(Hca& hca, const Packet& p) = 0;
};

struct HcaConfig {
  unsigned num_ports = 1;
  PortBuffers buffers;                   // per port
  SlToVlTable sl_to_vl = SlToVlTable::identity_modulo(1);  // every port
  VlArbConfig vl_arbitration;            // every port; empty = default_vl_arbitration(op_vls)
  std::vector<Lid> port_lids;            // [port-1]
  std::uint32_t node_index = 0;          // fabric node index, recorded in packets it sends
  bool carry_payload = false;            // write real payload bytes (data checking) or elide them
  // Verbs QPs only (the UD traffic generator's post_ud_send injects at the wire):
  Time doorbell_to_wire = 250'000'000;      // post_send to the QP's first packet being ready (fs)
  Time wire_to_completion = 250'000'000;    // last byte in (DMA done) to data and CQE visible (fs)
  HostInterfaceConfig host;                 // payload DMA in both directions
  std::vector<std::uint16_t> p_keys = {0xFFFF};  // every port's P_Key table
  std::uint64_t port_guid_base = 0;         // SGIDs: subnet prefix fe80::, GUID base + port
};

struct HcaStats {
  std::uint64_t sent_packets = 0, sent_payload_bytes = 0;
  std::uint64_t received_packets = 0, received_payload_bytes = 0;
  std::uint64_t payload_mismatches = 0;  // carried payload differed from the pattern sent
};

class Hca : public ScheduledModule, public PortOwner, public TransportEnv {
 public:
  Hca(const sc_core::sc_module_name& name, HcaConfig config, PacketPool& pool, PacketLedger& ledger);

  LinkPort& port(PortNum n = 1) { return *ports_.at(n - 1); }
  unsigned num_ports() const { return static_cast<unsigned>(ports_.size()); }
  Lid lid(PortNum n = 1) const { return config_.port_lids.at(n - 1); }
  std::uint8_t lmc(PortNum n = 1) const { return port_lmc_.at(n - 1); }
  // Whether `dlid` is one of port n's LIDs: base .. base + 2^LMC - 1.
  bool is_own_lid(PortNum n, Lid dlid) const {
    const Lid base = lid(n);
    return base != 0 && dlid >= base && static_cast<unsigned>(dlid - base) < (1u << lmc(n));
  }

  // --- QP0 and port programming (the SMA) ---
  void set_management_agent(ManagementAgent* agent) { agent_ = agent; }
  // Sends an SMP (a VL15 packet the agent counted as created) out of port n, before data packets;
  // on a port that is down or not cabled it is dropped and counted.
  void send_management(PortNum n, Packet* p);
  // Sends a GMP from QP1 (the GSI) out of port n on the data VL in its LRH, once that VL has
  // credits, ahead of the data packets. GMPs to QP1 of this port reach the management agent.
  void send_gsi(PortNum n, Packet* p);
  PacketPool& pool() { return pool_; }
  PacketLedger& ledger() { return ledger_; }
  std::uint32_t node_index() const { return config_.node_index; }
  void set_port_lid(PortNum n, Lid lid, std::uint8_t lmc) {
    config_.port_lids.at(n - 1) = lid;
    port_lmc_.at(n - 1) = lmc;
  }
  void set_sl_to_vl(PortNum n, const SlToVlTable& table) { port_sl_to_vl_.at(n - 1) = table; }
  const SlToVlTable& sl_to_vl_table(PortNum n) const { return port_sl_to_vl_.at(n - 1); }
  void set_vl_arbitration(PortNum n, const VlArbConfig& config);
  const VlArbConfig& vl_arbitration(PortNum n) const { return senders_.at(n - 1)->stage.vl_arbitration(); }
  const std::vector<std::uint16_t>& p_keys() const { return config_.p_keys; }

  // Creates a UD QP with the given Q_Key; QPNs are handed out from 0x000100 upward (QP0 and QP1
  // are the management QPs).
  Qpn create_ud_qp(std::uint32_t q_key);
  // Attaches UD QP `qpn` to multicast group `mlid`: packets to the MLID with DestQP 0xFFFFFF are
  // delivered to it.
  void join_multicast(Lid mlid, Qpn qpn) { mcast_qp_[mlid] = qpn; }

  // Posts a UD SEND of `bytes` (<= PMTU) from `src_qp` on port 1 to (dlid, dest_qp) with `q_key`
  // on service level `sl` (mapped to a VL by the port's SL->VL table; an SL that maps to VL15 or
  // to a non-operational VL is dropped and counted, R16). The packet is built now; `measured`
  // marks it for latency statistics, `flow` names its workload flow. Returns the packet's id.
  std::uint64_t post_ud_send(Qpn src_qp, Lid dlid, Qpn dest_qp, std::uint32_t q_key, std::uint32_t bytes,
                             bool measured, std::uint8_t sl = 0, std::uint16_t flow = 0);
  // Sends a copy of `p`, a packet built elsewhere, on `port` exactly as its bytes are (CRCs are not
  // rewritten) on the VL its LRH names, in turn with the HCA's other packets: a way to put crafted
  // or malformed packets on the wire (compliance tests play a peer with it). Returns the packet id.
  std::uint64_t send_raw(const Packet& p, PortNum port = 1);

  // --- verbs (see verbs.h): handles are small integers; calls return 0 or an errno value ---
  std::uint64_t alloc_host_memory(std::uint64_t len, std::uint64_t align = 4096) { return memory_.alloc(len, align); }
  HostMemory& memory() override { return memory_; }
  verbs::PdHandle alloc_pd() { return ++pds_; }
  std::optional<verbs::ibv_mr> reg_mr(verbs::PdHandle pd, std::uint64_t addr, std::uint64_t length, unsigned access);
  verbs::CqHandle create_cq(std::uint32_t cqe);
  CompletionQueue& cq(verbs::CqHandle h) { return *cqs_.at(h - 1); }
  int poll_cq(verbs::CqHandle h, int n, verbs::ibv_wc* wc) { return cq(h).poll(n, wc); }
  // nullptr if the attributes are invalid (unknown CQ, unsupported type).
  QueuePair* create_qp(verbs::PdHandle pd, const verbs::ibv_qp_init_attr& init);
  QueuePair* qp(Qpn qpn);
  int modify_qp(QueuePair& qp, const verbs::ibv_qp_attr& attr, unsigned mask);
  int post_send(QueuePair& qp, const verbs::ibv_send_wr& wr);
  int post_recv(QueuePair& qp, const verbs::ibv_recv_wr& wr);
  // Sum of every verbs QP's counters.
  QpStats qp_stats() const;
  // Packets received on port `n` and discarded for `r` (PortRcvErrors causes, P_KeyViolations as
  // kPkeyViolation, Q_KeyViolations as kQkeyMismatch, ...), like Switch::port_discards.
  std::uint64_t port_discards(PortNum n, DropReason r) const { return discards_.at(n - 1)[static_cast<int>(r)]; }

  // TransportEnv
  Time now() const override { return ScheduledModule::now(); }
  const MrTable& mrs() const override { return mrs_; }
  bool carry_payload() const override { return config_.carry_payload; }
  void wake(QueuePair& qp) override;
  void arm_timer(QueuePair& qp, std::uint8_t kind, Time at, std::uint64_t generation) override;
  void complete(QueuePair& qp, bool send_side, const verbs::ibv_wc& wc) override;
  Lid port_lid(PortNum port) const override { return lid(port); }
  std::uint16_t port_p_key(PortNum port, std::uint16_t index) const override;
  // Replaces every port's P_Key table (what a subnet manager programs with P_KeyTable Sets).
  void set_p_keys(std::vector<std::uint16_t> keys) { config_.p_keys = std::move(keys); }
  std::uint8_t sl_to_vl(PortNum port, std::uint8_t sl) const override {
    return port_sl_to_vl_[port >= 1 && port <= port_sl_to_vl_.size() ? port - 1 : 0].vl(sl);
  }
  Grh port_grh_source(PortNum port) const override;

  // Congestion control (IBA Annex A10): from now on the HCA answers FECN-marked packets with
  // BECNs (becn_responder.h, cnp.h) and throttles its QPs' injection on the BECNs it gets
  // (cc_throttle.h) as `config` says: what CACongestionSetting and CongestionControlTable Sets
  // program. Off until called: every hook is then one null test.
  void set_congestion_control(const CaCongestionConfig& config);
  const CcThrottle* cc_throttle() const { return cc_ ? &cc_->throttle : nullptr; }
  // Per-QP FECN/BECN/CNP counters (empty while congestion control is off), by local QPN.
  const std::map<Qpn, CcQpCounters>& cc_counters() const;

  void set_delivery_observer(DeliveryObserver* obs) { observer_ = obs; }
  void set_send_observer(SendObserver* obs) { send_observer_ = obs; }
  std::size_t queued_packets() const;
  const HcaStats& stats() const { return stats_; }

  void on_packet_head(LinkPort& port, Packet* p, Time head, Time tail) override;
  void on_tx_done(LinkPort& port, Packet* p) override;
  void on_output_free(LinkPort& port) override;
  void on_credits(LinkPort& port) override;
  void on_link_discard(LinkPort& port, Packet* p, DropReason reason) override;
  void on_port_state_change(LinkPort& port) override;

  // --- events (event.h) ---
  // The tail of packet `p` is in on port n: the receive checks, then delivery or a drop.
  void tail_arrives(Packet* p, PortNum n);
  // The payload of verbs packet `p` is in host memory: the QP takes it.
  void rx_dma_done(Packet* p, PortNum n);
  // A posted work request's doorbell reaches QP `qpn` (doorbell_to_wire after post_send).
  void doorbell(Qpn qpn);
  struct QpTimer {
    std::uint64_t generation;  // stale if the QP re-armed it since
    Qpn qpn;
    std::uint8_t kind;
  };
  void qp_timer(QpTimer t);
  // The earliest pending completion is due (wire_to_completion after its cause).
  void completion_due();
  // The DMA of a staged packet is done: it may go.
  void staged_payload_ready();
  // Congestion control: the CCTI timer of throttle `key` expired; a held packet's delay is over.
  void cc_timer_expired(std::uint32_t key);
  void cc_delay_over(PortNum n);

  // Packet ids are unique across the fabric: node index in the high bits, a counter below.
  static std::uint64_t make_packet_id(std::uint32_t node, std::uint64_t seq) { return (std::uint64_t{node} << 40) | seq; }

 private:
  static constexpr Qpn kFirstQpn = 0x100;
  struct UdQp {
    std::uint32_t q_key = 0;
    Psn next_psn = 0;
    std::unique_ptr<QueuePair> verbs;  // set: a verbs QP (any type); the fields above are unused
  };
  struct PendingCompletion {
    Time at;
    verbs::CqHandle cq;
    verbs::ibv_wc wc;
  };
  // Verbs QPs with something to send, per port and VL, served round robin.
  struct QpRing {
    std::deque<QueuePair*> qps;
  };
  // A packet waiting for its port, and the verbs QP that built it (told when it goes on the wire).
  struct Queued {
    Packet* p = nullptr;
    QueuePair* qp = nullptr;
  };
  void pull_from_qps(PortNum n);
  void consume_verbs(PortNum n, Packet* p, QueuePair& q, bool multicast);
  void deliver_verbs(PortNum n, Packet* p, const ParsedPacket* parsed = nullptr);
  UdQp* find_qp(Qpn qpn) { return qpn >= kFirstQpn && qpn - kFirstQpn < qps_.size() ? &qps_[qpn - kFirstQpn] : nullptr; }
  // One port's send side: its send queues per VL, offered to the port's output stage
  // (port_output.h), which also sends QP0's SMPs and QP1's GMPs.
  struct PortSender : PortOutput::Source {
    PortSender(Hca& h, PortNum n, const VlArbConfig& arbitration) : h(h), n(n), stage(h.port(n), *this, arbitration, true) {}
    Hca& h;
    PortNum n;
    PortOutput stage;
    QueuePair* taken_qp = nullptr;  // the verbs QP of the packet take() handed out
    Time dma_wait = kTimeNever, cc_wait = kTimeNever;  // found by the survey: when to look again

    void prepare() override;
    std::uint16_t waiting_vls() const override { return h.queued_vls_[n - 1]; }
    bool unarbitrated_waiting() const override { return h.cc_ && !h.cc_->cnps[n - 1].empty(); }
    PortOutput::Candidacy candidate(std::uint8_t vl) override;
    void surveyed() override;
    bool send_unarbitrated(PortOutput&) override { return h.cc_ && h.cc_transmit_cnp(n); }
    Packet* take(std::uint8_t vl) override;
    void sent(std::uint8_t vl, Packet* p, Time start) override;
    bool blocked_after_send(std::uint8_t vl) override;
    void tx_done(Packet*) override {}
    void drop_own(Packet* p, DropReason reason) override {
      h.ledger_.dropped(reason, true);
      h.pool_.release(p);
    }
  };
  void try_send(PortNum n) { senders_[n - 1]->stage.try_send(); }
  void consume(PortNum n, Packet* p);
  void drop(PortNum n, Packet* p, DropReason reason);
  void drop_unsent(Packet* p, DropReason reason);
  // Congestion control (hca.cpp, "congestion control").
  struct Congestion {
    explicit Congestion(const CaCongestionConfig& c, unsigned ports) : throttle(c), wake_at(ports, kTimeNever), cnps(ports) {}
    CcThrottle throttle;
    std::map<Qpn, CcQpCounters> counters;
    std::vector<Time> wake_at;                // per port: the pending kCcWake
    std::vector<std::deque<Packet*>> cnps;    // per port: CNPs to send, ahead of data
  };
  CcThrottle::Key cc_key(PortNum n, const Packet& p) const;
  Time cc_ready_at(PortNum n, const Packet& p) const;  // out of line: the send path keeps a null test
  void cc_sent(PortNum n, const Packet& p);
  void cc_on_becn(PortNum n, Qpn qpn, std::uint8_t sl);
  void cc_send_cnp(PortNum n, const CnpFields& f);
  bool cc_transmit_cnp(PortNum n);
  void cc_pick_front(PortNum n, std::deque<QueuePair*>& ring);
  void cc_wake(PortNum n, Time at);
  void consume_cnp(PortNum n, Packet* p);
  void enqueue(PortNum n, std::uint8_t vl, Packet* p, QueuePair* qp);

  HcaConfig config_;
  PacketPool& pool_;
  PacketLedger& ledger_;
  std::vector<std::unique_ptr<LinkPort>> ports_;
  std::vector<std::array<RingQueue<Queued>, kMaxDataVls + 1>> send_queues_;  // [port-1][vl]
  std::vector<SlToVlTable> port_sl_to_vl_;                                   // per port
  std::vector<std::uint8_t> port_lmc_;                                       // per port
  std::vector<std::unique_ptr<PortSender>> senders_;                         // per port
  ManagementAgent* agent_ = nullptr;
  std::vector<std::uint16_t> queued_vls_;  // per port: bit v set while send_queues_[port][v] is not empty
  std::vector<UdQp> qps_;        // QPN kFirstQpn + i; looked up on every packet sent and received
  std::map<Lid, Qpn> mcast_qp_;  // multicast groups joined, and the QP attached
  std::uint64_t next_packet_seq_ = 0;
  DeliveryObserver* observer_ = nullptr;
  SendObserver* send_observer_ = nullptr;
  HcaStats stats_;
  std::vector<std::array<std::uint64_t, static_cast<int>(DropReason::kCount)>> discards_;  // [port-1][reason]

  HostMemory memory_;
  MrTable mrs_;
  verbs::PdHandle pds_ = 0;
  std::vector<std::unique_ptr<CompletionQueue>> cqs_;
  std::vector<std::array<QpRing, kMaxDataVls + 1>> qp_rings_;  // [port-1][vl]
  std::vector<std::uint16_t> ring_vls_;  // per port: bit v set while qp_rings_[port][v] is not empty
  std::vector<std::uint8_t> in_ring_;                          // by QPN - kFirstQpn
  std::vector<std::array<Time, kMaxDataVls + 1>> staged_ready_;  // [port-1][vl]: DMA of the staged packet done
  std::deque<PendingCompletion> completions_;  // in time order: the latency is the same for all
  DmaPipe dma_tx_, dma_rx_;
  bool send_ready_pending_ = false;
  bool in_pull_ = false;
  std::unique_ptr<Congestion> cc_;  // null while congestion control is off
};

// The byte pattern of a carried payload: a function of the packet id and offset, so a receiver
// can check every byte without a copy of what was sent.
std::uint8_t payload_pattern_byte(std::uint64_t packet_id, std::uint32_t offset);

}  // namespace ibfsim
