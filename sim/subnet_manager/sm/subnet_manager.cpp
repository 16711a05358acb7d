#include "sim/subnet_manager/sm/subnet_manager.h"

#include "sim/subnet_manager/congestion_control/cc_mad.h"
#include "sim/subnet_manager/mad/multicast_forwarding_table.h"
#include "sim/subnet_manager/mad/notice.h"
#include "sim/subnet_manager/sa/sa_report.h"

namespace ibfsim {

SubnetManager::SubnetManager(SmaShell& sma, PortNum port, SubnetManagerConfig config)
    : sma_(sma), port_(port), config_(config), sweep_(config.sweep, port), sa_(config.sa) {
  SmInfo info;
  info.guid = sma_.state().ports.at(port).guid;
  info.priority = config_.priority;
  info.sm_state = IB_SMINFO_STATE_DISCOVERING;
  sma_.attach_sm(this, port, info);
}

void SubnetManager::start() {
  started_ = true;
  if (sma_.sm_port_up(port_)) on_port_state_change(port_);
}

void SubnetManager::on_port_state_change(PortNum port) {
  if (!started_ || !sma_.sm_port_up(port_)) return;
  const bool first = records_.empty() && !sweeping_;
  if (port_ == 0) {
    // On a switch: its own ports' changes, which other switches would report with trap 128.
    request_sweep(first ? "port up" : "port change");
    return;
  }
  if (port != port_ || !first || start_pending_) return;  // only the first time: traps tell the rest
  request_sweep("port up");
}

void SubnetManager::request_sweep(const char* trigger) {
  if (sweeping_) {
    if (pending_trigger_.empty()) pending_trigger_ = trigger;
  } else if (!start_pending_) {
    start_pending_ = true;
    pending_trigger_ = trigger;
    sma_.module().schedule<&SubnetManager::sweep_due>(now(), this);
  }
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
  // For a progress display on another thread; the simulation never reads these.
  published_.phase.store(static_cast<std::uint8_t>(sweep_.phase()), std::memory_order_relaxed);
  published_.nodes.store(sweep_.graph().nodes.size(), std::memory_order_relaxed);
  published_.requests.store(sweep_.stats().requests, std::memory_order_relaxed);
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
  sma_.module().schedule<&SubnetManager::smp_timed_out>(now() + config_.smp_timeout, this, tid, f.tries);
}

SaSubnet SubnetManager::sa_view() const {
  return SaSubnet{sweep_.graph(), sweep_.tables(), [this](std::size_t n) { return sweep_.node_info(n); },
                  [this](std::size_t n, PortNum p) { return sweep_.port_info(n, p); }};
}

void SubnetManager::sa_served() {
  const SaRequest r = sa_queue_.front();
  sa_queue_.pop_front();
  const SaMad q = decode_sa_mad(r.mad);
  SaMad a;
  if (!ever_configured_ || sweeping_) {
    a = make_sa_response(q, IB_MAD_STATUS_BUSY);
    ++sa_stats_.busy;
  } else {
    a = sa_.answer(q, sa_view(), r.slid, r.sl);
  }
  ++sa_stats_.answered;
  ++sa_stats_.answers_by_attribute[q.header.attribute_id];
  sma_.send_gmp_from_sm(encode_sa_mad(a), port_, r.slid, r.sl);
  for (const MftUpdate& u : sa_.take_mft_updates()) {
    Smp smp;
    smp.mgmt_class = IB_MCLASS_SUBN_LID;
    smp.method = IB_MAD_METHOD_SET;
    smp.transaction_id = ++next_mft_tid_;
    smp.attribute_id = IB_MAD_ATTR_MCAST_FWD_TBL;
    smp.attribute_modifier = encode_mft_attribute_modifier(u.where);
    smp.m_key = config_.sweep.m_key;
    smp.data = encode_multicast_forwarding_table(u.block);
    mft_in_flight_[smp.transaction_id] = MftInFlight{smp, u.switch_lid, 0};
    send_mft_set(smp.transaction_id);
  }
  if (sa_queue_.empty()) {
    sa_busy_ = false;
  } else {
    sma_.module().schedule<&SubnetManager::sa_served>(now() + config_.sa_latency, this);
  }
}

void SubnetManager::send_mft_set(std::uint64_t tid) {
  MftInFlight& f = mft_in_flight_.at(tid);
  ++f.tries;
  ++sa_stats_.mft_sets;
  sma_.send_from_sm(f.smp, port_, f.dlid);
  sma_.module().schedule<&SubnetManager::mft_set_timed_out>(now() + config_.smp_timeout, this, tid, f.tries);
}

void SubnetManager::mft_set_timed_out(std::uint64_t tid, unsigned tries) {
  auto it = mft_in_flight_.find(tid);
  if (it == mft_in_flight_.end() || it->second.tries != tries) return;
  if (it->second.tries <= config_.smp_retries) return send_mft_set(tid);
  mft_in_flight_.erase(it);
  ++sa_stats_.mft_failed;
}

void SubnetManager::report_due(std::uint64_t id) {
  auto t = traps_to_forward_.find(id);
  if (t == traps_to_forward_.end()) return;
  const auto [notice, issuer] = t->second;
  traps_to_forward_.erase(t);
  for (const Subscription& sub : sa_.subscriptions().matching(notice, issuer)) {
    const std::uint64_t tid = ++next_report_tid_;
    reports_in_flight_[tid] = ReportInFlight{encode_sa_mad(make_sa_report(notice, issuer, tid)), sub.subscriber, sub.sl, 0};
    send_report(tid);
  }
}

void SubnetManager::send_report(std::uint64_t tid) {
  ReportInFlight& f = reports_in_flight_.at(tid);
  SaStats::Reports& count = sa_stats_.reports[f.dlid];
  if (++f.tries > 1) ++count.resent;
  else ++count.sent;
  sma_.send_gmp_from_sm(f.mad, port_, f.dlid, f.sl);
  sma_.module().schedule<&SubnetManager::report_timed_out>(now() + config_.smp_timeout, this, tid, f.tries);
}

void SubnetManager::report_timed_out(std::uint64_t tid, unsigned tries) {
  auto it = reports_in_flight_.find(tid);
  if (it == reports_in_flight_.end() || it->second.tries != tries) return;
  if (it->second.tries <= config_.smp_retries) return send_report(tid);
  ++sa_stats_.reports[it->second.dlid].failed;
  reports_in_flight_.erase(it);
}

void SubnetManager::on_smp(const Smp& smp, PortNum, Lid slid) {
  if (smp.method == IB_MAD_METHOD_TRAP) {
    ++traps_;
    if (is_unicast_lid(slid)) sma_.send_from_sm(make_smp_response(smp), port_, slid);  // TrapRepress
    const Notice n = decode_notice(smp.data.data());
    if (n.is_generic && n.trap_number_or_device == kTrapLinkStateChange) request_sweep("trap 128");
    if (n.is_generic && n.trap_number_or_device == kTrapBadMKey) ++bad_m_key_traps_;  // logged, as OpenSM does
    // Forwarded to subscribers once the SA has processed it; IssuerGID from the last sweep.
    Gid issuer{};
    for (const SubnetNode& node : sweep_.graph().nodes)
      for (const SubnetPort& p : node.ports)
        if (p.lids.contains(n.issuer_lid)) issuer = gid_of(config_.sa.gid_prefix, p.guid);
    const std::uint64_t id = ++next_trap_id_;
    traps_to_forward_.emplace(id, std::make_pair(n, issuer));
    sma_.module().schedule<&SubnetManager::report_due>(now() + config_.sa_latency, this, id);
    return;
  }
  if (!is_response_method(smp.method)) return;
  if (mft_in_flight_.erase(smp.transaction_id)) {
    if (smp.status != IB_MAD_STATUS_SUCCESS) ++sa_stats_.mft_failed;
    return;
  }
  auto it = in_flight_.find(smp.transaction_id);
  if (it == in_flight_.end()) return;  // an answer to a request already answered or given up
  in_flight_.erase(it);
  sweep_.on_answer(smp);
  pump();
  check_done();
}

void SubnetManager::sweep_due() {
  start_pending_ = false;
  std::string trigger = std::move(pending_trigger_);
  pending_trigger_.clear();
  if (sweeping_) {
    pending_trigger_ = trigger;
    return;
  }
  begin_sweep(trigger);
}

void SubnetManager::smp_timed_out(std::uint64_t tid, unsigned tries) {
  auto it = in_flight_.find(tid);
  if (it == in_flight_.end() || it->second.tries != tries) return;
  if (it->second.tries <= config_.smp_retries) return send(tid);
  in_flight_.erase(it);
  sweep_.on_lost(tid);
  pump();
  check_done();
}

void SubnetManager::cc_mad_timed_out(std::uint64_t tid, unsigned tries) {
  auto it = cc_in_flight_.find(tid);
  if (it == cc_in_flight_.end() || it->second.tries != tries) return;
  if (it->second.tries <= config_.smp_retries) return send_cc(tid);
  cc_in_flight_.erase(it);
  ++cc_failed_;
  if (cc_in_flight_.empty()) finish_sweep();
}

void SubnetManager::periodic_sweep_due(std::uint64_t generation) {
  if (generation != periodic_generation_) return;
  if (sweeping_) {
    if (pending_trigger_.empty()) pending_trigger_ = "periodic";
  } else {
    begin_sweep("periodic");
  }
}

bool SubnetManager::start_cc() {
  cc_done_ = true;
  const SubnetGraph& g = sweep_.graph();
  std::uint64_t tid = 0xCC000000;
  for (const CcTarget& t : cc_targets_) {
    Lid dlid = 0;
    for (const SubnetNode& n : g.nodes)
      if (n.node_guid == t.node_guid && t.port < n.ports.size()) dlid = n.ports[t.port].lids.first;
    if (!is_unicast_lid(dlid)) {
      cc_failed_ += t.mads.size();  // not found by the sweep: cannot be reached
      continue;
    }
    for (Mad m : t.mads) {
      ++tid;
      for (int i = 0; i < 8; ++i) m[8 + i] = static_cast<std::uint8_t>(tid >> (56 - 8 * i));
      cc_in_flight_[tid] = CcInFlight{m, dlid, 0};
      send_cc(tid);
    }
  }
  return !cc_in_flight_.empty();
}

void SubnetManager::send_cc(std::uint64_t tid) {
  CcInFlight& f = cc_in_flight_.at(tid);
  ++f.tries;
  ++cc_sent_;
  sma_.send_gmp_from_sm(f.mad, port_, f.dlid, cc_sl_);
  sma_.module().schedule<&SubnetManager::cc_mad_timed_out>(now() + config_.smp_timeout, this, tid, f.tries);
}

void SubnetManager::on_gmp(const ReceivedGmp& gmp, PortNum) {
  if (gmp.mad[1] == IB_MCLASS_SUBN_ADM && !is_response_method(gmp.mad[3])) {
    ++sa_stats_.requests;
    ++sa_stats_.requests_by_attribute[load_be16(gmp.mad.data() + 16)];
    sa_queue_.push_back(SaRequest{gmp.mad, gmp.lrh.slid, gmp.lrh.sl});
    if (!sa_busy_) {
      sa_busy_ = true;
      sma_.module().schedule<&SubnetManager::sa_served>(now() + config_.sa_latency, this);
    }
    return;
  }
  std::uint64_t tid = 0;
  for (int i = 0; i < 8; ++i) tid = (tid << 8) | gmp.mad[8 + i];
  if (gmp.mad[1] == IB_MCLASS_SUBN_ADM) {
    auto r = reports_in_flight_.find(tid);
    if (gmp.mad[3] != IB_MAD_METHOD_REPORT_RESP || r == reports_in_flight_.end()) return;
    ++sa_stats_.reports[r->second.dlid].acknowledged;
    reports_in_flight_.erase(r);
    return;
  }
  auto it = cc_in_flight_.find(tid);
  if (it == cc_in_flight_.end()) return;
  cc_in_flight_.erase(it);
  if (decode_cc_mad(gmp.mad).header.status == IB_MAD_STATUS_SUCCESS) ++cc_answered_;
  else ++cc_failed_;
  if (cc_in_flight_.empty()) finish_sweep();
}

void SubnetManager::check_done() {
  if (!sweeping_ || !sweep_.done() || !in_flight_.empty()) return;
  // The first sweep configured the fabric: now the congestion control step, then done.
  if (!cc_done_ && !cc_targets_.empty() && start_cc()) return;
  finish_sweep();
}

void SubnetManager::finish_sweep() {
  sweeping_ = false;
  ever_configured_ = true;
  SweepRecord& r = records_.back();
  r.done = now();
  r.smps_sent = sweep_smps_;
  r.retries = sweep_retries_;
  const SweepStats& s = sweep_.stats();
  r.requests = s.requests;
  r.errors = s.errors;
  r.lft_blocks = s.lft_blocks;
  r.ar_smps = s.ar_smps;
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
    sma_.module().schedule<&SubnetManager::periodic_sweep_due>(now() + config_.sweep_interval, this,
                                                           ++periodic_generation_);
  if (!pending_trigger_.empty() && !start_pending_) {
    const std::string t = std::move(pending_trigger_);
    pending_trigger_.clear();
    begin_sweep(t);
  }
}

}  // namespace ibfsim
