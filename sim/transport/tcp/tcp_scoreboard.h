// A TCP sender's scoreboard (RFC 6675): the segments sent and not yet cumulatively acknowledged,
// in stream positions (64-bit, never wrapping), each marked SACKed, lost or retransmitted.
//   - lost (IsLost, simplified): an unSACKed segment with more than (DupThresh - 1) x SMSS bytes
//     SACKed above it; also the first hole at a fast retransmit or a NewReno partial ACK (RFC
//     6582), and every unSACKed segment after a retransmission timeout.
//   - pipe (SetPipe): the bytes of unSACKed segments not lost, plus those retransmitted since
//     they were marked lost.
// Segments are kept as sent (one per MSS); an acknowledgement inside one trims it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace ibfsim {

class TcpScoreboard {
 public:
  struct Segment {
    std::uint64_t end = 0;
    bool sacked = false, lost = false, retransmitted = false;
    bool marked() const { return sacked || lost || retransmitted; }
  };
  using Range = std::pair<std::uint64_t, std::uint64_t>;  // [first, end)

  void sent(std::uint64_t start, std::uint64_t end);  // new data, above everything recorded
  void ack(std::uint64_t una);                         // everything below `una` is acknowledged
  void sack(std::uint64_t left, std::uint64_t right);  // marks the segments wholly inside
  // IsLost over the whole board; returns whether a segment was newly marked lost.
  bool mark_lost_by_sack(std::uint32_t dup_threshold, std::uint32_t smss);
  void mark_lost(std::uint64_t start);  // the segment starting there, unless SACKed
  void mark_all_lost();                 // after an RTO
  void retransmitted(std::uint64_t start);
  // The first segment marked lost and not retransmitted since (NextSeg rule 1).
  std::optional<Range> next_lost() const;
  std::uint64_t pipe() const;
  bool sacked_any() const { return sacked_ > 0; }
  bool empty() const { return segs_.empty(); }
  std::size_t size() const { return segs_.size(); }
  const std::map<std::uint64_t, Segment>& segments() const { return segs_; }

 private:
  void flag(Segment& s, bool& field);
  std::map<std::uint64_t, Segment> segs_;
  std::size_t marked_ = 0;  // segments with any mark: pipe is the plain outstanding bytes when 0
  std::size_t sacked_ = 0;
};

}  // namespace ibfsim
