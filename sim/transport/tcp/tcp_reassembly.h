// A TCP receiver's reassembly queue, in stream positions (64-bit, never wrapping): the next
// position expected (RCV.NXT) and the blocks received above it, merged, with the SACK blocks to
// report (RFC 2018 section 4: the first block holds the segment that arrived last, the others are
// the most recently reported blocks, most recent first, at most `max_blocks`).
// The application reads in-order data at once, so only out-of-order bytes take buffer room.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ibfsim {

class TcpReassembly {
 public:
  enum class Arrival { kInOrder, kFilledHole, kOutOfOrder, kDuplicate };
  using Range = std::pair<std::uint64_t, std::uint64_t>;  // [first, end)

  explicit TcpReassembly(std::uint64_t next = 0) : next_(next) {}
  void reset(std::uint64_t next) { *this = TcpReassembly(next); }
  // A segment of data [start, end).
  Arrival receive(std::uint64_t start, std::uint64_t end);
  std::uint64_t next() const { return next_; }
  std::uint64_t out_of_order_bytes() const { return ooo_bytes_; }
  std::vector<Range> sack_blocks(std::size_t max_blocks) const;

 private:
  std::uint64_t next_;
  std::map<std::uint64_t, std::uint64_t> blocks_;  // first -> end, disjoint and not touching
  std::uint64_t ooo_bytes_ = 0;
  std::vector<std::uint64_t> recent_;  // a position in each reported block, most recent first
};

}  // namespace ibfsim
