#include "sim/subnet_manager/cm/cm_agent.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

CmAgent::CmAgent(SmaShell& sma, PortNum port, CmAgentConfig config)
    : sma_(sma), port_(port), config_(config), sa_(sma, port, config.sa, false),
      // Communication IDs unique per port: the port GUID's low 16 bits, then a count.
      next_comm_id_(static_cast<std::uint32_t>((sma.state().ports.at(port).guid & 0xFFFF) << 16)) {
  sma_.attach_gsi_client(this);
}

std::uint32_t CmAgent::connect(Lid remote_lid, CmLocal local, CmReq req, Time packet_life, Listener listener) {
  local.comm_id = ++next_comm_id_;
  conns_.emplace(local.comm_id, Conn{CmConnection(local, packet_life), remote_lid, std::move(listener), 0});
  Work w;
  w.connect_id = local.comm_id;
  w.req = req;
  enqueue(w);
  return local.comm_id;
}

void CmAgent::listen(std::uint64_t service_id, CmLocal local, Time packet_life, Listener listener) {
  listening_[service_id] = Listening{local, packet_life, std::move(listener)};
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
  Work w;
  w.mad = gmp.mad;
  w.slid = gmp.lrh.slid;
  enqueue(w);
}

void CmAgent::enqueue(Work w) {
  queue_.push_back(std::move(w));
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
    if (l == listening_.end()) {
      CmRej rej;
      rej.remote_comm_id = req.local_comm_id;
      rej.reason = kCmRejInvalidServiceId;
      ++sent_;
      sma_.send_gsi(encode_cm_rej(rej, load_be64(w.mad.data() + 8)), port_, w.slid, config_.sl);
      return;
    }
    CmLocal local = l->second.local;
    local.comm_id = ++next_comm_id_;
    conns_.emplace(local.comm_id, Conn{CmConnection(local, l->second.packet_life), w.slid, l->second.listener, 0});
    return apply(local.comm_id, conns_.at(local.comm_id).cm.on_mad(w.mad));
  }
  // Every other message names this side's comm ID as its RemoteCommID (bytes 4-7 of the message).
  const std::uint32_t ours = load_be32(w.mad.data() + kCmDataAt + 4);
  auto it = conns_.find(ours);
  if (it != conns_.end()) apply(ours, it->second.cm.on_mad(w.mad));
}

void CmAgent::apply(std::uint32_t comm_id, const CmOutput& out) {
  Conn& c = conns_.at(comm_id);
  if (c.listener && (!out.qp.empty() || out.event != CmEvent::kNone)) c.listener(out.event, out.qp);
  for (const Mad& m : out.send) {
    ++sent_;
    sma_.send_gsi(m, port_, c.remote_lid, config_.sl);
  }
  if (out.cancel_timer) ++c.timer_generation;
  if (out.arm_timer)
    sma_.module().schedule<&CmAgent::timer_due>(ScheduledModule::now() + *out.arm_timer, this, comm_id,
                                                ++c.timer_generation);
}

void CmAgent::timer_due(std::uint32_t comm_id, std::uint64_t generation) {
  auto it = conns_.find(comm_id);
  if (it == conns_.end() || it->second.timer_generation != generation) return;
  apply(comm_id, it->second.cm.on_timer());
}

}  // namespace ibfsim
