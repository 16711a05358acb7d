// DCQCN's tables in a RoCE run with DCQCN on (hca_dcqcn.h), registered once after the run:
//   dcqcn_hcas.csv  (hca): CNPs sent (notification point) and received (reaction point), CNPs to
//                   unknown QPs, packets sent while their QP was rate limited;
//   dcqcn_qps.csv   (hca, qpn): each QP that received a CNP: CNPs, rate cuts, the increases of each
//                   kind, releases back to the line rate, alpha updates, its rate and alpha at the end.
// results.json gets the totals: dcqcn.cnps_sent, dcqcn.cnps_received, dcqcn.rate_cuts (across MPI
// ranks summed over each rank's own HCAs, then across ranks: every rank registers them, a collective).
#pragma once
#include <string>
#include <vector>

#include "sim/core/stats_registry.h"
#include "sim/transport/hca.h"

namespace ibfsim {

struct NamedHca {
  std::string name;
  const Hca* hca = nullptr;
  bool here = true;  // across MPI ranks: this rank simulates it (its figures count in the totals)
};

// Registers nothing when no HCA runs DCQCN.
void register_dcqcn_statistics(StatsRegistry& registry, const std::vector<NamedHca>& hcas);

}  // namespace ibfsim
