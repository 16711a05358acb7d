// A switch's L3 forwarding table: routes by the longest prefix that contains a frame's destination
// IP, each to one or more equal-cost next hops (output ports); among several, ECMP picks one per
// flow (ecmp.h). Host routes are /32 or /128 prefixes. No route: nullptr (the switch drops).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "sim/core/ids.h"
#include "sim/ethernet/ip_prefix.h"

namespace ibfsim {

using NextHops = std::vector<PortNum>;

class RouteTable {
 public:
  // Adds the route for `prefix`, or replaces it. `next_hops` must not be empty.
  void add(const IpPrefix& prefix, NextHops next_hops);
  // The next hops of the longest prefix containing `dst`, or nullptr.
  const NextHops* lookup(const IpAddress& dst) const;
  std::size_t size() const { return routes_.size(); }

 private:
  using Key = std::pair<unsigned, IpAddress>;  // (length, masked address)
  struct KeyLess {
    bool operator()(const Key& a, const Key& b) const {
      if (a.first != b.first) return a.first < b.first;
      if (a.second.version != b.second.version) return a.second.version < b.second.version;
      return a.second.bytes < b.second.bytes;
    }
  };
  std::map<Key, NextHops, KeyLess> routes_;
  // The prefix lengths in use per version, longest first: a lookup tries each once.
  std::array<std::set<unsigned, std::greater<unsigned>>, 2> lengths_;
};

}  // namespace ibfsim
