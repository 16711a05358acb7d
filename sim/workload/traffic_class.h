// Runs one traffic class (traffic_class_spec.h) on a fabric: its sources, the messages they offer
// and what becomes of them.
//
// Load-driven patterns: each sending host draws arrivals from its arrival process between the
// class's start and the end of the measurement window, and each message's destination from the
// pattern and size from the mix. Collectives: every host posts the first step of the schedule
// (collective_schedule.h) and each further step once the message it depends on has arrived;
// iterations run back to back.
//
// Transports: `ud_send` builds packets at the wire as the UD traffic generator does (a message
// larger than the MTU becomes several packets, built together); past saturation it builds no
// backlog either: while the host's send queue for the class's VL is full its messages wait unbuilt
// (SendEngine::DatagramFeeder), in arrival order, and its arrivals are drawn only when it has room
// again, each dated from its arrival, so the packets and their times are those of building every
// message on arrival and memory stays flat; settle() counts what never got built. `ud`, `uc`, `rc` go through the
// HCAs' verbs API and HCA model: one UD QP per host, or one connected QP pair per (source,
// destination) the pattern can pick, created and connected at time 0 as an MPI library would.
// A message waits at its source (in arrival order, per QP) while tx_depth messages are
// outstanding on the QP; its latency counts that wait.
//
// Message latency: from the message's arrival at its source to the tail of its last data packet
// delivered where the data goes (the destination; for READ, the requester that reads), after the
// host interface DMA on verbs transports. Packet latency: a data packet's creation (ud_send: the
// post; verbs: when the HCA builds it) to its tail delivered; network latency: its first symbol
// on the wire to its tail. Only messages that arrive in the measurement window are measured
// (collectives: every message). ACKs and READ requests are not data packets.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/event_calendar.h"
#include "sim/core/rng.h"
#include "sim/fabric/host_fabric.h"
#include "sim/report/latency_histogram.h"
#include "sim/subnet_manager/cm/cm_agent.h"
#include "sim/transport/ipoib/ipoib_datagram.h"
#include "sim/transport/ipoib/ipoib_tcp_segment.h"
#include "sim/workload/destination_pattern.h"
#include "sim/workload/traffic_class_spec.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

// The times a class runs by.
struct ClassWindow {
  Time start = 0;          // phases.start: traffic begins (collectives: + their own start)
  Time measure_begin = 0;  // messages arriving in [measure_begin, measure_end) are measured
  Time measure_end = 0;    // load-driven sources stop offering here
};

// Figures a run adds up over every class.
struct ClassTotals {
  double offered_wire_fs = 0;   // link time of the packets of measured messages
  double accepted_wire_fs = 0;  // link time of data packets delivered in the window
  std::uint64_t offered_payload_bytes = 0, accepted_payload_bytes = 0;
  std::size_t sources = 0;      // sending hosts of load-driven classes
};

class TrafficClass {
 public:
  // `completion_delay`: by node, the HCA model's wire_to_completion, which collectives on verbs
  // transports wait after a message arrives before they post the step it allows.
  TrafficClass(const TrafficClassSpec& spec, std::size_t index, HostFabric& fabric, std::uint64_t seed, ClassWindow window,
               std::vector<Time> completion_delay, VerbsFlowOwner& owner);
  ~TrafficClass();
  TrafficClass(const TrafficClass&) = delete;
  TrafficClass& operator=(const TrafficClass&) = delete;

  // IPoIB connected mode (spec().ipoib_connected_mtu): each host's CM agent (by topology node),
  // and the PacketLifeTime code of the paths, for the CM's timeouts. Call before setup().
  using CmAgentOf = std::function<CmAgent&(std::size_t node)>;
  void set_cm_agents(CmAgentOf agent_of, std::uint8_t packet_life_time) {
    cm_agent_of_ = std::move(agent_of);
    packet_life_time_ = packet_life_time;
  }
  // Creates QPs and memory, connects, schedules the first arrivals; call during elaboration.
  void setup();
  const TrafficClassSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }  // in event traces
  // Keys (hca node << 24 | QPN) of the QPs whose delivered packets belong to this class.
  std::vector<std::uint64_t> delivery_keys() const;
  static std::uint64_t delivery_key(std::size_t node, Qpn qpn) { return (std::uint64_t{node} << 24) | qpn; }
  // The QPN of a delivery key that claims every other QP of its node (IPoIB connected mode's RC
  // QPs, made as connections open): no QP has it (QPNs run up from 0x100; 0xFFFFFF is multicast).
  static constexpr Qpn kOtherQps = 0xFFFFFE;
  // A packet delivered to one of those QPs (`tail`: when it was delivered).
  void on_delivered(std::size_t node, const Packet& p, Time tail);
  // Nothing more will be offered and nothing offered is still waiting, posted or in flight (at `now`).
  bool done(Time now) const;
  // Measured messages not delivered (yet).
  std::uint64_t measured_undelivered() const {
    return figures_ ? figures_->measured_undelivered : measured_ - measured_delivered_;
  }
  std::uint64_t messages_waiting_at_sources() const;
  // ud_send, after the simulation ends at `end` (once): the messages that arrived and were never
  // built, drawn now without building them and counted as offered and waiting.
  void settle(Time end);

  // Payload of the class's data packets delivered so far (time series).
  std::uint64_t delivered_payload_bytes() const { return delivered_payload_; }
  const LatencyHistogram& message_latency() const { return figures_ ? figures_->message_latency : message_latency_; }
  const LatencyHistogram& packet_latency() const { return figures_ ? figures_->packet_latency : packet_latency_; }
  const LatencyHistogram& network_latency() const { return figures_ ? figures_->network_latency : network_latency_; }
  void add_totals(ClassTotals& t) const;
  nlohmann::json results() const;
  std::string summary() const;
  // fct.csv rows for collectives: "class,iteration,start_ns,end_ns,fct_ns\n" lines.
  std::string fct_csv_rows() const;

  // Across MPI ranks (docs/architecture.md, "Ranks") a class runs on its hosts' rank only (they
  // share a partition); the figures above are computed there, once, from its own counts, and sent
  // to every other rank (traffic_class_figures.cpp): encode_figures on the class's rank (after
  // settle), take_in_figures on the others, whose copy never ran. From then on every figure above
  // is the one the class's rank computed.
  std::vector<std::uint8_t> encode_figures() const;
  void take_in_figures(const std::vector<std::uint8_t>& bytes);

  // --- events (event.h) ---
  // Host `host`'s next message arrives (load-driven patterns).
  void message_arrives(std::size_t host);
  // A collective's next iteration starts; host `host` may post the steps its arrivals enabled.
  void iteration_starts();
  void steps_enabled(std::size_t host);
  // ipoib_udp, ipoib_tcp: host `host`'s interface joins its broadcast group (traffic starts).
  void ipoib_starts(std::size_t host);
  // ipoib_tcp: a connection side's timer (key: pair x 2 + side, 0 the client, 1 the server).
  void tcp_timer(std::size_t key);

 private:
  struct Message {
    Time arrival = 0;
    std::uint64_t bytes = 0;
    std::uint32_t packets = 1;
    std::uint32_t src = 0, dst = 0;  // host indices
    std::uint32_t step = 0;          // collectives
    bool measured = false;
  };
  struct Endpoint;  // a sending QP (verbs) or a host's generator QP (ud_send)
  struct Host;
  struct UdSendFeeder;  // ud_send: a host waiting for room in its send queue
  struct TcpPair;       // ipoib_tcp: one connection
  struct Listener : CompletionListener {
    TrafficClass* cls = nullptr;
    std::size_t host = 0;
    bool recv = false;
    void on_completion(verbs::CqHandle cq, const verbs::ibv_wc& wc) override;
  };

  // The wire time of a message of `bytes` from a source whose ib0 is (`connected`) or is not in
  // connected mode (the class's load is counted in its own mode whatever its peer's).
  double wire_fs(std::size_t node, std::uint64_t bytes, bool connected) const;
  // The link time of a message's packets from host node `node` (HostFabric::ib_sized_wire_edges).
  double packets_wire_fs(std::size_t node, const MessagePackets& m) const;
  CmAgentOf cm_agent_of_;
  std::uint8_t packet_life_time_ = 0;
  void schedule_arrival(std::size_t host, Time at);
  // Host `host`'s message arriving at `t` (now, or earlier while the host waited for room): drawn
  // and offered, then the next arrival scheduled, or drawn at once if it is already past.
  void draw_arrival(std::size_t host, Time t);
  void offer(std::size_t src, std::size_t dst, std::uint64_t bytes, bool measured, std::uint32_t step, Time arrival);
  // ud_send: builds the host's unbuilt messages while its send queue has room, else waits for room.
  void ud_send_pump(std::size_t host);
  void ud_send_build(std::size_t host);  // the first unbuilt message, all its packets
  void ud_send_feed(std::size_t host);   // SendEngine::DatagramFeeder: room again
  // ipoib_udp: the host's interface resolved an address (or room again): builds what it can, and
  // lets a paused source go on.
  void ipoib_resolved(std::size_t host);
  void setup_ipoib();  // an IPoIB interface per host, started at the class's start
  // ipoib_tcp (traffic_class_tcp.cpp): a connection per (source, destination) the pattern can
  // pick; the application's writes; segments to and from the interfaces; the results.
  void setup_tcp(const std::vector<std::vector<std::size_t>>& dests);
  void tcp_resolved(std::size_t host);  // connects what it can, sends what waited for ARP
  void tcp_offer(std::size_t src, std::size_t dst, std::uint32_t slot);
  void tcp_write(std::size_t pair);
  void tcp_flush(std::size_t pair, int side);
  void tcp_delivered(std::size_t host, const Packet& p, const IpoibTcpSegment& s, Time tail);
  // A segment from host `from` at host `host`; `p` its UD packet (datagram mode), nullptr when it
  // came over a connection (connected mode: its RC packets' wire time is computed).
  void tcp_segment_in(std::size_t host, std::size_t from, const IpoibTcpSegment& s, Time tail, const Packet* p);
  // Connected mode: a UDP datagram over a connection (the source's next message to this host).
  void udp_connected_in(std::size_t host, const IpoibUdpDatagram& d);
  std::size_t host_of_address(const std::array<std::uint8_t, 4>& ip) const;  // kClassNoHost if none
  // Connected mode: the wire time of one IPoIB packet of `bytes` (header included) as an RC SEND,
  // and its packets.
  double ipoib_cm_wire_fs(std::size_t node, std::uint32_t bytes, std::uint32_t* packets = nullptr) const;
  bool tcp_done() const;
  std::uint64_t tcp_waiting() const;  // messages not yet wholly taken by their socket
  nlohmann::json tcp_results(double window_s, std::size_t senders) const;
  nlohmann::json ipoib_connected_results() const;  // the `ipoib.connected` block
  void post(Endpoint& e, std::uint32_t slot);
  void post_recv(std::size_t host, QueuePair& qp);
  void on_send_completion(std::size_t host, const verbs::ibv_wc& wc);
  void on_recv_completion(std::size_t host, const verbs::ibv_wc& wc);
  void message_delivered(std::uint32_t slot, Time tail);
  void start_iteration(Time at);
  void collective_post(std::size_t host, std::uint32_t step);
  std::uint32_t new_slot(const Message& m);
  Endpoint* endpoint_for(std::size_t src, std::size_t dst);
  // setup in its steps: the hosts; by source, the destinations the pattern can pick; their
  // endpoints and QPs (traffic_class_endpoints.cpp); then a collective's first iteration
  // (traffic_class_collective.cpp) or each load-driven source's first arrival (traffic_class_sources.cpp).
  void make_hosts();
  std::vector<std::vector<std::size_t>> reachable_destinations();
  void setup_endpoints(const std::vector<std::vector<std::size_t>>& dests);
  void setup_verbs_hosts();  // a PD, two CQs and a registered buffer per host
  QueuePair* make_qp(Host& h, verbs::ibv_qp_type type) const;
  void qp_to_init(Host& h, QueuePair& q, bool is_ud) const;
  void qp_to_rts(Host& h, QueuePair& q, Host* peer, QueuePair* peer_qp) const;  // peer: RC/UC only
  void setup_ud_qps();  // UD: one QP per host, receives posted
  void connect_pairs(const std::vector<std::vector<std::size_t>>& dests);  // RC/UC: a QP pair per pair
  void start_collective();
  void start_sources(const std::vector<std::vector<std::size_t>>& dests);

  // The figures of the class's rank (take_in_figures); unset: computed from this object.
  struct Figures {
    nlohmann::json results;
    std::string summary, fct_rows;
    LatencyHistogram message_latency, packet_latency, network_latency;
    std::uint64_t measured_undelivered = 0, waiting_at_sources = 0;
    ClassTotals totals;
  };
  std::unique_ptr<Figures> figures_;

  TrafficClassSpec spec_;
  std::size_t index_;
  HostFabric& fabric_;
  std::uint64_t seed_;
  ClassWindow window_;
  std::vector<Time> completion_delay_;
  VerbsFlowOwner& owner_;
  DestinationPattern pattern_;
  std::vector<std::unique_ptr<Host>> hosts_;
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
  std::unordered_map<std::uint64_t, Endpoint*> by_target_qp_;  // RC/UC SEND/WRITE: target QP -> sender
  std::unordered_map<std::uint64_t, Endpoint*> by_requester_qp_;  // READ: requester QP -> itself
  std::unordered_map<std::size_t, std::size_t> host_of_node_;
  std::vector<Message> messages_;          // slots
  std::vector<std::uint32_t> free_slots_;
  bool offering_stopped_ = false;
  std::vector<std::unique_ptr<TcpPair>> tcp_pairs_;

  // Statistics.
  LatencyHistogram message_latency_, packet_latency_, network_latency_;
  std::uint64_t offered_messages_ = 0, measured_ = 0, measured_delivered_ = 0, delivered_messages_ = 0;
  std::uint64_t offered_payload_ = 0, accepted_payload_ = 0, accepted_packets_ = 0, delivered_payload_ = 0;
  double offered_wire_fs_ = 0, accepted_wire_fs_ = 0;
  std::uint64_t error_completions_ = 0;
  std::uint64_t silent_sources_ = 0;
  std::uint64_t settled_waiting_ = 0;  // ud_send: arrived, never built (settle)

  // Collectives.
  std::size_t steps_ = 0;
  std::uint64_t iteration_ = 0;            // the running one (0-based)
  std::uint64_t received_this_iteration_ = 0;
  Time iteration_start_ = 0;
  std::vector<std::pair<Time, Time>> fct_;  // (start, end) of each finished iteration
  std::vector<std::uint32_t> next_step_;    // by host: the next step it will post
  std::vector<std::uint32_t> got_step_;     // by host: steps it has received
};

}  // namespace ibfsim
