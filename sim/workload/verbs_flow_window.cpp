// A verbs flow through a memory window (verbs_flow.h, `window:` in verbs_flow_spec.h): the target
// registers its region for local write and window binding only, allocates a window, and at the
// flow's start binds it over the whole region on its QP (type 1 with ibv_bind_mw; type 2 with an
// IBV_WR_BIND_MW work request naming the next key byte) and posts one receive for the SEND with
// Invalidate. The requester starts when the bind has completed (the R_Key is handed over only
// after a successful bind completion, as libibverbs' ibv_bind_mw asks) and names the window's
// R_Key in every request. With invalidate_after n it stops after n messages, sends a SEND with
// Invalidate of zero bytes naming that R_Key once they have completed, and after its completion
// posts the rest: the first of which meets the invalidated window (a remote access error), the
// QPs going to error and flushing the others. What the target's memory held when the invalidation's
// receive completed is kept, to show that nothing changed it afterwards. The bind and the receive
// count among the target's completions (to_side); the SEND with Invalidate is no message of the
// flow's: its figures are the window's.
#include <cstring>

#include "sim/core/error.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

using namespace verbs;

namespace {
constexpr std::uint32_t kGuardBytes = 4096;  // as verbs_flow_setup.cpp: the guard after the region
double ns(Time t) { return static_cast<double>(t) / 1e6; }
}  // namespace

void VerbsFlow::window_setup(Side& target) {
  auto mw = target.hca->alloc_mw(target.pd, spec_.window->type);
  IBFSIM_CHECK(mw.has_value(), "verbs flow: ibv_alloc_mw refused");
  window_->mw = *mw;
}

void VerbsFlow::window_start() {
  Side& t = sides_[1];
  Hca& h = *t.hca;
  Window& w = *window_;
  unsigned access = 0;
  if (verb_is_write(spec_.verb)) access = IBV_ACCESS_REMOTE_WRITE;
  if (spec_.verb == Verb::kRead) access = IBV_ACCESS_REMOTE_READ;
  if (verb_is_atomic(spec_.verb)) access = IBV_ACCESS_REMOTE_ATOMIC;
  if (spec_.window->access) access = *spec_.window->access;
  ibv_mw_bind_info info{t.target_mr, t.target, t.target_len, access};
  w.bind_posted_at = ScheduledModule::now();
  int rc = 0;
  if (w.mw.type == IBV_MW_TYPE_1) {
    ibv_mw_bind b;
    b.wr_id = kBindWrId;
    b.send_flags = IBV_SEND_SIGNALED;
    b.bind_info = info;
    rc = h.bind_mw(*t.qp, w.mw, b);
    w.rkey = w.mw.rkey;  // ibv_bind_mw set it
  } else {
    ibv_send_wr wr;
    wr.wr_id = kBindWrId;
    wr.opcode = IBV_WR_BIND_MW;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.bind_mw.mw = w.mw.handle;
    wr.bind_mw.rkey = ibv_inc_rkey(w.mw.rkey);  // the consumer's key byte: the next one
    wr.bind_mw.bind_info = info;
    rc = h.post_send(*t.qp, wr);
    w.rkey = wr.bind_mw.rkey;
  }
  IBFSIM_CHECK(rc == 0, "verbs flow: the window's bind could not be posted");
  if (spec_.window->invalidate_after) {
    ibv_recv_wr r;
    r.wr_id = kInvalidateWrId;  // no buffer: the SEND with Invalidate carries no data
    IBFSIM_CHECK(h.post_recv(*t.qp, r) == 0, "verbs flow: the receive for the SEND with Invalidate was refused");
  }
}

bool VerbsFlow::window_holds_posting() const {
  const Window& w = *window_;
  if (!w.bound) return true;
  const auto& after = spec_.window->invalidate_after;
  return after && sides_[0].sent >= *after && !w.invalidation_done;
}

bool VerbsFlow::window_send_completion(int side, const ibv_wc& wc) {
  Window& w = *window_;
  const Time now = ScheduledModule::now();
  if (side == 1 && wc.wr_id == kBindWrId) {
    ++sides_[1].send_status[wc.status];  // the target's send queue: its bind
    w.bind_status = wc.status;
    if (wc.status != IBV_WC_SUCCESS) {
      sides_[1].stopped = true;  // no window: the requester never starts
    } else {
      w.bound = true;
      w.bound_at = now;
      post_sends(0);
    }
    progress();
    return true;
  }
  if (side == 0 && wc.wr_id == kInvalidateWrId) {
    w.inv_send_status = wc.status;
    w.inv_completed_at = now;
    w.invalidation_done = true;
    if (wc.status != IBV_WC_SUCCESS) sides_[0].stopped = true;
    else post_sends(0);
    progress();
    return true;
  }
  return false;
}

bool VerbsFlow::window_recv_completion(int side, const ibv_wc& wc) {
  if (side != 1 || wc.wr_id != kInvalidateWrId) return false;
  Window& w = *window_;
  Side& t = sides_[1];
  ++t.recv_status[wc.status];
  w.inv_recv_status = wc.status;
  w.inv_received_at = ScheduledModule::now();
  w.inv_with_flag = (wc.wc_flags & IBV_WC_WITH_INV) != 0;
  w.invalidated_rkey = wc.invalidated_rkey;
  if (data_check_) {
    const std::uint8_t* m = t.hca->memory().bytes(t.target, t.target_len + kGuardBytes);
    w.target_at_invalidation.assign(m, m + t.target_len + kGuardBytes);
  }
  progress();
  return true;
}

void VerbsFlow::window_after_message(const ibv_wc& wc) {
  Window& w = *window_;
  const auto& after = spec_.window->invalidate_after;
  if (!after) return;
  if (!w.invalidation_posted) {
    if (wc.status == IBV_WC_SUCCESS) ++w.messages_before;
    Side& s = sides_[0];
    if (s.completed != *after || s.stopped) return;
    // Every message before it has completed: the SEND with Invalidate, zero bytes.
    ibv_send_wr wr;
    wr.wr_id = kInvalidateWrId;
    wr.opcode = IBV_WR_SEND_WITH_INV;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.invalidate_rkey = w.rkey;
    IBFSIM_CHECK(s.hca->post_send(*s.qp, wr) == 0, "verbs flow: the SEND with Invalidate was refused");
    w.invalidation_posted = true;
    w.inv_posted_at = ScheduledModule::now();
    return;
  }
  if (w.first_after_status < 0) {
    w.first_after_status = wc.status;
    w.first_after_at = ScheduledModule::now();
  }
}

nlohmann::json VerbsFlow::window_results() const {
  const Window& w = *window_;
  const Side& t = sides_[1];
  auto status = [](int s) { return s < 0 ? nlohmann::json(nullptr) : nlohmann::json(wc_status_str(static_cast<ibv_wc_status>(s))); };
  auto at = [](bool happened, Time x) { return happened ? nlohmann::json(ns(x)) : nlohmann::json(nullptr); };
  nlohmann::json j;
  j["type"] = static_cast<int>(w.mw.type);
  j["rkey"] = w.rkey;
  j["rkey_index"] = key_index(w.rkey);
  j["rkey_key_byte"] = key_byte(w.rkey);
  j["bind_posted_ns"] = ns(w.bind_posted_at);
  j["bind_status"] = status(w.bind_status);
  j["bound_ns"] = at(w.bound, w.bound_at);
  if (spec_.window->invalidate_after) {
    j["invalidate_after"] = *spec_.window->invalidate_after;
    j["messages_before_invalidation"] = w.messages_before;
    j["send_with_invalidate"] = {{"posted_ns", at(w.invalidation_posted, w.inv_posted_at)},
                                 {"status", status(w.inv_send_status)},
                                 {"completed_ns", at(w.invalidation_done, w.inv_completed_at)}};
    j["invalidation_received"] = {{"status", status(w.inv_recv_status)},
                                  {"with_invalidate_flag", w.inv_with_flag},
                                  {"invalidated_rkey", w.invalidated_rkey},
                                  {"completed_ns", at(w.inv_recv_status >= 0, w.inv_received_at)}};
    j["first_after_invalidation"] = {{"status", status(w.first_after_status)},
                                     {"completed_ns", at(w.first_after_status >= 0, w.first_after_at)}};
    if (data_check_ && !w.target_at_invalidation.empty()) {
      // Every byte of the region and its guard, now against then.
      const std::uint8_t* now = t.hca->memory().bytes(t.target, w.target_at_invalidation.size());
      std::uint64_t changed = 0;
      for (std::size_t k = 0; k < w.target_at_invalidation.size(); ++k) changed += now[k] != w.target_at_invalidation[k];
      j["target_bytes_changed_after_invalidation"] = changed;
    } else {
      j["target_bytes_changed_after_invalidation"] = nullptr;
    }
  }
  return j;
}

}  // namespace ibfsim
