#include "sim/transport/roce/dcqcn_statistics.h"

#include "sim/core/rank_exchange.h"

namespace ibfsim {

namespace {

struct QpRow {
  const DcqcnReactionPoint* rp = nullptr;
};
using Q = const QpRow&;
using H = const HcaDcqcn* const&;

// Summed over the HCAs this rank simulates, then across MPI ranks, once when registered (every
// rank registers them: a collective).
struct Totals {
  std::uint64_t cnps_sent = 0, cnps_received = 0, rate_cuts = 0;
};

std::uint64_t cuts(const HcaDcqcn& d) {
  std::uint64_t n = 0;
  d.for_each_reaction_point([&n](Qpn, const DcqcnReactionPoint& rp) { n += rp.counters().cuts; });
  return n;
}

}  // namespace

void register_dcqcn_statistics(StatsRegistry& r, const std::vector<NamedHca>& hcas) {
  bool any = false;
  std::vector<std::uint64_t> sums(3, 0);
  for (const NamedHca& h : hcas) {
    const HcaDcqcn* d = h.hca->dcqcn();
    if (!d) continue;
    any = true;
    if (!h.here) continue;
    sums[0] += d->counters().cnps_sent;
    sums[1] += d->counters().cnps_received;
    sums[2] += cuts(*d);
  }
  if (!any) return;
  ranks::sum(sums);
  const Totals totals{sums[0], sums[1], sums[2]};

  auto top = r.add_kind<Totals>("dcqcn", {});
  using T = const Totals&;
  top.counter("dcqcn.cnps_sent", "packets", kResultsTop, [](T t) { return t.cnps_sent; })
      .counter("dcqcn.cnps_received", "packets", kResultsTop, [](T t) { return t.cnps_received; })
      .counter("dcqcn.rate_cuts", "events", kResultsTop, [](T t) { return t.rate_cuts; });
  top.add(totals, kNoStatParent);

  auto hca_kind = r.add_kind<const HcaDcqcn*>("dcqcn_hcas", {"hca"});
  hca_kind.counter("cnps_sent", "packets", kDcqcnHcasCsv, [](H d) { return d->counters().cnps_sent; })
      .counter("cnps_received", "packets", kDcqcnHcasCsv, [](H d) { return d->counters().cnps_received; })
      .counter("cnps_no_qp", "packets", kDcqcnHcasCsv, [](H d) { return d->counters().cnps_no_qp; })
      .counter("paced_packets", "packets", kDcqcnHcasCsv, [](H d) { return d->counters().paced_packets; })
      .counter("rate_cuts", "events", kDcqcnHcasCsv, [](H d) { return cuts(*d); });

  auto qps = r.add_kind<QpRow>("dcqcn_qps", {"hca", "qpn"});
  constexpr StatOutputs kOut = kDcqcnQpsCsv;
  qps.counter("cnps", "packets", kOut, [](Q q) { return q.rp->counters().cnps; })
      .counter("rate_cuts", "events", kOut, [](Q q) { return q.rp->counters().cuts; })
      .counter("fast_recovery", "events", kOut, [](Q q) { return q.rp->counters().fast_recovery; })
      .counter("additive_increases", "events", kOut, [](Q q) { return q.rp->counters().additive; })
      .counter("hyper_increases", "events", kOut, [](Q q) { return q.rp->counters().hyper; })
      .counter("releases", "events", kOut, [](Q q) { return q.rp->counters().releases; })
      .counter("alpha_updates", "events", kOut, [](Q q) { return q.rp->counters().alpha_updates; })
      .figure("rate_gbps", "Gb/s", Merge::kSame, kOut, [](Q q) { return static_cast<double>(q.rp->rate_bps()) / 1e9; }, 6)
      .figure("alpha", "", Merge::kSame, kOut, [](Q q) { return q.rp->alpha(); }, 6);

  for (const NamedHca& h : hcas) {
    const HcaDcqcn* d = h.hca->dcqcn();
    if (!d) continue;
    hca_kind.add(d, kNoStatParent, h.name);
    d->for_each_reaction_point(
        [&](Qpn qp, const DcqcnReactionPoint& rp) { qps.add(QpRow{&rp}, kNoStatParent, h.name, qp); });
  }
}

}  // namespace ibfsim
