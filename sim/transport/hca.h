// A host channel adapter with one or more ports. The send side builds real packet bytes and
// transmits them in order as credits allow; the receive side checks VCRC, LRH, BTH, ICRC, QP and
// Q_Key (or P_Key) from the bytes once the tail is in, then delivers or drops with a counted
// reason.
//
// The Hca is one SystemC module made of hardware blocks, which call one another directly (they
// are one module) and meet other modules only at the wire:
//   - SendEngine (send_engine.h), one per port: the send queues per VL that feed the port's output
//     stage, staging from the verbs QPs with payload DMA, packets injected at the wire;
//   - ReceiveEngine (receive_engine.h): the receive checks, demultiplexing, receive DMA, delivery;
//   - HcaManagement (hca_management.h): QP0 and QP1, the SMPs and GMPs of the management agent;
//   - HcaCongestionControl (hca_congestion_control.h): CNPs and the injection throttle (A10);
//   - VerbsResources (verbs_resources.h): host memory, PDs, the protection table (MRs, MWs), CQs,
//     SRQs, AHs, the QP table, completions and asynchronous events.
// The Hca holds the ports and what the SMA programs into them (LIDs, SL->VL, VL arbitration,
// P_Keys), answers its ports (PortOwner) and its QPs (TransportEnv), and offers the API below.
//
// One queue pair model: every QP is a QueuePair (queue_pair.h). The UD traffic generator's QPs
// (create_ud_qp) are UD QueuePairs in generator mode: post_ud_send builds the UD SEND at once and
// queues it (injected at the wire: no doorbell, no payload DMA, no completion), and they accept
// UD SENDs without a receive WQE. Verbs QPs (create_qp) go through doorbells, DMA and the
// transport (requester.cpp, responder.cpp).
//
// QP0 (the SMI): a VL15 packet whose DLID is the permissive LID or one of the port's LIDs goes to
// the HCA's ManagementAgent (its SMA, and the SM on the SM's host); a packet for QP0 on any other
// VL is discarded (R2). The agent sends SMPs with send_management, ahead of data packets, and
// programs the ports through the setters (LID and LMC, SL->VL, VL arbitration, P_Keys).
#pragma once
#include <array>
#include <cerrno>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/scheduled_module.h"
#include "sim/ethernet/ethernet_port.h"
#include "sim/link/link_port.h"
#include "sim/link/port_output.h"
#include "sim/link/sl_to_vl_table.h"
#include "sim/link/vl_arbiter.h"
#include "sim/network/management_agent.h"
#include "sim/transport/cc_throttle.h"
#include "sim/transport/completion_queue.h"
#include "sim/transport/hca_congestion_control.h"
#include "sim/transport/hca_management.h"
#include "sim/transport/host_interface.h"
#include "sim/transport/host_memory.h"
#include "sim/transport/memory_region.h"
#include "sim/transport/queue_pair.h"
#include "sim/transport/roce/roce_hca_port.h"
#include "sim/transport/receive_engine.h"
#include "sim/transport/send_engine.h"
#include "sim/transport/verbs_resources.h"

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
  std::uint64_t port_guid_base = 0;         // SGIDs: the port's subnet prefix, GUID base + port
  // Every port's GID subnet prefix (PortInfo.GidPrefix) until the SM sets one: the link-local
  // fe80::/64, or a subnet's own where routers join subnets (fabric/topology_subnets.h).
  std::uint64_t subnet_prefix = 0xfe80000000000000ull;
  // Memory keys (memory_key.h): sequential, a key byte or 32 random bits each from
  // RngStream(seed, kMemoryKeyStream + node_index).
  MemoryKeyMode memory_keys = MemoryKeyMode::kSequential;
  std::uint64_t seed = 1;
  // RC QPs tolerate packets out of PSN order (rc_out_of_order.cpp) instead of go-back-N.
  bool rc_out_of_order = false;
  // Ethernet ports (roce/roce_hca_port.h): one per port when set, and then every port is an
  // EthernetPort carrying RoCE v2 instead of an InfiniBand LinkPort (which stays, uncabled: the
  // send engines keep their per-VL queues). `roce_addresses` maps the LIDs QPs name to IPs.
  std::vector<RocePortConfig> roce_ports;
  std::shared_ptr<const RoceAddressBook> roce_addresses;
};

struct HcaStats {
  std::uint64_t sent_packets = 0, sent_payload_bytes = 0;
  std::uint64_t received_packets = 0, received_payload_bytes = 0;
  std::uint64_t payload_mismatches = 0;  // carried payload differed from the pattern sent
};

class Hca final : public ScheduledModule, public PortOwner, public EthernetPortOwner, public TransportEnv {
 public:
  Hca(const sc_core::sc_module_name& name, HcaConfig config, PacketPool& pool, PacketLedger& ledger);

  const HcaConfig& config() const { return config_; }
  LinkPort& port(PortNum n = 1) { return *ports_.at(n - 1); }
  unsigned num_ports() const { return static_cast<unsigned>(ports_.size()); }
  // Whether the ports are Ethernet (HcaConfig::roce_ports), and port n's Ethernet port.
  bool ethernet() const { return !eth_ports_.empty(); }
  EthernetPort& ethernet_port(PortNum n = 1) { return *eth_ports_.at(n - 1); }
  const RocePortConfig& roce_port(PortNum n = 1) const { return config_.roce_ports.at(n - 1); }
  Lid lid(PortNum n = 1) const { return config_.port_lids.at(n - 1); }
  std::uint8_t lmc(PortNum n = 1) const { return port_lmc_.at(n - 1); }
  // Whether `dlid` is one of port n's LIDs: base .. base + 2^LMC - 1.
  bool is_own_lid(PortNum n, Lid dlid) const {
    const Lid base = lid(n);
    return base != 0 && dlid >= base && static_cast<unsigned>(dlid - base) < (1u << lmc(n));
  }

  // --- QP0 and port programming (the SMA) ---
  void set_management_agent(ManagementAgent* agent) { management_.set_agent(agent); }
  // Sends an SMP (a VL15 packet the agent counted as created) out of port n, before data packets;
  // on a port that is down or not cabled it is dropped and counted.
  void send_management(PortNum n, Packet* p) { management_.send_smp(n, p); }
  // Sends a GMP from QP1 (the GSI) out of port n on the data VL in its LRH, once that VL has
  // credits, ahead of the data packets. GMPs to QP1 of this port reach the management agent.
  void send_gsi(PortNum n, Packet* p) { management_.send_gmp(n, p); }
  PacketPool& pool() { return pool_; }
  PacketLedger& ledger() { return ledger_; }
  std::uint32_t node_index() const { return config_.node_index; }
  void set_port_lid(PortNum n, Lid lid, std::uint8_t lmc) {
    config_.port_lids.at(n - 1) = lid;
    port_lmc_.at(n - 1) = lmc;
  }
  // PortInfo.GidPrefix of port n: the subnet prefix of its GID (the SGID of the GRHs it sends).
  void set_subnet_prefix(PortNum n, std::uint64_t prefix) { subnet_prefix_.at(n - 1) = prefix; }
  std::uint64_t subnet_prefix(PortNum n = 1) const { return subnet_prefix_.at(n - 1); }
  void set_sl_to_vl(PortNum n, const SlToVlTable& table) { port_sl_to_vl_.at(n - 1) = table; }
  const SlToVlTable& sl_to_vl_table(PortNum n) const { return port_sl_to_vl_.at(n - 1); }
  void set_vl_arbitration(PortNum n, const VlArbConfig& config) { send_engine(n).output().set_vl_arbitration(config); }
  const VlArbConfig& vl_arbitration(PortNum n) const { return send_engine(n).output().vl_arbitration(); }
  const std::vector<std::uint16_t>& p_keys() const { return config_.p_keys; }

  // Creates a UD QP of the traffic generator with the given Q_Key, on port 1; QPNs are handed
  // out from 0x000100 upward (QP0 and QP1 are the management QPs).
  Qpn create_ud_qp(std::uint32_t q_key) { return verbs_.create_generator_qp(q_key); }
  // Attaches UD QP `qpn` to multicast group `mlid`: packets to the MLID with DestQP 0xFFFFFF are
  // delivered to it.
  void join_multicast(Lid mlid, Qpn qpn) { verbs_.join_multicast(mlid, qpn); }

  // Posts a UD SEND of `bytes` (<= PMTU) from generator QP `src_qp` on port 1 to (dlid, dest_qp)
  // with `q_key` on service level `sl` (mapped to a VL by the port's SL->VL table; an SL that maps
  // to VL15 or to a non-operational VL is dropped and counted, R16). The packet is built now;
  // `measured` marks it for latency statistics, `flow` names its workload flow; `created`, when
  // given, is the message's arrival, earlier than now when it waited at its source for room in the
  // send queue (SendEngine::DatagramFeeder). Returns the packet's id.
  std::uint64_t post_ud_send(Qpn src_qp, Lid dlid, Qpn dest_qp, std::uint32_t q_key, std::uint32_t bytes,
                             bool measured, std::uint8_t sl = 0, std::uint16_t flow = 0, Time created = kTimeNever) {
    QueuePair* q = verbs_.find(src_qp);
    IBFSIM_CHECK(q != nullptr && q->is_generator(), "post_ud_send on a QP that is not a traffic generator's");
    return engine(q->port()).post_datagram(*q, {dlid, dest_qp, q_key, bytes, sl}, measured, flow, created);
  }
  // post_ud_send of the `bytes` at `payload` (copied into the packet, carried whatever
  // carry_payload says): what an IPoIB interface sends. The receiving QP must not check the
  // payload pattern (QueuePair::set_payload_pattern).
  std::uint64_t post_ud_send_bytes(Qpn src_qp, Lid dlid, Qpn dest_qp, std::uint32_t q_key, const std::uint8_t* payload,
                                   std::uint32_t bytes, bool measured, std::uint8_t sl = 0, std::uint16_t flow = 0,
                                   Time created = kTimeNever) {
    QueuePair* q = verbs_.find(src_qp);
    IBFSIM_CHECK(q != nullptr && q->is_generator(), "post_ud_send on a QP that is not a traffic generator's");
    QueuePair::Datagram d{dlid, dest_qp, q_key, bytes, sl};
    d.payload = payload;
    return engine(q->port()).post_datagram(*q, d, measured, flow, created);
  }
  // Sends a copy of `p`, a packet built elsewhere, on `port` exactly as its bytes are (CRCs are not
  // rewritten) on the VL its LRH names, in turn with the HCA's other packets: a way to put crafted
  // or malformed packets on the wire (compliance tests play a peer with it). Returns the packet id.
  std::uint64_t send_raw(const Packet& p, PortNum port = 1);

  // --- verbs (see verbs.h): handles are small integers; calls return 0 or an errno value ---
  std::uint64_t alloc_host_memory(std::uint64_t len, std::uint64_t align = 4096) { return memory().alloc(len, align); }
  HostMemory& memory() override { return verbs_.memory(); }
  verbs::PdHandle alloc_pd() { return verbs_.alloc_pd(); }
  std::optional<verbs::ibv_mr> reg_mr(verbs::PdHandle pd, std::uint64_t addr, std::uint64_t length, unsigned access) {
    return verbs_.reg_mr(pd, addr, length, access);
  }
  // ibv_rereg_mr: a deregistration and a registration of the region in one (its index kept):
  // `flags` (IBV_REREG_MR_CHANGE_*) say what changes; the region gets new keys (a new key byte;
  // random keys: new keys), written into `mr`, and its old keys stop working. 0, or
  // IBV_REREG_MR_ERR_INPUT with the old region valid and unchanged (unknown region or PD, memory
  // not allocated, bad flags or access, windows bound to it).
  int rereg_mr(verbs::ibv_mr& mr, unsigned flags, verbs::PdHandle pd, std::uint64_t addr, std::uint64_t length,
               unsigned access) {
    return verbs_.rereg_mr(mr, flags, pd, addr, length, access);
  }
  // ibv_dereg_mr: 0, EINVAL (not a registered region) or EBUSY (a memory window is bound to it).
  int dereg_mr(const verbs::ibv_mr& mr) { return verbs_.dereg_mr(mr); }
  // ibv_alloc_mw (memory_window.h): a window of `type`, not bound; nullopt for an unknown PD or type.
  std::optional<verbs::ibv_mw> alloc_mw(verbs::PdHandle pd, verbs::ibv_mw_type type) {
    return verbs_.alloc_mw(pd, type);
  }
  // ibv_dealloc_mw: unbinds the window if bound. 0 or EINVAL.
  int dealloc_mw(const verbs::ibv_mw& mw) { return verbs_.dealloc_mw(mw); }
  // ibv_bind_mw (type 1): posts on `qp` a bind work request with the window's next key byte and
  // sets mw.rkey to the new R_Key at once; the bind is done when the send queue comes to it
  // (IBV_WC_BIND_MW if signaled, IBV_WC_MW_BIND_ERR if refused). EINVAL (a type 2 window, a
  // zero-based bind, a UD QP, ...), EPERM (the region's PD is not the window's), ENOMEM.
  int bind_mw(QueuePair& qp, verbs::ibv_mw& mw, const verbs::ibv_mw_bind& bind) { return verbs_.bind_mw(qp, mw, bind); }
  verbs::CqHandle create_cq(std::uint32_t cqe) { return verbs_.create_cq(cqe); }
  // ibv_create_srq (shared_receive_queue.h): 0 for an unknown PD or max_wr / max_sge out of
  // 1..32768 / 1..32 (attr.srq_limit is ignored, as in libibverbs).
  verbs::SrqHandle create_srq(verbs::PdHandle pd, const verbs::ibv_srq_init_attr& init) {
    return verbs_.create_srq(pd, init);
  }
  // ibv_modify_srq (IBV_SRQ_LIMIT arms the limit event), ibv_query_srq, ibv_post_srq_recv,
  // ibv_destroy_srq (EBUSY while QPs use it): 0 or an errno value; EINVAL for an unknown SRQ.
  int modify_srq(verbs::SrqHandle h, const verbs::ibv_srq_attr& attr, unsigned mask) {
    SharedReceiveQueue* s = verbs_.srq(h);
    return s ? s->modify(attr, mask) : EINVAL;
  }
  int query_srq(verbs::SrqHandle h, verbs::ibv_srq_attr* attr) const {
    const SharedReceiveQueue* s = verbs_.srq(h);
    if (!s) return EINVAL;
    *attr = s->query();
    return 0;
  }
  int post_srq_recv(verbs::SrqHandle h, const verbs::ibv_recv_wr& wr) {
    SharedReceiveQueue* s = verbs_.srq(h);
    return s ? s->post(wr) : EINVAL;
  }
  int destroy_srq(verbs::SrqHandle h) { return verbs_.destroy_srq(h); }
  // The SRQ itself, for its counters in the results (nullptr for an unknown handle).
  const SharedReceiveQueue* srq(verbs::SrqHandle h) const { return verbs_.srq(h); }
  // ibv_create_ah: the address vector a UD work request names (wr.ud.ah); 0 for an unknown PD,
  // port or SL. ibv_destroy_ah: 0 or EINVAL (WQEs posted with it keep their copy).
  verbs::AhHandle create_ah(verbs::PdHandle pd, const verbs::ibv_ah_attr& attr) { return verbs_.create_ah(pd, attr); }
  int destroy_ah(verbs::AhHandle h) { return verbs_.destroy_ah(h); }
  // ibv_get_async_event (async_events.h): 0 and the oldest visible event, or EAGAIN when none
  // waits; or a listener called as each becomes visible. (ibv_ack_async_event has nothing to do.)
  int get_async_event(verbs::ibv_async_event* e) { return verbs_.async_events().get(e); }
  void set_async_event_listener(AsyncEventListener* l) { verbs_.async_events().set_listener(l); }
  CompletionQueue& cq(verbs::CqHandle h) { return verbs_.cq(h); }
  int poll_cq(verbs::CqHandle h, int n, verbs::ibv_wc* wc) { return cq(h).poll(n, wc); }
  // nullptr if the attributes are invalid (unknown PD, CQ or SRQ, unsupported type).
  QueuePair* create_qp(verbs::PdHandle pd, const verbs::ibv_qp_init_attr& init) { return verbs_.create_qp(pd, init); }
  // Any QP of the HCA, verbs or generator; nullptr if none has that number.
  QueuePair* qp(Qpn qpn) { return verbs_.find(qpn); }
  int modify_qp(QueuePair& qp, const verbs::ibv_qp_attr& attr, unsigned mask) { return verbs_.modify_qp(qp, attr, mask); }
  int post_send(QueuePair& qp, const verbs::ibv_send_wr& wr) { return verbs_.post_send(qp, wr); }
  int post_recv(QueuePair& qp, const verbs::ibv_recv_wr& wr) { return verbs_.post_recv(qp, wr); }
  // Sum of every QP's counters.
  QpStats qp_stats() const { return verbs_.qp_stats(); }
  // Packets received on port `n` and discarded for `r` (PortRcvErrors causes, P_KeyViolations as
  // kPkeyViolation, Q_KeyViolations as kQkeyMismatch, ...), like Switch::port_discards.
  std::uint64_t port_discards(PortNum n, DropReason r) const { return receive_.discards(n, r); }

  // TransportEnv
  Time now() const override { return ScheduledModule::now(); }
  MrTable& mrs() override { return verbs_.mrs(); }
  const MrTable& mrs() const { return verbs_.mrs(); }
  void async_event(const verbs::ibv_async_event& e) override { verbs_.async_event(e); }
  bool carry_payload() const override { return config_.carry_payload; }
  bool rc_out_of_order() const override { return config_.rc_out_of_order; }
  void wake(QueuePair& qp) override { engine(qp.port()).wake(qp); }
  void arm_timer(QueuePair& qp, std::uint8_t kind, Time at, std::uint64_t generation) override {
    verbs_.arm_timer(qp, kind, at, generation);
  }
  void complete(QueuePair& qp, bool send_side, const verbs::ibv_wc& wc) override { verbs_.complete(qp, send_side, wc); }
  Lid port_lid(PortNum port) const override { return lid(port); }
  std::uint16_t port_p_key(PortNum, std::uint16_t index) const override {
    return index < config_.p_keys.size() ? config_.p_keys[index] : 0;
  }
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
  const CcThrottle* cc_throttle() const { return cc_ ? &cc_->throttle() : nullptr; }
  // Per-QP FECN/BECN/CNP counters (empty while congestion control is off), by local QPN.
  const std::map<Qpn, CcQpCounters>& cc_counters() const;

  void set_delivery_observer(DeliveryObserver* obs) { receive_.set_observer(obs); }
  void set_send_observer(SendObserver* obs) { send_observer_ = obs; }
  SendObserver* send_observer() const { return send_observer_; }
  // Packets waiting in the send queues and congestion control's CNP queues.
  std::size_t queued_packets() const;
  const HcaStats& stats() const { return stats_; }

  // PortOwner
  void on_packet_head(LinkPort& port, Packet* p, Time head, Time tail) override;
  void on_tx_done(LinkPort& port, Packet* p) override;
  void on_output_free(LinkPort& port) override;
  void on_credits(LinkPort& port) override;
  void on_link_discard(LinkPort& port, Packet* p, DropReason reason) override;
  void on_port_state_change(LinkPort& port) override;
  // EthernetPortOwner (Ethernet ports)
  void on_frame_head(EthernetPort& port, Packet* p, Time head, Time tail) override;
  void on_tx_done(EthernetPort& port) override;

  // --- the blocks (the tests of the send and receive engines drive them directly) ---
  SendEngine& send_engine(PortNum n) { return *senders_.at(n - 1); }
  const SendEngine& send_engine(PortNum n) const { return *senders_.at(n - 1); }
  ReceiveEngine& receive_engine() { return receive_; }
  HcaManagement& management() { return management_; }
  VerbsResources& verbs_resources() { return verbs_; }
  const VerbsResources& verbs_resources() const { return verbs_; }
  HcaCongestionControl* congestion_control() { return cc_.get(); }
  const HcaCongestionControl* congestion_control() const { return cc_.get(); }

  // Packet ids are unique across the fabric: node index in the high bits, a counter below.
  static std::uint64_t make_packet_id(std::uint32_t node, std::uint64_t seq) { return (std::uint64_t{node} << 40) | seq; }

 private:
  // The blocks number the packets they make, count into the HCA's stats and reach its ports.
  friend class SendEngine;
  friend class ReceiveEngine;
  friend class HcaCongestionControl;

  // Port n and its send engine, n being one of the HCA's ports (no range check on the per-packet
  // path).
  LinkPort& link(PortNum n) { return *ports_[n - 1]; }
  SendEngine& engine(PortNum n) { return *senders_[n - 1]; }
  // Gives a packet the HCA sends its id, creation time and source node.
  void stamp_new_packet(Packet& p) {
    p.id = make_packet_id(config_.node_index, next_packet_seq_++);
    p.created = now();
    p.src_node = config_.node_index;
  }
  void count_sent(const Packet& p) {
    ++stats_.sent_packets;
    stats_.sent_payload_bytes += p.payload_len;
  }
  void count_received(const Packet& p) {
    ++stats_.received_packets;
    stats_.received_payload_bytes += p.payload_len;
  }
  void count_payload_mismatch() { ++stats_.payload_mismatches; }

  HcaConfig config_;
  PacketPool& pool_;
  PacketLedger& ledger_;
  std::vector<std::unique_ptr<LinkPort>> ports_;
  std::vector<std::unique_ptr<EthernetPort>> eth_ports_;  // empty: InfiniBand
  std::vector<SlToVlTable> port_sl_to_vl_;  // per port
  std::vector<std::uint64_t> subnet_prefix_;  // per port
  std::vector<std::uint8_t> port_lmc_;      // per port
  std::uint64_t next_packet_seq_ = 0;
  SendObserver* send_observer_ = nullptr;
  HcaStats stats_;

  VerbsResources verbs_;
  HcaManagement management_;
  ReceiveEngine receive_;
  SendShared send_shared_;
  std::vector<std::unique_ptr<SendEngine>> senders_;  // per port
  std::unique_ptr<HcaCongestionControl> cc_;          // null while congestion control is off
};

// The byte pattern of a carried payload: a function of the packet id and offset, so a receiver
// can check every byte without a copy of what was sent.
std::uint8_t payload_pattern_byte(std::uint64_t packet_id, std::uint32_t offset);

}  // namespace ibfsim
