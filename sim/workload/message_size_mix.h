// The sizes of a traffic class's messages: one fixed size, or a weighted list drawn per message
// (e.g. 90% 256-byte messages and 10% 64 KiB ones). Pure, no SystemC.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/rng.h"

namespace ibfsim {

class MessageSizeMix {
 public:
  struct Entry {
    std::uint32_t bytes = 0;
    double weight = 1;  // > 0; weights need not sum to 1
  };
  MessageSizeMix() = default;
  explicit MessageSizeMix(std::uint32_t fixed) : entries_{{fixed, 1.0}} {}
  explicit MessageSizeMix(std::vector<Entry> entries);

  const std::vector<Entry>& entries() const { return entries_; }
  bool fixed() const { return entries_.size() == 1; }
  std::uint32_t largest() const;
  // Mean size, weighted.
  double mean() const;
  // A size drawn by weight (a fixed size draws nothing from rng).
  std::uint32_t draw(RngStream& rng) const;

 private:
  std::vector<Entry> entries_{{2048, 1.0}};
};

}  // namespace ibfsim
