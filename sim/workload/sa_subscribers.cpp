#include "sim/workload/sa_subscribers.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.h"

#include "sim/subnet_manager/sa/inform_info.h"
#include "sim/subnet_manager/sm/subnet_manager.h"

namespace ibfsim {

std::vector<std::unique_ptr<SaSubscriber>> start_sa_subscribers(const std::vector<SaSubscriberSpec>& specs,
                                                                 const Topology& topo, Fabric& fabric,
                                                                 const std::string& sm_host, const std::string& file) {
  std::vector<std::unique_ptr<SaSubscriber>> out;
  for (const SaSubscriberSpec& spec : specs) {
    if (spec.host == sm_host)
      throw InputError(fmt::format("{}: subnet_manager.sa.subscribers: {} runs the subnet manager; expected another "
                                   "HCA (a client on the SM's own node is not supported)",
                                   file, spec.host));
    auto s = std::make_unique<SaSubscriber>();
    s->node = *topo.find_node(spec.host);
    SaClientConfig config;
    config.tid_tag = 0x5B;  // apart from a CM agent's or IPoIB interface's client on the same port
    s->client = std::make_unique<SaClient>(*fabric.hca_sma(s->node), 1, config);
    SaSubscriber* self = s.get();
    for (std::uint16_t trap : spec.traps) {
      InformInfo i;
      i.trap_number_or_device = trap;
      SaData d{};
      const auto b = encode_inform_info(i);
      std::copy(b.begin(), b.end(), d.begin());
      s->client->query(make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_INFORM_INFO, 0, d, 0), [self](const SaMad* a) {
        if (!a) ++self->unanswered;
        else if (a->header.status == 0) ++self->accepted;
        else ++self->refused;
      });
    }
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

struct SaEvents {
  const SubnetManager* sm = nullptr;
  template <class F>
  std::uint64_t sum(F f) const {
    std::uint64_t n = 0;
    for (const auto& [lid, r] : sm->sa_stats().reports) n += f(r);
    return n;
  }
};

using Reports = SubnetManager::SaStats::Reports;

// One subscriber and the SM's counts of the Reports to it (by its LID).
struct SubscriberRow {
  const SaSubscriber* s;
  const SubnetManager* sm;
  Lid lid;
  Reports reports() const {
    auto it = sm->sa_stats().reports.find(lid);
    return it == sm->sa_stats().reports.end() ? Reports{} : it->second;
  }
};

}  // namespace

void register_sa_subscriber_statistics(StatsRegistry& r, Fabric& fabric,
                                       const std::vector<std::unique_ptr<SaSubscriber>>& subscribers) {
  const SubnetManager* sm = fabric.subnet_manager();
  if (subscribers.empty() || !sm) return;
  using R = const SubscriberRow&;
  constexpr StatOutputs kOut = kSaSubscribersCsv;
  auto k = r.add_kind<SubscriberRow>("sa_subscribers", {"hca"});
  k.counter("lid", "", kOut, [](R x) { return std::uint64_t{x.lid}; })
      .counter("subscriptions_accepted", "MADs", kOut, [](R x) { return x.s->accepted; })
      .counter("subscriptions_refused", "MADs", kOut, [](R x) { return x.s->refused; })
      .counter("subscriptions_unanswered", "MADs", kOut, [](R x) { return x.s->unanswered; })
      .counter("reports_received", "MADs", kOut, [](R x) { return x.s->client->stats().reports; })
      .counter("reports_sent", "MADs", kOut, [](R x) { return x.reports().sent; })
      .counter("reports_resent", "MADs", kOut, [](R x) { return x.reports().resent; })
      .counter("reports_acknowledged", "MADs", kOut, [](R x) { return x.reports().acknowledged; })
      .counter("reports_failed", "MADs", kOut, [](R x) { return x.reports().failed; });
  for (const auto& s : subscribers)
    k.add(SubscriberRow{s.get(), sm, fabric.hca(s->node)->lid()}, kNoStatParent, fabric.topology().nodes[s->node].name);

  using T = const SaEvents&;
  const std::string p = "sa_events.";
  auto t = r.add_kind<SaEvents>("sa_events", {});
  t.counter(p + "subscriptions", "subscriptions", kResultsTop,
            [](T e) { return std::uint64_t{e.sm->sa().subscriptions().all().size()}; })
      .counter(p + "reports_sent", "MADs", kResultsTop, [](T e) { return e.sum([](const Reports& x) { return x.sent; }); })
      .counter(p + "reports_resent", "MADs", kResultsTop,
               [](T e) { return e.sum([](const Reports& x) { return x.resent; }); })
      .counter(p + "reports_acknowledged", "MADs", kResultsTop,
               [](T e) { return e.sum([](const Reports& x) { return x.acknowledged; }); })
      .counter(p + "reports_failed", "MADs", kResultsTop,
               [](T e) { return e.sum([](const Reports& x) { return x.failed; }); });
  t.add(SaEvents{sm}, kNoStatParent);
}

}  // namespace ibfsim
