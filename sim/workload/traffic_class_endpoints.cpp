// A traffic class's endpoints (traffic_class.h): the ud_send generator QPs, or for verbs
// transports each host's PD, CQs and buffer and the QPs, one UD QP per host or one connected pair
// per (source, destination), created and brought to RTS at time 0 as an MPI library would.
#include <algorithm>

#include "sim/core/error.h"
#include "sim/fabric/fabric.h"
#include "sim/subnet_manager/sma/hca_sma.h"
#include "sim/workload/traffic_class_host.h"

namespace ibfsim {

using namespace verbs;

namespace {

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

void TrafficClass::setup_endpoints(const std::vector<std::vector<std::size_t>>& dests) {
  if (spec_.transport == ClassTransport::kUdSend) {
    for (auto& h : hosts_) {
      h->ud_qpn = h->hca->create_ud_qp(kClassQKey);
      h->ud = std::make_unique<Endpoint>();
      h->ud->src = host_of_node_[h->node];
    }
    return;
  }
  if (spec_.ipoib()) {
    setup_ipoib();
    if (spec_.transport == ClassTransport::kIpoibTcp) setup_tcp(dests);
    return;
  }
  setup_verbs_hosts();
  if (spec_.transport == ClassTransport::kUd) setup_ud_qps();
  else connect_pairs(dests);
}

void TrafficClass::setup_ipoib() {
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    Host& h = *hosts_[i];
    IpoibConfig c;
    c.address = spec_.ipoib_addresses.at(i);
    c.p_key = spec_.ipoib_p_key;
    c.sl = spec_.sl;
    c.ib_mtu = spec_.mtu;
    Fabric* ib = fabric_.infiniband();
    IBFSIM_CHECK(ib != nullptr, "ipoib: a traffic class over IPoIB on a fabric that is not InfiniBand");
    SmaShell& sma = *ib->hca_sma(h.node);
    CmAgent* cm = nullptr;
    if (spec_.ipoib_connected_hosts.at(i)) {
      IBFSIM_CHECK(cm_agent_of_ != nullptr, "ipoib: connected mode without CM agents");
      cm = &cm_agent_of_(h.node);
      c.connected_mtu = spec_.ipoib_connected_mtu;
      c.packet_life_time = packet_life_time_;
    }
    h.ib0 = std::make_unique<IpoibInterface>(*h.hca, sma, ib->hca_sma(h.node)->state().ports.at(1).guid, c, cm);
    h.ib0->set_on_resolved([this, i](const std::array<std::uint8_t, 4>&) { ipoib_resolved(i); });
    if (cm) {
      h.ib0->set_on_connected_tcp([this, i](const IpoibTcpSegment& s) {
        const std::size_t from = host_of_address(s.src_ip);
        if (from != kClassNoHost) tcp_segment_in(i, from, s, hosts_[i]->hca->now(), nullptr);
      });
      h.ib0->set_on_connected_udp([this, i](const IpoibUdpDatagram& d) { udp_connected_in(i, d); });
    }
    h.ud_qpn = h.ib0->qpn();
    h.ud = std::make_unique<Endpoint>();
    h.ud->src = i;
    // The interfaces come up when the traffic starts: the SM has swept and the SA answers.
    h.hca->schedule<&TrafficClass::ipoib_starts>(window_.start, this, i);
  }
}

void TrafficClass::ipoib_starts(std::size_t host) {
  Host& h = *hosts_[host];
  h.ib0->start();
  // ipoib_tcp: each client's destination is resolved as soon as the interface is up.
  for (const auto& [dst, k] : h.tcp_to) h.ib0->resolve(spec_.ipoib_addresses[dst]);
}

void TrafficClass::setup_verbs_hosts() {
  // Verbs: a PD, two CQs and one buffer per host, registered for local use and as a target.
  const std::uint64_t buf_len = std::max<std::uint64_t>(1, std::uint64_t{spec_.sizes.largest()} + kClassUdGrhRoom);
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
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
}

QueuePair* TrafficClass::make_qp(Host& h, ibv_qp_type type) const {
  ibv_qp_init_attr init;
  init.send_cq = h.send_cq;
  init.recv_cq = h.recv_cq;
  init.qp_type = type;
  init.cap.max_send_wr = spec_.tx_depth;
  init.cap.max_recv_wr = spec_.rx_depth;
  QueuePair* q = h.hca->create_qp(h.pd, init);
  IBFSIM_CHECK(q != nullptr, "traffic class: create_qp failed");
  return q;
}

void TrafficClass::qp_to_init(Host& h, QueuePair& q, bool is_ud) const {
  ibv_qp_attr at;
  at.qp_state = IBV_QPS_INIT;
  at.pkey_index = 0;
  at.port_num = 1;
  at.qkey = kClassQKey;
  at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  const unsigned m = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | (is_ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
  IBFSIM_CHECK(h.hca->modify_qp(q, at, m) == 0, "traffic class: QP to INIT refused");
}

void TrafficClass::qp_to_rts(Host& h, QueuePair& q, Host* peer, QueuePair* peer_qp) const {
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
}

void TrafficClass::setup_ud_qps() {
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    Host& h = *hosts_[i];
    h.ud_qp = make_qp(h, IBV_QPT_UD);
    h.ud_qpn = h.ud_qp->qpn();
    qp_to_init(h, *h.ud_qp, true);
    qp_to_rts(h, *h.ud_qp, nullptr, nullptr);
    h.ud = std::make_unique<Endpoint>();
    h.ud->src = i;
    h.ud->qp = h.ud_qp;
    for (std::uint32_t r = 0; r < spec_.rx_depth; ++r) post_recv(i, *h.ud_qp);
  }
}

void TrafficClass::connect_pairs(const std::vector<std::vector<std::size_t>>& dests) {
  const bool receives = spec_.verb == ClassVerb::kSend;
  const ibv_qp_type type = spec_.transport == ClassTransport::kRc ? IBV_QPT_RC : IBV_QPT_UC;
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    for (std::size_t d : dests[i]) {
      Host& a = *hosts_[i];
      Host& b = *hosts_[d];
      auto e = std::make_unique<Endpoint>();
      e->src = i;
      e->dst = d;
      e->qp = make_qp(a, type);
      e->target = make_qp(b, type);
      qp_to_init(a, *e->qp, false);
      qp_to_init(b, *e->target, false);
      qp_to_rts(a, *e->qp, &b, e->target);
      qp_to_rts(b, *e->target, &a, e->qp);
      if (receives)
        for (std::uint32_t r = 0; r < spec_.rx_depth; ++r) post_recv(d, *e->target);
      a.to[d] = e.get();
      by_target_qp_[delivery_key(b.node, e->target->qpn())] = e.get();
      by_requester_qp_[delivery_key(a.node, e->qp->qpn())] = e.get();
      endpoints_.push_back(std::move(e));
    }
  }
}

}  // namespace ibfsim
