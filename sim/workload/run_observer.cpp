#include "sim/workload/run_observer.h"

#include <systemc>

#include "sim/core/calendar_process.h"
#include "sim/core/rank_exchange.h"

#include "sim/core/big_endian.h"
#include "sim/transport/cnp.h"
#include "sim/transport/opcode.h"
#include "sim/transport/packet_fields.h"

namespace ibfsim {

bool generator_packet(const Packet& p) {
  const Qpn dqp = packet_dest_qp(p);
  return dqp == kGeneratorQpn || dqp == kMulticastQpn;
}

void RunObserver::watch_classes(std::map<const Hca*, std::size_t> node_of, std::vector<bool> here) {
  node_of_ = std::move(node_of);
  classes_here_ = std::move(here);
  for (const auto& c : classes_) {
    for (std::uint64_t k : c->delivery_keys()) class_of_[k] = c.get();
    if (c->spec().verbs() || c->spec().ipoib_connected_mtu != 0) needs_settle_ = true;  // completions follow
  }
}

void RunObserver::watch_flows(std::vector<bool> here) {
  verbs_here_ = std::move(here);
  for (const auto& f : verbs_)
    for (const auto& w : f->watched_qps()) watched_[w] = f.get();
}

void RunObserver::on_delivered(Hca& hca, const Packet& p, Time tail) {
  // A CNP (InfiniBand's, or RoCE's for DCQCN) is congestion control's own packet, part of no flow.
  if (cnps_possible && (is_cnp(p) || (p.ethernet() && packet_opcode(p) == kOpcodeRoceCnp))) return check_end(tail);
  for (FaultWatch& f : faults_) {
    const std::size_t n = hca.node_index();
    if (tail < f.at) f.last_before[n] = tail;
    else if (f.first_after[n] == kTimeNever) f.first_after[n] = tail;
  }
  if (!class_of_.empty()) {
    const std::size_t node = node_of_.at(&hca);
    auto it = class_of_.find(TrafficClass::delivery_key(node, packet_dest_qp(p)));
    // A QP made as the run goes (IPoIB connected mode's RC QPs) belongs to the class that claims
    // its node's other QPs.
    if (it == class_of_.end()) it = class_of_.find(TrafficClass::delivery_key(node, TrafficClass::kOtherQps));
    if (it != class_of_.end()) {
      it->second->on_delivered(node, p, tail);
      check_end(tail);
      return;
    }
  }
  const bool generator = generator_packet(p);
  // Collectives' and the trace replay's packets (their QPs' own) belong to no flow.
  if ((verbs_.empty() && !collectives_ && !trace_replay_) || generator) {
    std::lock_guard<std::mutex> lock(tallies_);
    if (generator && p.measured) {
      generator_message_latency.add(tail - p.created);
      generator_network_latency.add(tail - p.injected);
    }
    all_.on_delivered(hca, p, tail);
    flows_.at(p.flow).on_delivered(hca, p, tail);
  } else if (!watched_.empty()) {
    auto it = watched_.find({&hca, packet_dest_qp(p)});
    if (it != watched_.end()) it->second->on_delivered(hca, p);
  }
  check_end(tail);
}

void RunObserver::stop() {
  if (stopped_) return;
  stopped_ = true;
  sc_core::sc_stop();
}

void RunObserver::settled() {
  pending_ = false;
  if (can_end_everywhere(ScheduledModule::now())) stop();
}

bool RunObserver::can_end(Time t) const {
  if (generators_ && t < generation_end_) return false;
  if (ledger_.created_count() != ledger_.delivered_count() + ledger_.dropped_total() + ledger_.replicated_count())
    return false;
  for (std::size_t k = 0; k < verbs_.size(); ++k)
    if ((verbs_here_.empty() || verbs_here_[k]) && !verbs_[k]->done()) return false;
  for (std::size_t k = 0; k < classes_.size(); ++k)
    if ((classes_here_.empty() || classes_here_[k]) && !classes_[k]->done(t)) return false;
  if (attacks_)
    for (const auto& a : *attacks_)
      if (!a->done()) return false;
  if (collectives_ && collectives_here_)
    for (const auto& c : *collectives_)
      if (!c->done()) return false;
  if (trace_replay_ && trace_replay_here_ && !trace_replay_->done()) return false;
  return true;
}

bool RunObserver::can_end_everywhere(Time t) const {
  const bool here = can_end(t);
  return ranks::several() ? !ranks::any(!here) : here;
}

void RunObserver::look_at_barriers() {
  at_barriers_ = true;
  CalendarProcess::shared().add_barrier_hook([this] {
    // Across MPI ranks a delivery on any rank makes every rank ask (rank_exchange.h).
    if (!ranks::any(check_wanted_.exchange(false, std::memory_order_relaxed))) return;
    end_if_over(ScheduledModule::now());
  });
}

void RunObserver::check_end(Time t) {
  if (at_barriers_) check_wanted_.store(true, std::memory_order_relaxed);
  else end_if_over(t);
}

void RunObserver::end_if_over(Time t) {
  // Across MPI ranks, only at barriers (look_at_barriers), which every rank reaches alike.
  if (!can_end_everywhere(t)) return;
  if (verbs_.empty() && !needs_settle_) {
    stop();
  } else if (!pending_) {
    pending_ = true;
    clock_->schedule_global<&RunObserver::settled>(t + settle_, this);
  }
}

}  // namespace ibfsim
