#include "sim/workload/nccl_rail_rings.h"

#include <algorithm>
#include <map>

namespace ibfsim {

std::vector<std::vector<std::uint32_t>> nccl_rail_rings(const std::vector<std::optional<NcclRankPlace>>& places,
                                                        std::uint32_t channels) {
  // Groups of ranks, in the order each group's first rank appears; a server's ranks by rail.
  std::vector<std::vector<std::uint32_t>> groups;
  std::map<std::size_t, std::size_t> group_of_server;
  bool shared = false;
  for (std::uint32_t r = 0; r < places.size(); ++r) {
    if (!places[r]) {
      groups.push_back({r});
      continue;
    }
    const auto [it, fresh] = group_of_server.emplace(places[r]->server, groups.size());
    if (fresh) groups.emplace_back();
    else shared = true;
    groups[it->second].push_back(r);
  }
  if (!shared) return {};
  for (auto& g : groups)
    std::stable_sort(g.begin(), g.end(), [&](std::uint32_t a, std::uint32_t b) {
      return places[a]->rail < places[b]->rail;  // a server's ranks all have a place
    });
  std::vector<std::vector<std::uint32_t>> rings(channels);
  for (std::uint32_t c = 0; c < channels; ++c) {
    for (const auto& g : groups) {
      const std::size_t start = c % g.size();
      for (std::size_t k = 0; k < g.size(); ++k) rings[c].push_back(g[(start + k) % g.size()]);
    }
  }
  return rings;
}

}  // namespace ibfsim
