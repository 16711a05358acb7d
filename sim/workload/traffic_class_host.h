// The parts of a TrafficClass (traffic_class.h) that its files share: a host's state and a sending
// endpoint, the class's Q_Key, the layout of its receive buffers and its random streams. Internal
// to the class: traffic_class.cpp (setup and state), traffic_class_endpoints.cpp (QPs and their
// wiring), traffic_class_sources.cpp (load-driven arrivals), traffic_class_collective.cpp,
// traffic_class_posting.cpp (offering and posting messages), traffic_class_delivery.cpp and
// traffic_class_results.cpp.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/core/rng.h"
#include "sim/transport/hca.h"
#include "sim/transport/tcp/tcp_connection.h"
#include "sim/workload/arrival_process.h"
#include "sim/workload/ipoib_interface.h"
#include "sim/workload/traffic_class.h"

namespace ibfsim {

inline constexpr std::uint32_t kClassQKey = 0x22222222;
inline constexpr std::uint16_t kIpoibClassPort = 5001;  // ipoib_udp: both UDP ports; ipoib_tcp: the server's (iperf's)
inline constexpr std::uint16_t kTcpClientPortBase = 40000;  // ipoib_tcp: the client's port, + the pair's index
inline constexpr std::uint32_t kClassUdGrhRoom = 40;  // a UD receive buffer starts with room for a GRH
inline constexpr std::size_t kClassNoHost = ~std::size_t{0};

// Random streams of class `index`: one per (host, purpose), apart from every other consumer's.
inline std::uint64_t class_stream_id(std::size_t index, std::size_t host, unsigned purpose) {
  return (std::uint64_t{0xC1A55} << 44) + (std::uint64_t{index} << 28) + std::uint64_t{host} * 4 + purpose;
}
enum ClassStreamPurpose : unsigned { kArrivals = 0, kDestinations = 1, kSizes = 2 };

struct TrafficClass::Endpoint {
  std::size_t src = 0, dst = kClassNoHost;  // dst: kClassNoHost for a host's UD QP (any destination)
  QueuePair* qp = nullptr;                  // the sending QP (verbs)
  QueuePair* target = nullptr;              // RC/UC: the QP at the destination
  std::uint32_t outstanding = 0;            // posted, not yet completed (verbs)
  std::deque<std::uint32_t> backlog;        // messages waiting for a send queue slot
  std::uint64_t next_seq = 0;               // verbs: 64-bit PSN of the next packet; ud_send unused
  std::map<std::uint64_t, std::uint32_t> in_flight;  // first packet (PSN or packet id) -> message
};

struct TrafficClass::UdSendFeeder final : SendEngine::DatagramFeeder {
  TrafficClass* cls = nullptr;
  std::size_t host = 0;
  void feed() override { cls->ud_send_feed(host); }
};

// ipoib_tcp: one connection of a (source, destination) pair: the client at the source's ib0, the
// server at the destination's; the application's bytes not yet taken by the client's socket, and
// the messages by where they end in the byte stream.
struct TrafficClass::TcpPair {
  std::size_t src = 0, dst = 0;
  std::unique_ptr<TcpConnection> side[2];  // 0: the client (at src), 1: the server (at dst)
  std::deque<TcpSegment> pending[2];       // segments waiting for the peer's address (ARP)
  Time timer_at[2] = {kTimeNever, kTimeNever};  // the earliest timer event scheduled
  bool connected = false;                  // the client's SYN went
  std::uint64_t app_pending = 0;           // offered, not yet taken by the socket (a blocked write)
  std::uint64_t written = 0;               // offered in all
  std::deque<std::pair<std::uint64_t, std::uint32_t>> messages;  // (stream end, slot), oldest first
};

struct TrafficClass::Host {
  std::size_t node = 0;
  Hca* hca = nullptr;
  RngStream arrival_rng, dest_rng, size_rng;
  ArrivalProcess arrivals;
  std::uint64_t messages = 0;  // arrivals so far
  Time react = 0;              // collectives: from a message's arrival to the next step's post
  Qpn ud_qpn = 0;              // ud_send and UD: the host's QP
  QueuePair* ud_qp = nullptr;
  std::unique_ptr<Endpoint> ud;  // ud_send, ipoib_udp and UD: the host's sending endpoint
  std::unique_ptr<IpoibInterface> ib0;  // ipoib_udp: the host's interface (its QP is ud_qpn)
  // ud_send: messages offered and not yet built (slots, arrival order), and the arrival the host's
  // load-driven source stopped at while they wait (kTimeNever: not stopped).
  std::deque<std::uint32_t> unbuilt;
  Time paused_arrival = kTimeNever;
  bool waiting_room = false;  // its feeder waits for room in the send queue
  UdSendFeeder feeder;
  std::vector<Endpoint*> to;     // RC/UC: by destination host (nullptr: no connection)
  std::map<std::size_t, std::size_t> tcp_to, tcp_from;  // ipoib_tcp: pairs by destination, by source
  // UD: the address handle of each destination host sent to so far (made at its first message).
  std::unordered_map<std::size_t, verbs::AhHandle> ah_to;
  verbs::PdHandle pd = 0;
  verbs::CqHandle send_cq = 0, recv_cq = 0;
  std::uint64_t buf = 0;
  verbs::ibv_mr local_mr, target_mr;
  Listener send_listener, recv_listener;
  std::vector<std::uint8_t> received;  // collectives: steps received this iteration
  std::uint32_t got = 0;               // collectives: steps 0..got-1 all received

  Host(std::uint64_t seed, std::size_t index, std::size_t h, const TrafficClassSpec& s)
      : arrival_rng(seed, class_stream_id(index, h, kArrivals)),
        dest_rng(seed, class_stream_id(index, h, kDestinations)),
        size_rng(seed, class_stream_id(index, h, kSizes)),
        arrivals(s.arrival, s.collective() ? 1.0 : s.load) {}
};

}  // namespace ibfsim
