// Runs one verbs flow (verbs_flow_spec.h) the way perftest runs its tests, through the HCAs'
// verbs API: a PD, CQs, memory regions and a QP on each HCA, connected RESET -> INIT -> RTR -> RTS
// at time 0 (perftest exchanges QP numbers out of band), then:
//  * bw: tx_depth messages outstanding, a new one posted as each completes; bandwidth is bytes
//    completed / (last completion - first post), as ib_*_bw reports it;
//  * lat: SEND and WRITE as ping-pong (the target answers each message with one of its own, a
//    WRITE being seen when its data is visible: wire_to_completion after its last packet's DMA),
//    samples (post[i+1] - post[i]) / 2; READ and atomics one at a time, samples post[i+1] - post[i];
//    t_typical is the median as ib_*_lat computes it.
// With data checking, every message carries a pattern of its index and is checked where it
// lands: content, order, and at the end the whole target memory (regions, receive buffers and a
// guard page past them) against what the completed messages should have left there.
// With `window:` (verbs_flow_window.cpp) the target reaches its region only through a memory
// window it binds at the start; the requester starts once the bind has completed, and may end the
// window with a SEND with Invalidate partway.
// The application takes no time: it posts the instant a completion or arrival lets it.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/event_calendar.h"
#include "sim/subnet_manager/cm/cm_agent.h"
#include "sim/transport/hca.h"
#include "sim/workload/cm_spec.h"
#include "sim/workload/server_srq.h"
#include "sim/workload/verbs_flow_spec.h"

namespace ibfsim {

// Told when a flow may have finished, so the run can decide whether to end.
class VerbsFlowOwner {
 public:
  virtual ~VerbsFlowOwner() = default;
  virtual void flow_progress() = 0;
};

class VerbsFlow {
 public:
  // `from_model`/`to_model`: the two HCAs' configurations (for wire_to_completion). `begin`: when
  // the flow starts (phases.start + the flow's start).
  VerbsFlow(const VerbsFlowSpec& spec, std::size_t index, Hca& from, Hca& to, const HcaConfig& from_model,
            const HcaConfig& to_model, bool data_check, Time begin, VerbsFlowOwner& owner);
  VerbsFlow(const VerbsFlow&) = delete;
  VerbsFlow& operator=(const VerbsFlow&) = delete;

  // How side `side` (0: from, 1: to) reaches the other, when they are in different subnets: the
  // router manager's address vector (fabric/router_manager.h). Before setup().
  void set_peer_address(int side, const verbs::ibv_ah_attr& ah) { sides_[side].peer_address = ah; }
  // `connect: cm`: the CM agents of the two HCAs' ports 1 (one per HCA, shared by its flows), the
  // `cm:` settings and the SA's PacketLifeTime (what the passive side assumes). Before setup().
  void set_cm(CmAgent& active, CmAgent& passive, const CmSpec& spec, std::uint8_t packet_life_time);
  // `srq: true`: the target's server SRQ (its receives); the flow gives each buffer back as its
  // receive completes (after recv_post_delay). Before setup().
  void set_srq(ServerSrq& srq) { srq_ = &srq; }
  // Creates and connects everything and schedules the flow's start; call during elaboration.
  void setup();
  // Every message posted has completed and none will be posted any more (on both sides), and a
  // `connect: cm` connection being torn down has been (DREQ, DREP).
  bool done() const;
  const VerbsFlowSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }  // in event traces
  // The QPs whose delivered packets this flow watches (WRITE ping-pong): (HCA, QPN) pairs.
  std::vector<std::pair<const Hca*, Qpn>> watched_qps() const;
  // A packet `hca` delivered to one of the watched QPs (after the QP processed it).
  void on_delivered(Hca& hca, const Packet& p);

  nlohmann::json results() const;
  std::string summary() const;
  // Payload of the requester's messages completed so far, its HCA and QP (time series, congestion control).
  std::uint64_t bytes_completed() const { return bytes_completed_; }
  const Hca& requester_hca() const { return *sides_[0].hca; }
  const QueuePair* requester_qp() const { return sides_[0].qp; }

  // What the two sides exchanged out of band to connect (perftest's QP information: LIDs, QP
  // numbers, initial PSN, the P_Key, the region the requests reach and its R_Key). An attack
  // (attacks.h) on the flow is given it: the strongest attacker has seen that exchange. Valid after
  // setup().
  struct Connection {
    Lid requester_lid = 0, responder_lid = 0;
    Qpn requester_qpn = 0, responder_qpn = 0;
    Psn initial_psn = 0;
    std::uint16_t p_key = 0;
    std::uint8_t sl = 0;
    std::uint32_t pmtu = 0;
    std::uint64_t target_va = 0, target_len = 0;
    std::uint32_t rkey = 0;
    verbs::PdHandle responder_pd = 0;  // the responder's protection domain (its region's)
  };
  Connection connection() const;

  // `connect: cm` (verbs_flow_cm.cpp): the agents and what the connection did, when.
  struct Cm {
    Cm() {}  // user-provided, as Window's below: clang and std::optional<Cm>::emplace()
    CmAgent* agent[2] = {nullptr, nullptr};
    CmSpec spec;
    std::uint8_t packet_life_time = 0;
    std::uint64_t service_id = 0;
    std::uint32_t comm_id = 0;      // the active side's
    Time requested = kTimeNever;    // the path query sent (the flow's start)
    Time path_resolved = kTimeNever;
    Time rtr[2] = {kTimeNever, kTimeNever}, rts[2] = {kTimeNever, kTimeNever};
    Time established[2] = {kTimeNever, kTimeNever};
    Time disconnect_requested = kTimeNever;                 // the active side's DREQ (cm.disconnect)
    Time disconnected[2] = {kTimeNever, kTimeNever};        // the DREP at the active side, the DREQ at the passive
    enum class Outcome : std::uint8_t { kPending, kEstablished, kRejected, kTimedOut, kNoPath } outcome = Outcome::kPending;
    std::uint16_t reject_reason = 0;
    bool passive_refused = false;   // the passive side answered REJ (max_connections)
  };
  // `connect: cm`: what the connection did, for the results (null for static flows).
  const Cm* cm() const { return cm_ ? &*cm_ : nullptr; }
  static const char* outcome_name(const Cm& c) { return cm_outcome_name(c.outcome); }

  // --- events (event.h) ---
  void flow_starts();
  // Side `side` posts `n` receives (recv_post_delay after the start or after a receive completed).
  void receives_due(int side, std::uint64_t n);
  // A WRITE's data became visible to side `side`'s polling application.
  void write_visible(int side);

 private:
  struct Side;
  struct Listener : CompletionListener {
    VerbsFlow* flow = nullptr;
    int side = 0;
    bool recv = false;
    void on_completion(verbs::CqHandle cq, const verbs::ibv_wc& wc) override;
  };
  struct Side {
    Hca* hca = nullptr;
    Time wire_to_completion = 0;
    verbs::PdHandle pd = 0;
    verbs::CqHandle send_cq = 0, recv_cq = 0;
    QueuePair* qp = nullptr;
    Listener send_listener, recv_listener;
    // Memory: `local` is where its own messages come from (SEND/WRITE) or land (READ, atomics);
    // `target` is what the peer reaches remotely (WRITE, READ, atomics); `recv` holds receive buffers.
    std::uint64_t local = 0, target = 0, recv = 0;
    std::uint64_t target_len = 0, recv_len = 0;  // registered; a guard page follows each
    verbs::ibv_mr local_mr, target_mr, recv_mr;
    std::vector<std::uint8_t> target_initial, recv_initial;  // with data checking
    // Sends.
    std::uint64_t sent = 0, completed = 0;  // messages posted, send completions
    std::vector<Time> posted_at;            // per message
    bool stopped = false;                   // an error completion: post no more
    std::map<int, std::uint64_t> send_status, recv_status;
    // Receives and arrivals.
    std::uint64_t recvs_posted = 0, recvs_wanted = 0;
    std::uint64_t arrived = 0;        // messages from the peer seen (ping-pong, receive completions)
    std::uint64_t next_expected = 0;  // data check: the index the next arrival should carry
    std::uint64_t not_executed_seen = 0;  // watched QP: its non-execution counters at the last packet
    // How it addresses its peer (set_peer_address); unset: the peer's LID, SL the flow's.
    std::optional<verbs::ibv_ah_attr> peer_address;
    verbs::AhHandle peer_ah = 0;  // UD: the address handle its sends name
  };
  // The address vector side `side` reaches its peer by (LID and SL, or the GRH across routers).
  verbs::ibv_ah_attr address_of_peer(int side) const;

  static const char* cm_outcome_name(Cm::Outcome o);  // pending, established, rejected, ...
  void cm_setup();
  void cm_start();  // the active side: to INIT, the path query
  void cm_path_answer(const SaMad* answer);
  void cm_event(int side, CmEvent e, const std::vector<CmQpTransition>& qp);
  void cm_modify(int side, const CmQpTransition& t);
  void traffic_starts();  // the QPs are connected: the window, the first posts
  nlohmann::json cm_results() const;

  // The memory window (verbs_flow_window.cpp): what happened to it, when.
  struct Window {
    // User-provided: clang cannot see a nested struct with member initializers as default
    // constructible inside its enclosing class (std::optional<Window> below).
    Window() {}
    verbs::ibv_mw mw;
    std::uint32_t rkey = 0;  // its R_Key once bound: what the requests name
    bool bound = false;
    int bind_status = -1;
    Time bind_posted_at = 0, bound_at = kTimeNever;
    std::uint64_t messages_before = 0;  // completed successfully before the SEND with Invalidate
    bool invalidation_posted = false, invalidation_done = false;
    Time inv_posted_at = 0, inv_completed_at = 0, inv_received_at = 0;
    int inv_send_status = -1, inv_recv_status = -1;
    bool inv_with_flag = false;
    std::uint32_t invalidated_rkey = 0;
    std::vector<std::uint8_t> target_at_invalidation;  // data check: region and guard, as they were
    int first_after_status = -1;
    Time first_after_at = 0;
  };
  static constexpr std::uint64_t kBindWrId = ~0ull, kInvalidateWrId = ~0ull - 1;
  void window_setup(Side& target);
  void window_start();
  // The completion is the window's (the bind, the SEND with Invalidate or its receive): handled.
  bool window_send_completion(int side, const verbs::ibv_wc& wc);
  bool window_recv_completion(int side, const verbs::ibv_wc& wc);
  // After message completion `wc` at the requester: the figures around the invalidation, and the
  // SEND with Invalidate once invalidate_after messages have completed.
  void window_after_message(const verbs::ibv_wc& wc);
  // The requester may not post now: the window is not bound yet, or the invalidation is under way.
  bool window_holds_posting() const;
  nlohmann::json window_results() const;

  // The messages are all done (done() but for the disconnection).
  bool traffic_done() const;
  // Something changed: with connect: cm, the traffic done starts the disconnection (the active
  // side's DREQ); then the run is told.
  void progress();
  bool ping_pong() const;
  bool lat() const { return spec_.test == VerbsTest::kLat; }
  std::uint32_t slots() const;    // message buffers per side
  std::uint32_t rslots() const;   // receive buffers at the target
  std::uint32_t recv_head() const;  // UD: room for a GRH at the head of each receive buffer
  std::uint32_t recv_slot_bytes() const;
  std::uint64_t key(int side) const;  // pattern key of messages `side` sends
  // Setup (verbs_flow_setup.cpp): side i's PD, CQs, QP and local memory; the region the peer
  // reaches (WRITE, READ, atomics); the receive buffers (SEND).
  void setup_side(int i);
  void setup_target(int i);
  void setup_recv_buffers(int i);
  void connect(Side& s, Side& peer);
  void post_sends(int side);
  bool may_post(int side) const;
  void post_one(int side);
  void post_recvs(int side, std::uint64_t n);
  void on_send_completion(int side, const verbs::ibv_wc& wc);
  void on_recv_completion(int side, const verbs::ibv_wc& wc);
  // Data checks.
  void fill_message(std::uint8_t* dst, std::uint64_t key, std::uint64_t index, std::uint32_t len) const;
  bool check_message(const std::uint8_t* got, std::uint64_t key, std::uint64_t index, std::uint32_t len) const;
  void check_arrival_order(std::uint64_t& expected, std::uint64_t index);
  std::uint64_t atomic_initial() const;
  void check_memory_at_end(nlohmann::json& dc) const;

  VerbsFlowSpec spec_;
  std::size_t index_;
  Side sides_[2];
  bool data_check_;
  Time begin_;
  VerbsFlowOwner& owner_;
  // Data checks.
  std::uint64_t checked_ = 0, mismatches_ = 0, out_of_order_ = 0;
  std::vector<std::int64_t> target_last_[2];  // per side and slot: index of the last message kept there
  std::vector<std::int64_t> recv_last_[2];    // per side and receive slot
  std::uint64_t atomics_done_ = 0;
  std::optional<Window> window_;
  std::optional<Cm> cm_;
  ServerSrq* srq_ = nullptr;
  Time traffic_begin_;  // begin_, or with connect: cm when the active side reached RTS
  // Latency.
  std::vector<Time> completion_latency_;  // bw: post to completion, per message
  Time first_post_ = kTimeNever, last_completion_ = 0;
  std::uint64_t bytes_completed_ = 0;
};

}  // namespace ibfsim
