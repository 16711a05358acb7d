#include "sim/workload/traffic_class.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/core/big_endian.h"
#include "sim/core/error.h"
#include "sim/network/grh.h"
#include "sim/link/lrh.h"
#include "sim/report/histogram_json.h"
#include "sim/transport/opcode.h"
#include "sim/workload/arrival_process.h"
#include "sim/workload/collective_schedule.h"
#include "sim/workload/message_packets.h"
#include "sim/transport/packet_fields.h"

namespace ibfsim {

using namespace verbs;

namespace {

constexpr std::uint32_t kClassQKey = 0x22222222;
constexpr std::uint32_t kUdGrhRoom = 40;  // a UD receive buffer starts with room for a GRH
constexpr std::size_t kNoHost = ~std::size_t{0};

double ns(double fs) { return fs / 1e6; }

// Random streams of class `index`: one per (host, purpose), apart from every other consumer's.
std::uint64_t stream_id(std::size_t index, std::size_t host, unsigned purpose) {
  return (std::uint64_t{0xC1A55} << 44) + (std::uint64_t{index} << 28) + std::uint64_t{host} * 4 + purpose;
}
enum Purpose : unsigned { kArrivals = 0, kDestinations = 1, kSizes = 2 };

ibv_mtu mtu_enum(std::uint32_t bytes) {
  switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    default: return IBV_MTU_4096;
  }
}

}  // namespace

struct TrafficClass::Endpoint {
  std::size_t src = 0, dst = kNoHost;  // dst: kNoHost for a host's UD QP (any destination)
  QueuePair* qp = nullptr;             // the sending QP (verbs)
  QueuePair* target = nullptr;         // RC/UC: the QP at the destination
  std::uint32_t outstanding = 0;       // posted, not yet completed (verbs)
  std::deque<std::uint32_t> backlog;   // messages waiting for a send queue slot
  std::uint64_t next_seq = 0;          // verbs: 64-bit PSN of the next packet; ud_send unused
  std::map<std::uint64_t, std::uint32_t> in_flight;  // first packet (PSN or packet id) -> message
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
  std::unique_ptr<Endpoint> ud;  // ud_send and UD: the host's sending endpoint
  std::vector<Endpoint*> to;     // RC/UC: by destination host (nullptr: no connection)
  PdHandle pd = 0;
  CqHandle send_cq = 0, recv_cq = 0;
  std::uint64_t buf = 0;
  ibv_mr local_mr, target_mr;
  Listener send_listener, recv_listener;
  std::vector<std::uint8_t> received;  // collectives: steps received this iteration
  std::uint32_t got = 0;               // collectives: steps 0..got-1 all received

  Host(std::uint64_t seed, std::size_t index, std::size_t h, const TrafficClassSpec& s)
      : arrival_rng(seed, stream_id(index, h, kArrivals)),
        dest_rng(seed, stream_id(index, h, kDestinations)),
        size_rng(seed, stream_id(index, h, kSizes)),
        arrivals(s.arrival, s.collective() ? 1.0 : s.load) {}
};

TrafficClass::TrafficClass(const TrafficClassSpec& spec, std::size_t index, Fabric& fabric, std::uint64_t seed,
                           ClassWindow window, std::vector<Time> completion_delay, VerbsFlowOwner& owner)
    : spec_(spec), index_(index), fabric_(fabric), seed_(seed), window_(window),
      completion_delay_(std::move(completion_delay)), owner_(owner),
      pattern_(spec.pattern, spec.hosts.size(), RngStream(seed, stream_id(index, 0xFFFFFF, 3))) {}

TrafficClass::~TrafficClass() = default;

double TrafficClass::wire_fs(const LinkPort& port, std::uint64_t bytes) const {
  const MessagePackets m = message_packets(spec_.transport, spec_.verb, bytes, spec_.mtu);
  std::uint64_t edges = port.symbols_for(m.first_bytes);
  if (m.count > 1) edges += port.symbols_for(m.middle_bytes) * (m.count - 2) + port.symbols_for(m.last_bytes);
  return static_cast<double>(edges) * port.clock().period_fs();
}

std::vector<std::uint64_t> TrafficClass::delivery_keys() const {
  std::vector<std::uint64_t> keys;
  for (const auto& h : hosts_)
    if (h->ud_qpn) keys.push_back(delivery_key(h->node, h->ud_qpn));
  for (const auto& [k, e] : by_target_qp_) keys.push_back(k);
  for (const auto& [k, e] : by_requester_qp_) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

TrafficClass::Endpoint* TrafficClass::endpoint_for(std::size_t src, std::size_t dst) {
  Host& h = *hosts_[src];
  if (h.ud) return h.ud.get();
  return h.to[dst];
}

void TrafficClass::setup() {
  const std::size_t n = spec_.hosts.size();
  const bool ud = spec_.transport == ClassTransport::kUdSend || spec_.transport == ClassTransport::kUd;
  for (std::size_t i = 0; i < n; ++i) {
    auto h = std::make_unique<Host>(seed_, index_, i, spec_);
    h->node = spec_.hosts[i];
    h->hca = fabric_.hca(h->node);
    if (spec_.verbs() && h->node < completion_delay_.size()) h->react = completion_delay_[h->node];
    host_of_node_[h->node] = i;
    h->to.assign(n, nullptr);
    hosts_.push_back(std::move(h));
  }
  // Which (source, destination) pairs can carry messages.
  std::vector<std::vector<std::size_t>> dests(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (spec_.pattern.kind == PatternKind::kRingAllreduce) dests[i] = {(i + 1) % n};
    else if (spec_.pattern.kind == PatternKind::kAllToAllRounds) dests[i] = pattern_.reachable(i);
    else if (spec_.sending[i]) {
      if (pattern_.sends(i)) dests[i] = pattern_.reachable(i);
      else ++silent_sources_;
    }
  }

  if (spec_.transport == ClassTransport::kUdSend) {
    for (auto& h : hosts_) {
      h->ud_qpn = h->hca->create_ud_qp(kClassQKey);
      h->ud = std::make_unique<Endpoint>();
      h->ud->src = host_of_node_[h->node];
    }
  } else {
    // Verbs: a PD, two CQs and one buffer per host, registered for local use and as a target.
    const std::uint64_t buf_len = std::max<std::uint64_t>(1, std::uint64_t{spec_.sizes.largest()} + kUdGrhRoom);
    for (std::size_t i = 0; i < n; ++i) {
      Host& h = *hosts_[i];
      Hca& hca = *h.hca;
      h.pd = hca.alloc_pd();
      h.send_cq = hca.create_cq(1u << 20);
      h.recv_cq = hca.create_cq(1u << 20);
      h.send_listener.cls = h.recv_listener.cls = this;
      h.send_listener.host = h.recv_listener.host = i;
      h.recv_listener.recv = true;
      hca.cq(h.send_cq).set_listener(&h.send_listener);
      hca.cq(h.recv_cq).set_listener(&h.recv_listener);
      h.buf = hca.alloc_host_memory(buf_len);
      h.local_mr = *hca.reg_mr(h.pd, h.buf, buf_len, IBV_ACCESS_LOCAL_WRITE);
      h.target_mr = *hca.reg_mr(h.pd, h.buf, buf_len,
                                IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    }
    auto make_qp = [&](Host& h, ibv_qp_type type) {
      ibv_qp_init_attr init;
      init.send_cq = h.send_cq;
      init.recv_cq = h.recv_cq;
      init.qp_type = type;
      init.cap.max_send_wr = spec_.tx_depth;
      init.cap.max_recv_wr = spec_.rx_depth;
      QueuePair* q = h.hca->create_qp(h.pd, init);
      IBFSIM_CHECK(q != nullptr, "traffic class: create_qp failed");
      return q;
    };
    auto to_init = [&](Host& h, QueuePair& q, bool is_ud) {
      ibv_qp_attr at;
      at.qp_state = IBV_QPS_INIT;
      at.pkey_index = 0;
      at.port_num = 1;
      at.qkey = kClassQKey;
      at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
      const unsigned m = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | (is_ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
      IBFSIM_CHECK(h.hca->modify_qp(q, at, m) == 0, "traffic class: QP to INIT refused");
    };
    auto to_rts = [&](Host& h, QueuePair& q, Host* peer, QueuePair* peer_qp) {
      const bool rc = q.type() == IBV_QPT_RC, is_ud = q.type() == IBV_QPT_UD;
      ibv_qp_attr at;
      at.qp_state = IBV_QPS_RTR;
      unsigned m = IBV_QP_STATE;
      if (!is_ud) {
        at.path_mtu = mtu_enum(spec_.mtu);
        at.dest_qp_num = peer_qp->qpn();
        at.rq_psn = 0;
        at.ah_attr.dlid = peer->hca->lid();
        at.ah_attr.sl = spec_.sl;
        at.ah_attr.port_num = 1;
        at.max_dest_rd_atomic = 16;
        at.min_rnr_timer = 1;  // 0.01 ms: a receiver out of receives costs little
        m |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
        if (rc) m |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
      }
      IBFSIM_CHECK(h.hca->modify_qp(q, at, m) == 0, "traffic class: QP to RTR refused");
      at.qp_state = IBV_QPS_RTS;
      at.sq_psn = 0;
      at.timeout = 14;
      at.retry_cnt = 7;
      at.rnr_retry = 7;
      at.max_rd_atomic = 16;
      m = IBV_QP_STATE | IBV_QP_SQ_PSN;
      if (rc) m |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
      IBFSIM_CHECK(h.hca->modify_qp(q, at, m) == 0, "traffic class: QP to RTS refused");
    };
    const bool receives = spec_.verb == ClassVerb::kSend;
    if (ud) {
      for (std::size_t i = 0; i < n; ++i) {
        Host& h = *hosts_[i];
        h.ud_qp = make_qp(h, IBV_QPT_UD);
        h.ud_qpn = h.ud_qp->qpn();
        to_init(h, *h.ud_qp, true);
        to_rts(h, *h.ud_qp, nullptr, nullptr);
        h.ud = std::make_unique<Endpoint>();
        h.ud->src = i;
        h.ud->qp = h.ud_qp;
        for (std::uint32_t r = 0; r < spec_.rx_depth; ++r) post_recv(i, *h.ud_qp);
      }
    } else {
      const ibv_qp_type type = spec_.transport == ClassTransport::kRc ? IBV_QPT_RC : IBV_QPT_UC;
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t d : dests[i]) {
          Host& a = *hosts_[i];
          Host& b = *hosts_[d];
          auto e = std::make_unique<Endpoint>();
          e->src = i;
          e->dst = d;
          e->qp = make_qp(a, type);
          e->target = make_qp(b, type);
          to_init(a, *e->qp, false);
          to_init(b, *e->target, false);
          to_rts(a, *e->qp, &b, e->target);
          to_rts(b, *e->target, &a, e->qp);
          if (receives)
            for (std::uint32_t r = 0; r < spec_.rx_depth; ++r) post_recv(d, *e->target);
          a.to[d] = e.get();
          by_target_qp_[delivery_key(b.node, e->target->qpn())] = e.get();
          by_requester_qp_[delivery_key(a.node, e->qp->qpn())] = e.get();
          endpoints_.push_back(std::move(e));
        }
      }
    }
  }

  // Traffic.
  if (spec_.collective()) {
    steps_ = spec_.pattern.kind == PatternKind::kRingAllreduce ? ring_allreduce_steps(n) : all_to_all_rounds(n);
    next_step_.assign(n, 0);
    hosts_.front()->hca->schedule<&TrafficClass::iteration_starts>(window_.start + spec_.start, this);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (dests[i].empty()) continue;
    Host& h = *hosts_[i];
    // Sources start at a random phase within one mean gap, so that they are not synchronised.
    const double mean_wire = wire_fs(h.hca->port(1), static_cast<std::uint64_t>(std::llround(spec_.sizes.mean())));
    const Time first = window_.start + static_cast<Time>(std::floor(h.arrival_rng.uniform() * h.arrivals.mean_gap(mean_wire)));
    schedule_arrival(i, first);
  }
}

void TrafficClass::schedule_arrival(std::size_t host, Time at) {
  if (at >= window_.measure_end) return;
  hosts_[host]->hca->schedule<&TrafficClass::message_arrives>(at, this, host);
}

void TrafficClass::iteration_starts() { start_iteration(ScheduledModule::now()); }

void TrafficClass::steps_enabled(std::size_t i) {
  Host& h = *hosts_[i];
  while (next_step_[i] < steps_ && next_step_[i] <= h.got) collective_post(i, next_step_[i]++);
}

void TrafficClass::message_arrives(std::size_t i) {
  Host& h = *hosts_[i];
  const Time t = ScheduledModule::now();
  const std::size_t dst = pattern_.next(i, h.messages++, h.dest_rng);
  const std::uint64_t bytes = spec_.sizes.draw(h.size_rng);
  const bool measured = t >= window_.measure_begin && t < window_.measure_end;
  offer(i, dst, bytes, measured, 0);
  schedule_arrival(i, t + h.arrivals.next_gap(wire_fs(h.hca->port(1), bytes), h.arrival_rng));
}

std::uint32_t TrafficClass::new_slot(const Message& m) {
  if (!free_slots_.empty()) {
    const std::uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    messages_[s] = m;
    return s;
  }
  messages_.push_back(m);
  return static_cast<std::uint32_t>(messages_.size() - 1);
}

void TrafficClass::offer(std::size_t src, std::size_t dst, std::uint64_t bytes, bool measured, std::uint32_t step) {
  Host& h = *hosts_[src];
  Message m;
  m.arrival = ScheduledModule::now();
  m.bytes = bytes;
  m.packets = message_packets(spec_.transport, spec_.verb, bytes, spec_.mtu).count;
  m.src = static_cast<std::uint32_t>(src);
  m.dst = static_cast<std::uint32_t>(dst);
  m.step = step;
  m.measured = measured;
  ++offered_messages_;
  if (measured) {
    ++measured_;
    offered_payload_ += bytes;
    offered_wire_fs_ += wire_fs(h.hca->port(1), bytes);
  }
  const std::uint32_t slot = new_slot(m);
  Endpoint* e = endpoint_for(src, dst);
  IBFSIM_CHECK(e != nullptr, "traffic class: no connection for a message");
  if (spec_.transport == ClassTransport::kUdSend) {
    // Packets built at the wire, one per MTU, posted at once (their ids are consecutive).
    Host& d = *hosts_[dst];
    const Lid dlid = d.hca->lid(1);
    std::uint64_t left = bytes;
    std::uint64_t first_id = 0;
    for (std::uint32_t k = 0; k < m.packets; ++k) {
      const auto len = static_cast<std::uint32_t>(std::min<std::uint64_t>(left, spec_.mtu));
      left -= len;
      const std::uint64_t id = h.hca->post_ud_send(h.ud_qpn, dlid, d.ud_qpn, kClassQKey, len, measured, spec_.sl,
                                                   static_cast<std::uint16_t>(index_));
      if (k == 0) first_id = id;
    }
    e->in_flight[first_id] = slot;
    return;
  }
  if (e->outstanding < spec_.tx_depth && e->backlog.empty()) post(*e, slot);
  else e->backlog.push_back(slot);
}

void TrafficClass::post(Endpoint& e, std::uint32_t slot) {
  const Message& m = messages_[slot];
  Host& h = *hosts_[m.src];
  Host& d = *hosts_[m.dst];
  ibv_send_wr wr;
  wr.wr_id = slot;
  wr.send_flags = IBV_SEND_SIGNALED;
  const auto len = static_cast<std::uint32_t>(m.bytes);
  wr.sg_list.push_back({h.buf, len, h.local_mr.lkey});
  switch (spec_.verb) {
    case ClassVerb::kSend: wr.opcode = IBV_WR_SEND; break;
    case ClassVerb::kWrite: wr.opcode = IBV_WR_RDMA_WRITE; break;
    case ClassVerb::kRead: wr.opcode = IBV_WR_RDMA_READ; break;
  }
  wr.rdma.remote_addr = d.buf;
  wr.rdma.rkey = d.target_mr.rkey;
  if (spec_.transport == ClassTransport::kUd) {
    wr.ud.ah.dlid = d.hca->lid(1);
    wr.ud.ah.sl = spec_.sl;
    wr.ud.ah.port_num = 1;
    wr.ud.remote_qpn = d.ud_qpn;
    wr.ud.remote_qkey = kClassQKey;
  }
  const int rc = h.hca->post_send(*e.qp, wr);
  if (rc != 0) {  // the QP broke (an error completion came first): the message is lost
    ++error_completions_;
    free_slots_.push_back(slot);
    return;
  }
  // PSNs it takes: one per data packet (READ: per response packet); UD: one.
  e.in_flight[e.next_seq] = slot;
  e.next_seq += m.packets;
  ++e.outstanding;
}

void TrafficClass::post_recv(std::size_t host, QueuePair& qp) {
  Host& h = *hosts_[host];
  ibv_recv_wr wr;
  wr.sg_list.push_back({h.buf, spec_.sizes.largest() + kUdGrhRoom, h.local_mr.lkey});
  IBFSIM_CHECK(h.hca->post_recv(qp, wr) == 0, "traffic class: post_recv refused");
}

void TrafficClass::Listener::on_completion(CqHandle cq, const ibv_wc&) {
  Hca& hca = *cls->hosts_[host]->hca;
  ibv_wc wc;
  while (hca.poll_cq(cq, 1, &wc) == 1) {
    if (recv) cls->on_recv_completion(host, wc);
    else cls->on_send_completion(host, wc);
  }
}

void TrafficClass::on_send_completion(std::size_t host, const ibv_wc& wc) {
  Host& h = *hosts_[host];
  if (wc.status != IBV_WC_SUCCESS) ++error_completions_;
  Endpoint* e = nullptr;
  if (h.ud_qp && h.ud_qp->qpn() == wc.qp_num) {
    e = h.ud.get();
  } else {
    auto it = by_requester_qp_.find(delivery_key(h.node, wc.qp_num));
    if (it != by_requester_qp_.end()) e = it->second;
  }
  IBFSIM_CHECK(e != nullptr && e->outstanding > 0, "traffic class: completion of an unknown send");
  --e->outstanding;
  while (!e->backlog.empty() && e->outstanding < spec_.tx_depth && e->qp->state() == IBV_QPS_RTS) {
    const std::uint32_t slot = e->backlog.front();
    e->backlog.pop_front();
    post(*e, slot);
  }
  owner_.flow_progress();
}

void TrafficClass::on_recv_completion(std::size_t host, const ibv_wc& wc) {
  if (wc.status != IBV_WC_SUCCESS) {
    ++error_completions_;
    return;
  }
  QueuePair* q = hosts_[host]->hca->qp(wc.qp_num);
  if (q && q->state() != IBV_QPS_ERR) post_recv(host, *q);
}

void TrafficClass::on_delivered(std::size_t node, const Packet& p, Time tail) {
  const std::uint8_t operation = opcode_operation(packet_opcode(p));
  const Qpn dqp = packet_dest_qp(p);
  const std::uint64_t key = delivery_key(node, dqp);
  Endpoint* e = nullptr;
  const bool read_response = operation >= op::kRdmaReadRespFirst && operation <= op::kRdmaReadRespOnly;
  const bool request_data = operation <= op::kRdmaWriteOnlyImm;
  const auto here = host_of_node_.find(node);
  if (here == host_of_node_.end()) return;
  if (hosts_[here->second]->ud) {
    if (!request_data) return;
    auto from = host_of_node_.find(p.src_node);
    if (from == host_of_node_.end()) return;
    e = hosts_[from->second]->ud.get();
  } else if (read_response) {
    auto it = by_requester_qp_.find(key);
    if (it != by_requester_qp_.end()) e = it->second;
  } else if (request_data && spec_.verb != ClassVerb::kRead) {
    auto it = by_target_qp_.find(key);
    if (it != by_target_qp_.end()) e = it->second;
  }
  if (e == nullptr) return;  // ACKs, READ requests
  delivered_payload_ += p.payload_len;
  // Accepted throughput: every data packet delivered in the window.
  if (tail >= window_.measure_begin && tail < window_.measure_end) {
    const LinkPort& port = fabric_.port(node, 1);
    accepted_wire_fs_ += static_cast<double>(port.symbols_for(p.wire_bytes())) * port.clock().period_fs();
    accepted_payload_ += p.payload_len;
    ++accepted_packets_;
  }
  if (e->in_flight.empty()) return;  // a duplicate (RC retransmission) of a delivered message
  std::uint64_t seq;
  if (spec_.transport == ClassTransport::kUdSend) {
    seq = p.id;
  } else {
    const std::uint64_t base = e->in_flight.begin()->first;
    const Psn psn = packet_psn(p);
    seq = base + ((psn - base) & 0xFFFFFF);
  }
  auto it = e->in_flight.upper_bound(seq);
  if (it == e->in_flight.begin()) return;
  --it;
  const std::uint32_t slot = it->second;
  const Message& m = messages_[slot];
  if (seq >= it->first + m.packets) return;
  if (m.measured) {
    packet_latency_.add(tail - p.created);
    network_latency_.add(tail - p.injected);
  }
  if (seq == it->first + m.packets - 1) {
    e->in_flight.erase(it);
    message_delivered(slot, tail);
  }
}

void TrafficClass::message_delivered(std::uint32_t slot, Time tail) {
  const Message m = messages_[slot];
  free_slots_.push_back(slot);
  ++delivered_messages_;
  if (m.measured) {
    ++measured_delivered_;
    message_latency_.add(tail - m.arrival);
  }
  if (!spec_.collective()) return;
  Host& h = *hosts_[m.dst];
  if (m.step < h.received.size()) h.received[m.step] = 1;
  while (h.got < steps_ && h.received[h.got]) ++h.got;
  h.hca->schedule<&TrafficClass::steps_enabled>(tail + h.react, this, m.dst);
  if (++received_this_iteration_ == hosts_.size() * steps_) {
    fct_.emplace_back(iteration_start_, tail);
    ++iteration_;
    if (iteration_ < spec_.iterations) hosts_.front()->hca->schedule<&TrafficClass::iteration_starts>(tail, this);
    owner_.flow_progress();
  }
}

void TrafficClass::start_iteration(Time at) {
  iteration_start_ = at;
  received_this_iteration_ = 0;
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    Host& h = *hosts_[i];
    h.received.assign(steps_, 0);
    h.got = 0;
    next_step_[i] = 1;
    collective_post(i, 0);
  }
}

void TrafficClass::collective_post(std::size_t i, std::uint32_t step) {
  const std::size_t n = hosts_.size();
  const CollectiveSend s = spec_.pattern.kind == PatternKind::kRingAllreduce
                               ? ring_allreduce_send(i, step, n, spec_.sizes.largest())
                               : all_to_all_round_send(i, step, n, spec_.sizes.largest());
  offer(i, s.dest, s.bytes, true, step);
}

bool TrafficClass::done(Time now) const {
  if (spec_.collective()) return iteration_ >= spec_.iterations;
  if (now < window_.measure_end) return false;
  for (const auto& h : hosts_)
    if (h->ud && (h->ud->outstanding || !h->ud->backlog.empty())) return false;
  for (const auto& e : endpoints_)
    if (e->outstanding || !e->backlog.empty()) return false;
  return true;
}

std::uint64_t TrafficClass::messages_waiting_at_sources() const {
  std::uint64_t w = 0;
  for (const auto& h : hosts_)
    if (h->ud) w += h->ud->backlog.size();
  for (const auto& e : endpoints_) w += e->backlog.size();
  return w;
}

void TrafficClass::add_totals(ClassTotals& t) const {
  if (spec_.collective()) return;
  t.offered_wire_fs += offered_wire_fs_;
  t.accepted_wire_fs += accepted_wire_fs_;
  t.offered_payload_bytes += offered_payload_;
  t.accepted_payload_bytes += accepted_payload_;
  t.sources += spec_.sources() - silent_sources_;
}

nlohmann::json TrafficClass::results() const {
  nlohmann::json j;
  j["name"] = spec_.name;
  j["kind"] = "traffic_class";
  j["pattern"] = pattern_name(spec_.pattern.kind);
  j["transport"] = class_transport_name(spec_.transport);
  j["verb"] = class_verb_name(spec_.verb);
  j["sl"] = spec_.sl;
  j["mtu"] = spec_.mtu;
  if (spec_.sizes.fixed()) {
    j["message_size_bytes"] = spec_.sizes.largest();
  } else {
    nlohmann::json mix = nlohmann::json::array();
    for (const auto& e : spec_.sizes.entries()) mix.push_back({{"size", e.bytes}, {"weight", e.weight}});
    j["message_size_bytes"] = mix;
  }
  j["hosts"] = spec_.hosts.size();
  const std::size_t senders = spec_.collective() ? spec_.hosts.size() : spec_.sources() - silent_sources_;
  j["sources"] = senders;
  j["silent_sources"] = silent_sources_;
  j["messages"] = {{"offered", offered_messages_},
                   {"delivered", delivered_messages_},
                   {"measured", measured_},
                   {"measured_delivered", measured_delivered_},
                   {"measured_undelivered", measured_ - measured_delivered_},
                   {"waiting_at_sources_at_end", messages_waiting_at_sources()}};
  j["message_latency"] = histogram_json(message_latency_);
  j["packet_latency"] = histogram_json(packet_latency_);
  j["network_latency"] = histogram_json(network_latency_);
  j["error_completions"] = error_completions_;
  if (!spec_.collective()) {
    j["load"] = spec_.load;
    j["arrival"] = arrival_name(spec_.arrival.kind);
    if (spec_.arrival.kind == ArrivalKind::kOnOff) {
      j["burst_length"] = spec_.arrival.burst_length;
      j["peak_load"] = spec_.arrival.peak_load;
    }
    const double window = static_cast<double>(window_.measure_end - window_.measure_begin);
    const double capacity = window * static_cast<double>(senders);
    const double window_s = window / 1e15;
    j["offered"] = {{"load", capacity > 0 ? offered_wire_fs_ / capacity : 0.0},
                    {"payload_gbps", static_cast<double>(offered_payload_) * 8 / window_s / 1e9},
                    {"payload_bytes", offered_payload_}};
    j["accepted"] = {{"load", capacity > 0 ? accepted_wire_fs_ / capacity : 0.0},
                     {"payload_gbps", static_cast<double>(accepted_payload_) * 8 / window_s / 1e9},
                     {"payload_bytes", accepted_payload_},
                     {"packets", accepted_packets_}};
  } else {
    nlohmann::json c;
    const std::uint64_t buffer = spec_.sizes.largest();
    c["buffer_bytes"] = buffer;
    c["steps"] = steps_;
    c["iterations"] = spec_.iterations;
    c["completed"] = fct_.size();
    nlohmann::json its = nlohmann::json::array();
    LatencyHistogram f;
    for (std::size_t k = 0; k < fct_.size(); ++k) {
      const Time d = fct_[k].second - fct_[k].first;
      f.add(d);
      its.push_back({{"iteration", k},
                     {"start_ns", ns(static_cast<double>(fct_[k].first))},
                     {"end_ns", ns(static_cast<double>(fct_[k].second))},
                     {"fct_ns", ns(static_cast<double>(d))}});
    }
    c["per_iteration"] = its;
    if (f.count() > 0) {
      c["fct_ns"] = {{"min", ns(static_cast<double>(f.min()))},
                     {"mean", ns(f.mean_fs())},
                     {"max", ns(static_cast<double>(f.max()))}};
      // NCCL's figures: algorithm bandwidth = buffer / time; bus bandwidth scales it by what each
      // host must move: 2(n-1)/n for allreduce, (n-1)/n for all-to-all (buffer = n-1 blocks sent).
      const double n = static_cast<double>(hosts_.size());
      const double mean_s = f.mean_fs() / 1e15;
      if (spec_.pattern.kind == PatternKind::kRingAllreduce) {
        c["algorithm_bandwidth_gbps"] = static_cast<double>(buffer) * 8 / mean_s / 1e9;
        c["bus_bandwidth_gbps"] = static_cast<double>(buffer) * 8 / mean_s / 1e9 * 2 * (n - 1) / n;
      } else {
        const double total = static_cast<double>(buffer) * n;  // a host's whole send buffer, own block included
        c["algorithm_bandwidth_gbps"] = total * 8 / mean_s / 1e9;
        c["bus_bandwidth_gbps"] = total * 8 / mean_s / 1e9 * (n - 1) / n;
      }
    }
    j["collective"] = c;
  }
  return j;
}

std::string TrafficClass::summary() const {
  std::string s = fmt::format("  class {} ({} {} {}, SL {}): ", spec_.name, pattern_name(spec_.pattern.kind),
                              class_transport_name(spec_.transport), class_verb_name(spec_.verb), spec_.sl);
  const nlohmann::json r = results();
  if (spec_.collective()) {
    s += fmt::format("{} of {} iterations", fct_.size(), spec_.iterations);
    if (!fct_.empty())
      s += fmt::format(", completion time mean {:.3f} us, bus bandwidth {:.2f} Gb/s",
                       r["collective"]["fct_ns"]["mean"].get<double>() / 1000,
                       r["collective"]["bus_bandwidth_gbps"].get<double>());
  } else {
    s += fmt::format("offered {:.3f}, accepted {:.3f} of link rate", r["offered"]["load"].get<double>(),
                     r["accepted"]["load"].get<double>());
    if (message_latency_.count())
      s += fmt::format(", message latency mean {:.3f} us, p99 {:.3f} us", message_latency_.mean_fs() / 1e9,
                       static_cast<double>(message_latency_.percentile(99)) / 1e9);
    if (measured_undelivered()) s += fmt::format(", {} measured messages undelivered", measured_undelivered());
  }
  return s + "\n";
}

std::string TrafficClass::fct_csv_rows() const {
  std::string s;
  for (std::size_t k = 0; k < fct_.size(); ++k)
    s += fmt::format("{},{},{:.6f},{:.6f},{:.6f}\n", spec_.name, k, ns(static_cast<double>(fct_[k].first)),
                     ns(static_cast<double>(fct_[k].second)), ns(static_cast<double>(fct_[k].second - fct_[k].first)));
  return s;
}

}  // namespace ibfsim
