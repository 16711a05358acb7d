#include "sim/workload/cm_statistics.h"

#include <algorithm>
#include <optional>

#include "sim/subnet_manager/sa/sa_mad.h"
#include "sim/subnet_manager/sm/subnet_manager.h"

namespace ibfsim {

namespace {

// The SA attributes and REJ reasons that get a figure of their own, by name.
struct Named {
  std::uint16_t code;
  const char* name;
};
constexpr Named kSaAttributes[] = {{IB_MAD_ATTR_PATH_RECORD, "path_record"},
                                   {IB_MAD_ATTR_NODE_RECORD, "node_record"},
                                   {IB_MAD_ATTR_PORTINFO_RECORD, "port_info_record"},
                                   {IB_MAD_ATTR_MCMEMBER_RECORD, "mc_member_record"}};
constexpr Named kRejReasons[] = {{kCmRejNoQp, "no_qp"},
                                 {kCmRejNoResources, "no_resources"},
                                 {kCmRejTimeout, "timeout"},
                                 {kCmRejInvalidServiceId, "invalid_service_id"},
                                 {kCmRejConsumerReject, "consumer_reject"}};

std::uint64_t count_of(const std::map<std::uint16_t, std::uint64_t>& m, std::uint16_t k) {
  auto it = m.find(k);
  return it == m.end() ? 0 : it->second;
}

// The whole run's figures (one row): sums over the agents, the primary SM's SA, the flows.
struct CmTotals {
  const SubnetManager* sm = nullptr;
  const std::map<std::size_t, std::unique_ptr<CmAgent>>* agents = nullptr;
  const std::vector<std::unique_ptr<VerbsFlow>>* flows = nullptr;

  template <class F>
  std::uint64_t sum(F f) const {
    std::uint64_t n = 0;
    for (const auto& [node, a] : *agents) n += f(a->stats());
    return n;
  }
  std::uint64_t outcomes(VerbsFlow::Cm::Outcome o) const {
    std::uint64_t n = 0;
    for (const auto& f : *flows)
      if (f->cm() && f->cm()->outcome == o) ++n;
    return n;
  }
  // From the first connection requested to the last one established; none while any is pending
  // or none was established.
  std::optional<double> all_connected_ns() const {
    Time first = kTimeNever, last = 0;
    for (const auto& f : *flows) {
      const VerbsFlow::Cm* c = f->cm();
      if (!c) continue;
      if (c->outcome == VerbsFlow::Cm::Outcome::kPending) return std::nullopt;
      first = std::min(first, c->requested);
      if (c->outcome == VerbsFlow::Cm::Outcome::kEstablished) last = std::max(last, c->established[0]);
    }
    if (first == kTimeNever || last == 0) return std::nullopt;
    return static_cast<double>(last - first) / 1e6;
  }
};

std::optional<double> ns_since(Time t, Time from) {
  if (t == kTimeNever || from == kTimeNever) return std::nullopt;
  return static_cast<double>(t - from) / 1e6;
}

void register_totals(StatsRegistry& r, const CmTotals& totals) {
  using T = const CmTotals&;
  constexpr StatOutputs kOut = kResultsTop;
  const std::string p = "connection_management.";
  auto k = r.add_kind<CmTotals>("connection_management", {});
  for (const Named& a : kSaAttributes) {
    const std::uint16_t code = a.code;
    k.counter(p + "sa.requests." + a.name, "MADs", kOut, [code](T t) -> std::optional<std::uint64_t> {
      if (!t.sm) return std::nullopt;
      return count_of(t.sm->sa_stats().requests_by_attribute, code);
    });
    k.counter(p + "sa.answers." + a.name, "MADs", kOut, [code](T t) -> std::optional<std::uint64_t> {
      if (!t.sm) return std::nullopt;
      return count_of(t.sm->sa_stats().answers_by_attribute, code);
    });
  }
  k.counter(p + "sa.busy", "MADs", kOut, [](T t) -> std::optional<std::uint64_t> {
    if (!t.sm) return std::nullopt;
    return t.sm->sa_stats().busy;
  });
  k.counter(p + "sa.client_resent", "MADs", kOut, [](T t) {
    std::uint64_t n = 0;
    for (const auto& [node, a] : *t.agents) n += a->sa().stats().resent;
    return n;
  });
  k.counter(p + "sa.client_failed", "queries", kOut, [](T t) {
    std::uint64_t n = 0;
    for (const auto& [node, a] : *t.agents) n += a->sa().stats().failed;
    return n;
  });
  for (std::size_t i = 0; i < CmAgentStats::kTypes; ++i) {
    k.counter(p + "cm.sent." + cm_message_name(i), "MADs", kOut,
              [i](T t) { return t.sum([i](const CmAgentStats& s) { return s.sent[i]; }); });
    k.counter(p + "cm.received." + cm_message_name(i), "MADs", kOut,
              [i](T t) { return t.sum([i](const CmAgentStats& s) { return s.received[i]; }); });
  }
  k.counter(p + "cm.retries", "MADs", kOut, [](T t) { return t.sum([](const CmAgentStats& s) { return s.retries; }); });
  k.counter(p + "cm.timeouts", "connections", kOut,
            [](T t) { return t.sum([](const CmAgentStats& s) { return s.timeouts; }); });
  for (const Named& n : kRejReasons) {
    const std::uint16_t code = n.code;
    k.counter(p + "cm.rej_sent." + n.name, "MADs", kOut,
              [code](T t) { return t.sum([code](const CmAgentStats& s) { return count_of(s.rej_sent, code); }); });
  }
  using O = VerbsFlow::Cm::Outcome;
  k.counter(p + "connections.established", "connections", kOut, [](T t) { return t.outcomes(O::kEstablished); })
      .counter(p + "connections.rejected", "connections", kOut, [](T t) { return t.outcomes(O::kRejected); })
      .counter(p + "connections.timed_out", "connections", kOut, [](T t) { return t.outcomes(O::kTimedOut); })
      .counter(p + "connections.no_path", "connections", kOut, [](T t) { return t.outcomes(O::kNoPath); })
      .counter(p + "connections.pending", "connections", kOut, [](T t) { return t.outcomes(O::kPending); })
      .figure(p + "all_connected_ns", "ns", Merge::kMax, kOut, [](T t) { return t.all_connected_ns(); }, 3);
  k.add(totals, kNoStatParent);
}

void register_agents(StatsRegistry& r, Fabric& fabric, const std::map<std::size_t, std::unique_ptr<CmAgent>>& agents) {
  using A = const CmAgent*;
  constexpr StatOutputs kOut = kCmAgentsCsv;
  auto k = r.add_kind<const CmAgent*>("cm_agents", {"hca"});
  for (std::size_t i = 0; i < CmAgentStats::kTypes; ++i) {
    k.counter(std::string(cm_message_name(i)) + "_sent", "MADs", kOut, [i](A a) { return a->stats().sent[i]; });
    k.counter(std::string(cm_message_name(i)) + "_received", "MADs", kOut, [i](A a) { return a->stats().received[i]; });
  }
  k.counter("retries", "MADs", kOut, [](A a) { return a->stats().retries; })
      .counter("timeouts", "connections", kOut, [](A a) { return a->stats().timeouts; });
  for (const Named& n : kRejReasons) {
    const std::uint16_t code = n.code;
    k.counter(std::string("rej_sent_") + n.name, "MADs", kOut, [code](A a) { return count_of(a->stats().rej_sent, code); });
    k.counter(std::string("rej_received_") + n.name, "MADs", kOut,
              [code](A a) { return count_of(a->stats().rej_received, code); });
  }
  k.counter("established_active", "connections", kOut, [](A a) { return a->stats().established_active; })
      .counter("established_passive", "connections", kOut, [](A a) { return a->stats().established_passive; })
      .figure("max_queue", "MADs", Merge::kMax, kOut, [](A a) { return static_cast<std::uint64_t>(a->stats().max_queue); })
      .counter("sa_sent", "MADs", kOut, [](A a) { return a->sa().stats().sent; })
      .counter("sa_resent", "MADs", kOut, [](A a) { return a->sa().stats().resent; })
      .counter("sa_answered", "MADs", kOut, [](A a) { return a->sa().stats().answered; })
      .counter("sa_failed", "queries", kOut, [](A a) { return a->sa().stats().failed; });
  for (const auto& [node, a] : agents) k.add(a.get(), kNoStatParent, fabric.topology().nodes[node].name);
}

void register_connections(StatsRegistry& r, const std::vector<std::unique_ptr<VerbsFlow>>& flows) {
  using F = const VerbsFlow*;
  constexpr StatOutputs kOut = kCmConnectionsCsv;
  auto k = r.add_kind<const VerbsFlow*>("cm_connections", {"flow", "from", "to", "outcome"});
  auto c = [](F f) { return f->cm(); };
  k.figure("requested_ns", "ns", Merge::kSame, kOut,
           [c](F f) { return ns_since(c(f)->requested, 0); }, 3)
      .figure("path_query_ns", "ns", Merge::kSame, kOut, [c](F f) { return ns_since(c(f)->path_resolved, c(f)->requested); }, 3)
      .figure("setup_ns", "ns", Merge::kSame, kOut, [c](F f) { return ns_since(c(f)->established[0], c(f)->requested); }, 3)
      .figure("passive_setup_ns", "ns", Merge::kSame, kOut,
              [c](F f) { return ns_since(c(f)->established[1], c(f)->requested); }, 3)
      .figure("reject_reason", "", Merge::kSame, kOut, [c](F f) -> std::optional<std::uint64_t> {
        if (!c(f)->reject_reason) return std::nullopt;
        return c(f)->reject_reason;
      });
  for (const auto& f : flows)
    if (const VerbsFlow::Cm* cm = f->cm())
      k.add(f.get(), kNoStatParent, f->name(), f->spec().from, f->spec().to, VerbsFlow::outcome_name(*cm));
}

}  // namespace

void register_cm_statistics(StatsRegistry& registry, Fabric& fabric,
                            const std::map<std::size_t, std::unique_ptr<CmAgent>>& agents,
                            const std::vector<std::unique_ptr<VerbsFlow>>& flows) {
  if (agents.empty()) return;
  register_totals(registry, CmTotals{fabric.subnet_manager(), &agents, &flows});
  register_agents(registry, fabric, agents);
  register_connections(registry, flows);
}

}  // namespace ibfsim
