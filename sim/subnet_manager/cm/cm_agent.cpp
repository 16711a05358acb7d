#include "sim/subnet_manager/cm/cm_agent.h"

#include <algorithm>

#include "sim/core/big_endian.h"

namespace ibfsim {

namespace {

std::size_t type_index(const Mad& m) {
  const std::uint16_t attr = load_be16(m.data() + 16);
  return attr >= IB_MAD_ATTR_CM_REQ && attr <= IB_MAD_ATTR_CM_DREP ? attr - IB_MAD_ATTR_CM_REQ : CmAgentStats::kTypes;
}

}  // namespace

const char* cm_message_name(std::size_t index) {
  static const char* const kNames[] = {"req", "mra", "rej", "rep", "rtu", "dreq", "drep"};
  return index < CmAgentStats::kTypes ? kNames[index] : "other";
}

CmAgent::CmAgent(SmaShell& sma, PortNum port, CmAgentConfig config)
    : sma_(sma), port_(port), config_(config), sa_(sma, port, config.sa, false),
      // Communication IDs unique per port: the port GUID's low 16 bits, then a count.
      next_comm_id_(static_cast<std::uint32_t>((sma.state().ports.at(port).guid & 0xFFFF) << 16)) {
  sma_.attach_gsi_client(this);
}

std::uint32_t CmAgent::connect(Lid remote_lid, CmLocal local, CmReq req, Time packet_life, Listener listener) {
  local.comm_id = ++next_comm_id_;
  conns_.emplace(local.comm_id, Conn{CmConnection(local, packet_life), remote_lid, std::move(listener), 0, false});
  Work w;
  w.connect_id = local.comm_id;
  w.req = req;
  enqueue(w);
  return local.comm_id;
}

void CmAgent::listen(std::uint64_t service_id, CmLocal local, Time packet_life, Listener listener) {
  listening_[service_id] = Listening{local, packet_life, std::move(listener), nullptr};
}

void CmAgent::listen(std::uint64_t service_id, Acceptor accept, Time packet_life) {
  listening_[service_id] = Listening{CmLocal{}, packet_life, nullptr, std::move(accept)};
}

void CmAgent::disconnect(std::uint32_t comm_id) {
  auto it = conns_.find(comm_id);
  if (it != conns_.end()) apply(comm_id, it->second.cm.disconnect());
}

const CmConnection* CmAgent::connection(std::uint32_t comm_id) const {
  auto it = conns_.find(comm_id);
  return it == conns_.end() ? nullptr : &it->second.cm;
}

void CmAgent::on_gsi_answer(const ReceivedGmp& gmp, PortNum port) {
  if (gmp.mad[1] == IB_MCLASS_SUBN_ADM) return sa_.on_gsi_answer(gmp, port);
  if (gmp.mad[1] != IB_MCLASS_COMM_MGMT) return;
  ++received_;
  const std::size_t type = type_index(gmp.mad);
  if (type < CmAgentStats::kTypes) ++stats_.received[type];
  if (load_be16(gmp.mad.data() + 16) == IB_MAD_ATTR_CM_REJ) ++stats_.rej_received[decode_cm_rej(gmp.mad).reason];
  Work w;
  w.mad = gmp.mad;
  w.slid = gmp.lrh.slid;
  enqueue(w);
  if (type == IB_MAD_ATTR_CM_REQ - IB_MAD_ATTR_CM_REQ) maybe_mra(gmp.mad, gmp.lrh.slid, free_at_);
}

void CmAgent::maybe_mra(const Mad& req_mad, Lid slid, Time done) {
  if (!config_.mra) return;
  const CmReq req = decode_cm_req(req_mad);
  const Time wait = done - ScheduledModule::now();
  if (wait <= cm_timeout(req.remote_cm_response_timeout)) return;
  CmMra mra;
  mra.remote_comm_id = req.local_comm_id;
  mra.message_mraed = kCmMsgReq;
  // The smallest ServiceTimeout (4.096 us x 2^n) that covers the wait.
  while (mra.service_timeout < 31 && cm_timeout(mra.service_timeout) < wait) ++mra.service_timeout;
  send(encode_cm_mra(mra, load_be64(req_mad.data() + 8)), slid);
}

void CmAgent::send(const Mad& mad, Lid dlid) {
  ++sent_;
  const std::size_t type = type_index(mad);
  if (type < CmAgentStats::kTypes) ++stats_.sent[type];
  if (load_be16(mad.data() + 16) == IB_MAD_ATTR_CM_REJ) ++stats_.rej_sent[decode_cm_rej(mad).reason];
  sma_.send_gsi(mad, port_, dlid, config_.sl);
}

unsigned CmAgent::passive_connections() const {
  unsigned n = 0;
  for (const auto& [id, c] : conns_)
    if (c.passive && (c.cm.state() == CmState::kRepSent || c.cm.state() == CmState::kEstablished)) ++n;
  return n;
}

void CmAgent::enqueue(Work w) {
  queue_.push_back(std::move(w));
  stats_.max_queue = std::max(stats_.max_queue, queue_.size());
  free_at_ = std::max(free_at_, ScheduledModule::now()) + config_.processing;
  if (busy_) return;
  busy_ = true;
  sma_.module().schedule<&CmAgent::work_done>(ScheduledModule::now() + config_.processing, this);
}

void CmAgent::work_done() {
  const Work w = queue_.front();
  queue_.pop_front();
  handle(w);
  if (queue_.empty()) busy_ = false;
  else sma_.module().schedule<&CmAgent::work_done>(ScheduledModule::now() + config_.processing, this);
}

void CmAgent::handle(const Work& w) {
  if (w.connect_id != 0) {
    auto it = conns_.find(w.connect_id);
    if (it != conns_.end()) apply(w.connect_id, it->second.cm.connect(w.req));
    return;
  }
  const std::uint16_t attr = load_be16(w.mad.data() + 16);
  if (attr == IB_MAD_ATTR_CM_REQ) {
    const CmReq req = decode_cm_req(w.mad);
    // A REQ again for a connection this side already has: that connection answers it.
    for (auto& [id, c] : conns_)
      if (c.cm.remote_comm_id() == req.local_comm_id && c.remote_lid == w.slid) return apply(id, c.cm.on_mad(w.mad));
    auto l = listening_.find(req.service_id);
    const bool full = l != listening_.end() && config_.max_connections > 0 &&
                      passive_connections() >= config_.max_connections;
    if (l == listening_.end() || full) {
      CmRej rej;
      rej.remote_comm_id = req.local_comm_id;
      rej.reason = full ? kCmRejNoQp : kCmRejInvalidServiceId;
      send(encode_cm_rej(rej, load_be64(w.mad.data() + 8)), w.slid);
      if (full && l->second.listener) l->second.listener(CmEvent::kRejected, {});
      return;
    }
    CmLocal local = l->second.local;
    Listener listener = l->second.listener;
    if (l->second.accept) {
      Accepted a = l->second.accept(req, w.slid);
      local = a.local;
      listener = std::move(a.listener);
    }
    local.comm_id = ++next_comm_id_;
    conns_.emplace(local.comm_id, Conn{CmConnection(local, l->second.packet_life), w.slid, std::move(listener), 0, true});
    return apply(local.comm_id, conns_.at(local.comm_id).cm.on_mad(w.mad));
  }
  // Every other message names this side's comm ID as its RemoteCommID (bytes 4-7 of the message).
  const std::uint32_t ours = load_be32(w.mad.data() + kCmDataAt + 4);
  auto it = conns_.find(ours);
  if (it != conns_.end()) apply(ours, it->second.cm.on_mad(w.mad));
}

void CmAgent::apply(std::uint32_t comm_id, const CmOutput& out) {
  Conn& c = conns_.at(comm_id);
  if (out.event == CmEvent::kEstablished) ++(c.passive ? stats_.established_passive : stats_.established_active);
  if (out.event == CmEvent::kTimedOut) ++stats_.timeouts;
  if (c.listener && (!out.qp.empty() || out.event != CmEvent::kNone)) c.listener(out.event, out.qp);
  for (const Mad& m : out.send) send(m, c.remote_lid);
  if (out.cancel_timer) ++c.timer_generation;
  if (out.arm_timer)
    sma_.module().schedule<&CmAgent::timer_due>(ScheduledModule::now() + *out.arm_timer, this, comm_id,
                                                ++c.timer_generation);
}

void CmAgent::timer_due(std::uint32_t comm_id, std::uint64_t generation) {
  auto it = conns_.find(comm_id);
  if (it == conns_.end() || it->second.timer_generation != generation) return;
  // The answer is in, waiting to be taken up: it came in time (the timeout is about its arrival).
  for (const Work& w : queue_)
    if (w.connect_id == 0 && load_be16(w.mad.data() + 16) != IB_MAD_ATTR_CM_REQ &&
        load_be32(w.mad.data() + kCmDataAt + 4) == comm_id)
      return;
  const unsigned before = it->second.cm.retries();
  const CmOutput out = it->second.cm.on_timer();
  stats_.retries += it->second.cm.retries() - before;
  apply(comm_id, out);
}

}  // namespace ibfsim
