// A string as bytes and back, for what ranks send each other (rank_event_codec.h's ByteWriter and
// ByteReader): its length, then its characters.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/rank_event_codec.h"

namespace ibfsim {

inline void put_string(ByteWriter& w, const std::string& s) { w.bytes(std::vector<std::uint8_t>(s.begin(), s.end())); }
inline std::string get_string(ByteReader& r) {
  const std::vector<std::uint8_t> b = r.bytes();
  return std::string(b.begin(), b.end());
}

}  // namespace ibfsim
