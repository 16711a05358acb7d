#include "sim/workload/ipoib_connected_mode.h"

#include <algorithm>
#include <cstring>

#include "sim/core/error.h"

namespace ibfsim {

using namespace verbs;

namespace {

// Linux ipoib_cm's REQ: RemoteCMResponseTimeout and LocalCMResponseTimeout 20, MaxCMRetries 15,
// ResponderResources 4, no transport or RNR retries.
constexpr std::uint8_t kResponseTimeout = 20;
constexpr std::uint8_t kMaxCmRetries = 15;
constexpr std::uint8_t kResponderResources = 4;

std::uint8_t mtu_code(std::uint32_t bytes) {
  switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    default: return IBV_MTU_4096;
  }
}

std::uint64_t peer_key(Lid lid, Qpn qpn) { return (std::uint64_t{lid} << 24) | (qpn & 0xFFFFFF); }

}  // namespace

IpoibConnectedMode::IpoibConnectedMode(Hca& hca, CmAgent& cm, Qpn ud_qpn, const IpoibGid& gid, IpoibCmConfig config,
                                       Received received)
    : hca_(hca), cm_(cm), ud_qpn_(ud_qpn), gid_(gid), config_(config), received_(std::move(received)) {
  pd_ = hca_.alloc_pd();
  send_cq_ = hca_.create_cq(1u << 20);
  recv_cq_ = hca_.create_cq(1u << 20);
  send_listener_.self = recv_listener_.self = this;
  recv_listener_.recv = true;
  hca_.cq(send_cq_).set_listener(&send_listener_);
  hca_.cq(recv_cq_).set_listener(&recv_listener_);
}

IpoibConnectedMode::~IpoibConnectedMode() = default;

void IpoibConnectedMode::listen() {
  cm_.listen(service_id(), [this](const CmReq&, Lid) { return accept(); }, cm_timeout(config_.packet_life_time));
}

QueuePair* IpoibConnectedMode::make_qp(std::uint32_t send_wr, std::uint32_t recv_wr) {
  ibv_qp_init_attr init;
  init.send_cq = send_cq_;
  init.recv_cq = recv_cq_;
  init.qp_type = IBV_QPT_RC;
  init.cap.max_send_wr = send_wr;
  init.cap.max_recv_wr = recv_wr;
  QueuePair* q = hca_.create_qp(pd_, init);
  IBFSIM_CHECK(q != nullptr, "ib0: create_qp refused a connected-mode RC QP");
  q->set_carry_bytes(true);
  to_init(*q);
  return q;
}

IpoibConnectedMode::Ring IpoibConnectedMode::make_ring(std::uint32_t slots) {
  const std::uint64_t len = std::uint64_t{slots} * buffer_bytes();
  Ring r;
  r.addr = hca_.alloc_host_memory(len);
  const auto mr = hca_.reg_mr(pd_, r.addr, len, IBV_ACCESS_LOCAL_WRITE);
  IBFSIM_CHECK(mr.has_value(), "ib0: reg_mr refused a connected-mode ring");
  r.lkey = mr->lkey;
  return r;
}

void IpoibConnectedMode::to_init(QueuePair& q) {
  ibv_qp_attr at;
  at.qp_state = IBV_QPS_INIT;
  at.pkey_index = 0;
  at.port_num = 1;
  at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
  IBFSIM_CHECK(hca_.modify_qp(q, at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0,
               "ib0: a connected-mode QP refused INIT");
}

// The transitions the CM says to make, with the path the REQ carried.
void IpoibConnectedMode::modify(QueuePair& q, const CmQpTransition& t) {
  ibv_qp_attr at;
  switch (t.step) {
    case CmQpStep::kToRtr: {
      at.qp_state = IBV_QPS_RTR;
      at.path_mtu = static_cast<ibv_mtu>(t.path_mtu);
      at.dest_qp_num = t.remote_qpn;
      at.rq_psn = t.remote_psn;
      at.ah_attr.dlid = t.remote_lid;
      at.ah_attr.sl = t.sl;
      at.ah_attr.port_num = 1;
      at.max_dest_rd_atomic = kResponderResources;
      at.min_rnr_timer = 1;
      IBFSIM_CHECK(hca_.modify_qp(q, at,
                                  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) == 0,
                   "ib0: a connected-mode QP refused RTR");
      break;
    }
    case CmQpStep::kToRts: {
      at.qp_state = IBV_QPS_RTS;
      at.sq_psn = 0;  // the starting PSN of this side's REQ or REP
      // The local ACK timeout of the path (PacketLifeTime + 1, as the CM derives it), no retries.
      at.timeout = static_cast<std::uint8_t>(std::min(31, config_.packet_life_time + 1));
      at.retry_cnt = 0;
      at.rnr_retry = 0;
      at.max_rd_atomic = kResponderResources;
      IBFSIM_CHECK(hca_.modify_qp(q, at,
                                  IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC) == 0,
                   "ib0: a connected-mode QP refused RTS");
      break;
    }
    case CmQpStep::kToError: {
      if (q.state() == IBV_QPS_RESET || q.state() == IBV_QPS_ERR) break;
      at.qp_state = IBV_QPS_ERR;
      IBFSIM_CHECK(hca_.modify_qp(q, at, IBV_QP_STATE) == 0, "ib0: a connected-mode QP refused ERR");
      break;
    }
  }
}

void IpoibConnectedMode::send(const IpoibHwAddress& to, Lid lid, const std::uint8_t* bytes, std::uint32_t len) {
  IBFSIM_CHECK(len <= buffer_bytes(), "ib0: an IP packet larger than the connected MTU");
  const std::uint64_t key = peer_key(lid, to.qpn);
  auto it = tx_by_peer_.find(key);
  if (it == tx_by_peer_.end()) {
    it = tx_by_peer_.emplace(key, tx_.size()).first;
    tx_.push_back(std::make_unique<Tx>());
    connect(it->second, to, lid);
  }
  Tx& t = *tx_[it->second];
  if (t.failed) return;
  if (!t.up) ++stats_.packets_waited;
  t.waiting.emplace_back(bytes, bytes + len);
  pump(t);
}

void IpoibConnectedMode::connect(std::size_t tx, const IpoibHwAddress& to, Lid lid) {
  Tx& t = *tx_[tx];
  t.qp = make_qp(config_.tx_ring, 1);
  t.ring = make_ring(config_.tx_ring);
  tx_by_qpn_[t.qp->qpn()] = tx;
  CmReq req;
  req.service_id = ipoib_cm_service_id(to.qpn);
  req.remote_cm_response_timeout = kResponseTimeout;
  req.transport = kCmTransportRc;
  req.retry_count = 0;
  req.rnr_retry_count = 0;
  req.p_key = static_cast<std::uint16_t>(config_.p_key | 0x8000);
  req.path_mtu = mtu_code(config_.ib_mtu);
  req.primary.local_lid = hca_.lid(1);
  req.primary.remote_lid = lid;
  std::copy(gid_.begin(), gid_.end(), req.primary.local_gid.begin());
  std::copy(to.gid.begin(), to.gid.end(), req.primary.remote_gid.begin());
  req.primary.sl = config_.sl;
  req.primary.local_ack_timeout = static_cast<std::uint8_t>(std::min(31, config_.packet_life_time + 1));
  encode_ipoib_cm_data(IpoibCmData{ud_qpn_, buffer_bytes()}, req.private_data.data());
  CmLocal local;
  local.ca_guid = cm_.port_guid();
  local.qpn = t.qp->qpn();
  local.starting_psn = 0;
  local.responder_resources = kResponderResources;
  local.initiator_depth = 0;
  local.cm_response_timeout = kResponseTimeout;
  local.max_cm_retries = kMaxCmRetries;
  ++stats_.connections_requested;
  if (stats_.first_requested == kTimeNever) stats_.first_requested = hca_.now();
  cm_.connect(lid, local, req, cm_timeout(config_.packet_life_time),
              [this, tx](CmEvent e, const std::vector<CmQpTransition>& qp) { tx_event(tx, e, qp); });
}

void IpoibConnectedMode::tx_event(std::size_t tx, CmEvent e, const std::vector<CmQpTransition>& qp) {
  Tx& t = *tx_[tx];
  for (const CmQpTransition& s : qp) modify(*t.qp, s);
  if (e == CmEvent::kEstablished) {
    ++stats_.established_active;
    established();
    t.up = true;
    pump(t);
  } else if (e == CmEvent::kRejected || e == CmEvent::kTimedOut) {
    ++stats_.failed;
    t.failed = true;
    t.waiting.clear();
  }
}

CmAgent::Accepted IpoibConnectedMode::accept() {
  const std::size_t rx = rx_.size();
  rx_.push_back(std::make_unique<Rx>());
  Rx& r = *rx_.back();
  r.qp = make_qp(1, config_.rx_ring);
  r.ring = make_ring(config_.rx_ring);
  rx_by_qpn_[r.qp->qpn()] = rx;
  for (std::uint32_t s = 0; s < config_.rx_ring; ++s) post_receive(rx, s);
  ++stats_.connections_accepted;
  CmAgent::Accepted a;
  a.local.ca_guid = cm_.port_guid();
  a.local.qpn = r.qp->qpn();
  a.local.starting_psn = 0;
  a.local.responder_resources = kResponderResources;
  a.local.initiator_depth = 0;
  a.local.cm_response_timeout = kResponseTimeout;
  a.local.max_cm_retries = kMaxCmRetries;
  encode_ipoib_cm_data(IpoibCmData{ud_qpn_, buffer_bytes()}, a.local.rep_private_data.data());
  a.listener = [this, rx](CmEvent e, const std::vector<CmQpTransition>& qp) {
    for (const CmQpTransition& s : qp) modify(*rx_[rx]->qp, s);
    if (e == CmEvent::kEstablished) {
      ++stats_.established_passive;
      established();
    }
  };
  return a;
}

void IpoibConnectedMode::established() {
  stats_.last_established = hca_.now();
}

void IpoibConnectedMode::pump(Tx& t) {
  while (t.up && !t.waiting.empty() && t.outstanding < config_.tx_ring) {
    const std::vector<std::uint8_t>& b = t.waiting.front();
    const std::uint32_t slot = t.next_slot;
    t.next_slot = (t.next_slot + 1) % config_.tx_ring;
    const std::uint64_t addr = t.ring.addr + std::uint64_t{slot} * buffer_bytes();
    const auto len = static_cast<std::uint32_t>(b.size());
    std::memcpy(hca_.memory().bytes(addr, len), b.data(), len);
    ibv_send_wr wr;
    wr.wr_id = slot;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.sg_list.push_back({addr, len, t.ring.lkey});
    IBFSIM_CHECK(hca_.post_send(*t.qp, wr) == 0, "ib0: post_send refused on a connected-mode QP");
    ++t.outstanding;
    ++stats_.packets_sent;
    t.waiting.pop_front();
  }
}

void IpoibConnectedMode::post_receive(std::size_t rx, std::uint32_t slot) {
  Rx& r = *rx_[rx];
  ibv_recv_wr wr;
  wr.wr_id = slot;
  wr.sg_list.push_back({r.ring.addr + std::uint64_t{slot} * buffer_bytes(), buffer_bytes(), r.ring.lkey});
  IBFSIM_CHECK(hca_.post_recv(*r.qp, wr) == 0, "ib0: post_recv refused on a connected-mode QP");
}

void IpoibConnectedMode::Completions::on_completion(CqHandle cq, const ibv_wc&) {
  ibv_wc wc;
  while (self->hca_.poll_cq(cq, 1, &wc) == 1) {
    if (recv) self->on_recv_completion(wc);
    else self->on_send_completion(wc);
  }
}

void IpoibConnectedMode::on_send_completion(const ibv_wc& wc) {
  auto it = tx_by_qpn_.find(wc.qp_num);
  if (it == tx_by_qpn_.end()) return;
  Tx& t = *tx_[it->second];
  if (t.outstanding > 0) --t.outstanding;
  pump(t);
}

void IpoibConnectedMode::on_recv_completion(const ibv_wc& wc) {
  auto it = rx_by_qpn_.find(wc.qp_num);
  if (it == rx_by_qpn_.end()) return;
  if (wc.status != IBV_WC_SUCCESS) {
    ++stats_.receive_errors;
    return;
  }
  const auto slot = static_cast<std::uint32_t>(wc.wr_id);
  Rx& r = *rx_[it->second];
  const std::uint64_t addr = r.ring.addr + std::uint64_t{slot} * buffer_bytes();
  ++stats_.packets_received;
  received_(hca_.memory().bytes(addr, wc.byte_len), wc.byte_len);
  post_receive(it->second, slot);
}

}  // namespace ibfsim
