#include "sim/workload/server_srq.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/core/scheduled_module.h"

namespace ibfsim {

using namespace verbs;

ServerSrq::ServerSrq(Hca& hca, std::string host, const SrqSpec& spec) : hca_(hca), host_(std::move(host)), spec_(spec) {}

void ServerSrq::need_slot_bytes(std::uint32_t bytes) { slot_bytes_ = std::max(slot_bytes_, bytes); }

void ServerSrq::setup() {
  pd_ = hca_.alloc_pd();
  ibv_srq_init_attr init;
  init.attr.max_wr = spec_.max_wr;
  init.attr.max_sge = 1;
  srq_ = hca_.create_srq(pd_, init);
  IBFSIM_CHECK(srq_ != 0, "server SRQ: ibv_create_srq refused");
  if (spec_.limit > 0) {
    ibv_srq_attr a;
    a.srq_limit = spec_.limit;
    IBFSIM_CHECK(hca_.modify_srq(srq_, a, IBV_SRQ_LIMIT) == 0, "server SRQ: arming the limit refused");
  }
  const std::uint64_t len = std::uint64_t{spec_.max_wr} * slot_bytes_;
  buffers_ = hca_.alloc_host_memory(len);
  const auto mr = hca_.reg_mr(pd_, buffers_, len, IBV_ACCESS_LOCAL_WRITE);
  IBFSIM_CHECK(mr.has_value(), "server SRQ: ibv_reg_mr refused its buffers");
  lkey_ = mr->lkey;
  hca_.set_async_event_listener(this);
  for (std::uint32_t k = 0; k < spec_.max_wr; ++k) repost(k);
}

void ServerSrq::repost(std::uint64_t slot) {
  ibv_recv_wr r;
  r.wr_id = slot;
  r.sg_list = {ibv_sge{buffers_ + slot * slot_bytes_, slot_bytes_, lkey_}};
  const int rc = hca_.post_srq_recv(srq_, r);
  IBFSIM_CHECK(rc == 0, "server SRQ: ibv_post_srq_recv refused a buffer it had taken back");
}

void ServerSrq::on_async_event(const ibv_async_event& e) {
  if (e.event_type != IBV_EVENT_SRQ_LIMIT_REACHED || e.element.srq != srq_) return;
  if (limit_events_++ == 0) limit_reached_at_ = ScheduledModule::now();
}

}  // namespace ibfsim
