#include "sim/workload/sharp_aggregation_manager.h"

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/scheduled_module.h"
#include "sim/transport/sharp/sharp_mad.h"
#include "sim/workload/scenario.h"

namespace ibfsim {

SharpManagerPlace sharp_manager_place(const Scenario& sc) {
  const auto cables = sc.topology.port_cables();
  if (sc.subnet_manager.in_band) {
    const SubnetManagerSettings st = subnet_manager_settings(sc);
    if (st.port != 0) return {st.host, st.port};  // the SM's HCA and port
  }
  for (std::size_t n : sc.topology.hcas())
    for (unsigned p = 1; p <= sc.topology.nodes[n].num_ports; ++p)
      if (cables[n][p]) return {n, static_cast<PortNum>(p)};
  throw InputError(fmt::format("{}: expected an HCA with a cabled port to run SHARP's aggregation manager on", sc.file));
}

SharpAggregationManager::SharpAggregationManager(Fabric& fabric, SharpManagerPlace place)
    : fabric_(fabric), place_(place) {
  fabric_.hca_sma(place_.host)->attach_class_client(kSharpMadClass, this);
}

void SharpAggregationManager::request(const SharpJobRequest& req, std::function<void(const SharpJobOutcome&)> done) {
  const std::size_t j = jobs_.size();
  jobs_.emplace_back();
  Job& job = jobs_.back();
  job.done = std::move(done);
  job.mad_timeout = req.mad_timeout;
  job.mad_retries = req.mad_retries;
  job.outcome.requested = ScheduledModule::now();
  job.outcome.tree = aggregation_tree(fabric_.topology(), req.hosts);
  job.outcome.tree_id = fabric_.next_aggregation_tree();
  const AggregationTree& tree = job.outcome.tree;
  job.refused.assign(tree.nodes.size(), false);
  job.unanswered.assign(tree.nodes.size(), false);
  ++stats_.jobs;
  for (std::size_t t = 0; t < tree.nodes.size(); ++t) {
    const AggregationTreeNode& n = tree.nodes[t];
    fabric_.aggregation_node(n.node, req.config);  // the switch's hardware (configured by the MADs)
    std::vector<SharpTreeConfigMad::Child> children;
    for (std::size_t c : n.children) children.push_back({fabric_.switch_at(tree.nodes[c].node)->lid(), kAggregationQpn});
    for (std::size_t host : n.hosts)
      for (std::size_t r = 0; r < req.hosts.size(); ++r)
        if (req.hosts[r] == host) children.push_back({req.endpoints[r].lid, req.endpoints[r].qpn});
    const Lid parent = n.parent == kNoTreeNode ? Lid{0} : fabric_.switch_at(tree.nodes[n.parent].node)->lid();
    const Lid dlid = fabric_.switch_at(n.node)->lid();
    for (const SharpTreeConfigMad& m :
         sharp_tree_config_mads(job.outcome.tree_id, req.op, req.type, req.sl, 0xFFFF, parent, children, next_tid_)) {
      tid_[m.transaction_id] = PendingMad{j, t, encode_sharp_mad(m), dlid, 0};
      next_tid_ = m.transaction_id + 1;
      ++job.outcome.mads;
      ++job.waiting;
      send(m.transaction_id);
    }
  }
}

void SharpAggregationManager::send(std::uint64_t tid) {
  PendingMad& m = tid_.at(tid);
  HcaSma& sma = *fabric_.hca_sma(place_.host);
  sma.send_gsi(m.mad, place_.port, m.dlid, 0);
  ++m.tries;
  ++stats_.mads_sent;
  sma.module().schedule<&SharpAggregationManager::mad_timed_out>(ScheduledModule::now() + jobs_[m.job].mad_timeout,
                                                                   this, tid, m.tries);
}

void SharpAggregationManager::mad_timed_out(std::uint64_t tid, unsigned tries) {
  const auto it = tid_.find(tid);
  if (it == tid_.end() || it->second.tries != tries) return;  // answered, or sent again since
  if (tries <= jobs_[it->second.job].mad_retries) {
    ++stats_.mads_resent;
    return send(tid);
  }
  ++stats_.mads_unanswered;
  const PendingMad m = it->second;
  tid_.erase(it);
  jobs_[m.job].unanswered[m.tree_node] = true;
  settle(m.job);
}

void SharpAggregationManager::on_gsi_answer(const ReceivedGmp& gmp, PortNum) {
  const auto m = decode_sharp_mad(gmp.mad.data());
  if (!m || !(m->method & 0x80)) return;  // not an answer of the class: nothing the AM asked
  const auto it = tid_.find(m->transaction_id);
  if (it == tid_.end()) return;  // an answer to a MAD answered already (it was resent) or given up on
  const PendingMad pending = it->second;
  tid_.erase(it);
  ++stats_.mads_answered;
  if (m->status != 0) jobs_[pending.job].refused[pending.tree_node] = true;
  settle(pending.job);
}

void SharpAggregationManager::settle(std::size_t j) {
  Job& job = jobs_[j];
  if (--job.waiting == 0) finish(job);
}

void SharpAggregationManager::finish(Job& job) {
  SharpJobOutcome& o = job.outcome;
  o.answered = ScheduledModule::now();
  const auto first = [&](const std::vector<bool>& which) {
    for (std::size_t k = 0; k < which.size(); ++k)
      if (which[k]) return fabric_.topology().nodes[o.tree.nodes[k].node].name;
    return std::string();
  };
  o.refused_by = first(job.refused);
  o.unanswered_by = first(job.unanswered);
  o.ready = o.refused_by.empty() && o.unanswered_by.empty();
  if (o.ready) stats_.setup_time += o.answered - o.requested;
  else if (!o.unanswered_by.empty()) ++stats_.jobs_unanswered;
  else ++stats_.jobs_refused;
  job.done(SharpJobOutcome(o));
}

}  // namespace ibfsim
