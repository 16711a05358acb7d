#include "sim/transport/tcp/tcp_scoreboard.h"

namespace ibfsim {

void TcpScoreboard::flag(Segment& s, bool& field) {
  if (field) return;
  if (!s.marked()) ++marked_;
  if (&field == &s.sacked) ++sacked_;
  field = true;
}

void TcpScoreboard::sent(std::uint64_t start, std::uint64_t end) { segs_.emplace(start, Segment{end}); }

void TcpScoreboard::ack(std::uint64_t una) {
  while (!segs_.empty() && segs_.begin()->first < una) {
    auto it = segs_.begin();
    Segment s = it->second;
    segs_.erase(it);
    if (s.marked()) --marked_;
    if (s.sacked) --sacked_;
    if (s.end > una) {  // acknowledged in its middle: the rest stays, with its marks
      segs_.emplace(una, s);
      if (s.marked()) ++marked_;
      if (s.sacked) ++sacked_;
      break;
    }
  }
}

void TcpScoreboard::sack(std::uint64_t left, std::uint64_t right) {
  auto it = segs_.lower_bound(left);
  for (; it != segs_.end() && it->second.end <= right; ++it) flag(it->second, it->second.sacked);
}

bool TcpScoreboard::mark_lost_by_sack(std::uint32_t dup_threshold, std::uint32_t smss) {
  if (sacked_ == 0) return false;
  const std::uint64_t limit = std::uint64_t{dup_threshold - 1} * smss;
  std::uint64_t above = 0;
  bool any = false;
  for (auto it = segs_.rbegin(); it != segs_.rend(); ++it) {
    Segment& s = it->second;
    if (s.sacked) above += s.end - it->first;
    else if (above > limit && !s.lost) {
      flag(s, s.lost);
      any = true;
    }
  }
  return any;
}

void TcpScoreboard::mark_lost(std::uint64_t start) {
  auto it = segs_.find(start);
  if (it != segs_.end() && !it->second.sacked) flag(it->second, it->second.lost);
}

void TcpScoreboard::mark_all_lost() {
  for (auto& [start, s] : segs_) {
    if (s.sacked) continue;
    flag(s, s.lost);
    s.retransmitted = false;  // still marked: lost
  }
}

void TcpScoreboard::retransmitted(std::uint64_t start) {
  auto it = segs_.find(start);
  if (it != segs_.end()) flag(it->second, it->second.retransmitted);
}

std::optional<TcpScoreboard::Range> TcpScoreboard::next_lost() const {
  if (marked_ == 0) return std::nullopt;
  for (const auto& [start, s] : segs_)
    if (s.lost && !s.sacked && !s.retransmitted) return Range{start, s.end};
  return std::nullopt;
}

std::uint64_t TcpScoreboard::pipe() const {
  if (segs_.empty()) return 0;
  if (marked_ == 0) return segs_.rbegin()->second.end - segs_.begin()->first;
  std::uint64_t p = 0;
  for (const auto& [start, s] : segs_) {
    if (s.sacked) continue;
    const std::uint64_t len = s.end - start;
    if (!s.lost) p += len;
    if (s.retransmitted) p += len;
  }
  return p;
}

}  // namespace ibfsim
