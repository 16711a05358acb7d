#include "sim/transport/shared_receive_queue.h"

#include <cerrno>

namespace ibfsim {

using namespace verbs;

SharedReceiveQueue::SharedReceiveQueue(SrqHandle handle, PdHandle pd, const ibv_srq_attr& attr)
    : handle_(handle), pd_(pd), max_wr_(attr.max_wr), max_sge_(attr.max_sge) {}

int SharedReceiveQueue::post(const ibv_recv_wr& wr) {
  if (wr.sg_list.size() > max_sge_) return EINVAL;
  if (wqes_.size() >= max_wr_) return ENOMEM;
  ReceiveWqe r;
  r.wr = wr;
  for (const auto& s : wr.sg_list) r.len += s.length;
  wqes_.push_back(std::move(r));
  ++posted_;
  return 0;
}

int SharedReceiveQueue::modify(const ibv_srq_attr& attr, unsigned mask) {
  if (mask & ~static_cast<unsigned>(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)) return EINVAL;
  const std::uint32_t max_wr = (mask & IBV_SRQ_MAX_WR) ? attr.max_wr : max_wr_;
  if ((mask & IBV_SRQ_MAX_WR) && (max_wr == 0 || max_wr < wqes_.size())) return EINVAL;
  if ((mask & IBV_SRQ_LIMIT) && attr.srq_limit >= max_wr) return EINVAL;
  max_wr_ = max_wr;
  if (mask & IBV_SRQ_LIMIT) limit_ = attr.srq_limit;
  return 0;
}

std::optional<ReceiveWqe> SharedReceiveQueue::take(bool& limit_reached) {
  limit_reached = false;
  if (wqes_.empty()) return std::nullopt;
  ReceiveWqe r = std::move(wqes_.front());
  wqes_.pop_front();
  ++taken_;
  if (limit_ > 0 && wqes_.size() < limit_) {
    limit_reached = true;
    limit_ = 0;
    ++limit_events_;
  }
  return r;
}

}  // namespace ibfsim
