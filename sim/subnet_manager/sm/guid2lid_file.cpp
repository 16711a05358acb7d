#include "sim/subnet_manager/sm/guid2lid_file.h"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/subnet_manager/sm/lid_assignment.h"

namespace ibfsim {

namespace {

std::uint32_t st_strhash(const std::string& key) {
  std::uint32_t val = 0;  // OpenSM computes in a signed int; unsigned wrap-around gives the same bits
  for (unsigned char c : key) val = val * 997u + c;
  const auto sval = static_cast<std::int32_t>(val);
  const std::int32_t shifted = sval >> 5;  // arithmetic shift, as gcc does for a signed int
  return val + static_cast<std::uint32_t>(shifted);
}

// st.c's table sizes: the first prime of its list whose power of two (8, 16, 32, ...) exceeds size.
std::uint32_t st_new_size(std::uint32_t size) {
  static const std::uint32_t primes[] = {11,     19,     37,      67,      131,     283,     521,     1033,
                                         2053,   4099,   8219,    16427,   32771,   65581,   131101,  262147,
                                         524309, 1048583, 2097169, 4194319, 8388617, 16777259};
  std::uint32_t newsize = 8;
  for (std::uint32_t p : primes) {
    if (newsize > size) return p;
    newsize <<= 1;
  }
  return primes[sizeof(primes) / sizeof(primes[0]) - 1];
}

struct Entry {
  std::uint32_t hash;
  std::string text;
};

}  // namespace

void write_guid2lid(std::ostream& out, const SubnetGraph& g) {
  // Bins hold their lists newest first; a vector per bin stores them oldest first (push_back)
  // and is walked backwards.
  std::vector<std::vector<Entry>> bins(st_new_size(0));
  std::size_t entries = 0;
  for (SubnetPortRef r : lid_assignment_order(g)) {
    const LidRange lids = g.port(r).lids;
    if (!lids.assigned()) continue;
    const std::string key = fmt::format("0x{:016x}", g.port_guid(r));
    Entry e{st_strhash(key), fmt::format("{} 0x{:04x} 0x{:04x}\n\n", key, lids.first, lids.last)};
    if (entries / bins.size() > 5) {
      std::vector<std::vector<Entry>> grown(st_new_size(static_cast<std::uint32_t>(bins.size() + 1)));
      for (auto& bin : bins)
        for (auto it = bin.rbegin(); it != bin.rend(); ++it) grown[it->hash % grown.size()].push_back(std::move(*it));
      bins.swap(grown);
    }
    bins[e.hash % bins.size()].push_back(std::move(e));
    ++entries;
  }
  for (const auto& bin : bins)
    for (auto it = bin.rbegin(); it != bin.rend(); ++it) out << it->text;
}

}  // namespace ibfsim
