#include "sim/subnet_manager/subnet_manager.h"

#include "sim/subnet_manager/notice.h"

namespace ibfsim {

SubnetManager::SubnetManager(HcaSma& sma, PortNum port, SubnetManagerConfig config)
    : sma_(sma), port_(port), config_(config), sweep_(config.sweep, port) {
  SmInfo info;
  info.guid = sma_.state().ports.at(port).guid;
  info.priority = config_.priority;
  info.sm_state = IB_SMINFO_STATE_DISCOVERING;
  sma_.attach_sm(this, port, info);
}

void SubnetManager::start() {
  started_ = true;
  if (sma_.hca().port(port_).state() != PortState::kDown) on_port_state_change(port_);
}

void SubnetManager::on_port_state_change(PortNum port) {
  if (port != port_ || !started_ || sma_.hca().port(port_).state() == PortState::kDown) return;
  if (!records_.empty() || sweeping_ || start_pending_) return;  // only the first time: traps tell the rest
  start_pending_ = true;
  pending_trigger_ = "port up";
  sma_.hca().schedule(now(), this, kStart);
}

void SubnetManager::begin_sweep(const std::string& trigger) {
  sweeping_ = true;
  SweepRecord r;
  r.trigger = trigger;
  r.started = now();
  records_.push_back(r);
  sweep_smps_ = sweep_retries_ = 0;
  sweep_.start();
  pump();
  check_done();
}

void SubnetManager::pump() {
  while (in_flight_.size() < config_.max_wire_smps) {
    auto r = sweep_.next_request();
    if (!r) break;
    const std::uint64_t tid = r->transaction_id;
    in_flight_[tid] = InFlight{std::move(*r), 0};
    send(tid);
  }
}

void SubnetManager::send(std::uint64_t tid) {
  InFlight& f = in_flight_.at(tid);
  ++f.tries;
  ++smps_sent_;
  ++sweep_smps_;
  if (f.tries > 1) {
    ++retries_;
    ++sweep_retries_;
  }
  sma_.send_from_sm(f.smp, port_);
  sma_.hca().schedule(now() + config_.smp_timeout, this, kTimeout, tid,
                      reinterpret_cast<void*>(static_cast<std::uintptr_t>(f.tries)));
}

void SubnetManager::on_smp(const Smp& smp, PortNum, Lid slid) {
  if (smp.method == IB_MAD_METHOD_TRAP) {
    ++traps_;
    if (is_unicast_lid(slid)) sma_.send_from_sm(make_smp_response(smp), port_, slid);  // TrapRepress
    const Notice n = decode_notice(smp.data.data());
    if (n.is_generic && n.trap_number_or_device == kTrapLinkStateChange) {
      if (sweeping_) {
        if (pending_trigger_.empty()) pending_trigger_ = "trap 128";
      } else if (!start_pending_) {
        start_pending_ = true;
        pending_trigger_ = "trap 128";
        sma_.hca().schedule(now(), this, kStart);
      }
    }
    return;
  }
  if (!is_response_method(smp.method)) return;
  auto it = in_flight_.find(smp.transaction_id);
  if (it == in_flight_.end()) return;  // an answer to a request already answered or given up
  in_flight_.erase(it);
  sweep_.on_answer(smp);
  pump();
  check_done();
}

void SubnetManager::on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) {
  switch (kind) {
    case kStart: {
      start_pending_ = false;
      std::string trigger = std::move(pending_trigger_);
      pending_trigger_.clear();
      if (sweeping_) {
        pending_trigger_ = trigger;
        return;
      }
      begin_sweep(trigger);
      return;
    }
    case kTimeout: {
      auto it = in_flight_.find(arg);
      if (it == in_flight_.end() || it->second.tries != reinterpret_cast<std::uintptr_t>(ptr)) return;
      if (it->second.tries <= config_.smp_retries) return send(arg);
      in_flight_.erase(it);
      sweep_.on_lost(arg);
      pump();
      check_done();
      return;
    }
    case kPeriodic:
      if (arg != periodic_generation_) return;
      if (sweeping_) {
        if (pending_trigger_.empty()) pending_trigger_ = "periodic";
      } else {
        begin_sweep("periodic");
      }
      return;
    default:
      return;
  }
}

void SubnetManager::check_done() {
  if (!sweeping_ || !sweep_.done() || !in_flight_.empty()) return;
  sweeping_ = false;
  SweepRecord& r = records_.back();
  r.done = now();
  r.smps_sent = sweep_smps_;
  r.retries = sweep_retries_;
  const SweepStats& s = sweep_.stats();
  r.requests = s.requests;
  r.errors = s.errors;
  r.lft_blocks = s.lft_blocks;
  r.nodes = s.nodes;
  r.switches = s.switches;
  r.cas = s.cas;
  r.links = s.links;
  SmInfo info = *sma_.state().sm_info;
  info.sm_state = IB_SMINFO_STATE_MASTER;
  ++info.act_count;
  sma_.set_sm_info(info);
  if (on_done_) on_done_(r);
  if (config_.sweep_interval > 0)
    sma_.hca().schedule(now() + config_.sweep_interval, this, kPeriodic, ++periodic_generation_);
  if (!pending_trigger_.empty() && !start_pending_) {
    const std::string t = std::move(pending_trigger_);
    pending_trigger_.clear();
    begin_sweep(t);
  }
}

}  // namespace ibfsim
