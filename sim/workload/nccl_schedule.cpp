#include "sim/workload/nccl_schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "sim/core/error.h"

namespace ibfsim {

namespace {

// Part k of `total` split into `parts`: floor(total/parts), one more for k < total mod parts.
std::uint64_t share(std::uint64_t total, std::uint64_t parts, std::uint64_t k) {
  return total / parts + (k < total % parts ? 1 : 0);
}

struct Builder {
  const NcclPlan& plan;
  std::vector<NcclTransfer> out;
  std::uint32_t add(std::uint32_t channel, std::uint32_t src, std::uint32_t dst, std::uint64_t elems, bool reduce,
                    std::uint32_t a = kNcclNoTransfer, std::uint32_t b = kNcclNoTransfer) {
    NcclTransfer t;
    t.channel = channel;
    t.src = src;
    t.dst = dst;
    t.bytes = elems * plan.type_bytes;
    t.reduce = reduce;
    t.after = {a, b};
    out.push_back(t);
    return static_cast<std::uint32_t>(out.size() - 1);
  }
};

// The rank at position i of channel ch's ring.
std::uint32_t ring_rank(const NcclPlan& plan, std::uint32_t ch, std::uint32_t i) {
  return plan.rings.empty() ? i : plan.rings[ch % plan.rings.size()][i];
}

// Ring allreduce, allgather or reducescatter over one channel's `elems` elements. Positions i on
// the ring are ranks ring_rank(i).
void ring(Builder& b, std::uint32_t ch, std::uint64_t elems) {
  const std::uint32_t n = b.plan.ranks;
  const std::uint64_t chunk = std::max<std::uint64_t>(1, b.plan.chunk_bytes / b.plan.type_bytes);
  const NcclOp op = b.plan.op;
  const std::uint32_t steps = op == NcclOp::kAllReduce ? 2 * (n - 1) : n - 1;
  std::vector<std::uint32_t> prev(n), cur(n);
  for (std::uint64_t off = 0; off < elems || (off == 0 && elems == 0); off += n * chunk) {
    const std::uint64_t loop = std::min<std::uint64_t>(elems - off, n * chunk);
    for (std::uint32_t s = 0; s < steps; ++s) {
      for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t seg;
        bool reduce = false;
        if (op == NcclOp::kAllGather) seg = (i + n - s) % n;
        else if (op == NcclOp::kReduceScatter) {
          seg = (i + 2 * n - s - 1) % n;
          reduce = s >= 1;
        } else if (s < n - 1) {
          seg = (i + n - s) % n;
          reduce = s >= 1;
        } else {
          seg = (i + 1 + n - (s - (n - 1))) % n;
          reduce = s == n - 1;
        }
        const std::uint32_t left = (i + n - 1) % n;
        cur[i] = b.add(ch, ring_rank(b.plan, ch, i), ring_rank(b.plan, ch, (i + 1) % n), share(loop, n, seg), reduce,
                       s == 0 ? kNcclNoTransfer : prev[left]);
      }
      prev.swap(cur);
    }
    if (elems == 0) break;
  }
}

void broadcast(Builder& b, std::uint32_t ch, std::uint64_t elems) {
  const std::uint32_t n = b.plan.ranks;
  std::uint32_t root = 0;  // the root's position on the channel's ring
  while (ring_rank(b.plan, ch, root) != b.plan.root) ++root;
  const std::uint64_t chunk = std::max<std::uint64_t>(1, b.plan.chunk_bytes / b.plan.type_bytes);
  for (std::uint64_t off = 0; off < elems || (off == 0 && elems == 0); off += chunk) {
    const std::uint64_t len = std::min<std::uint64_t>(elems - off, chunk);
    std::uint32_t prev = kNcclNoTransfer;
    for (std::uint32_t j = 0; j + 1 < n; ++j)
      prev = b.add(ch, ring_rank(b.plan, ch, (root + j) % n), ring_rank(b.plan, ch, (root + j + 1) % n), len, false,
                   prev);
    if (elems == 0) break;
  }
}

// Every rank's block for every peer: `block` elements, this channel's share of it.
void all_to_all(Builder& b, std::uint32_t ch, std::uint64_t elems) {
  const std::uint32_t n = b.plan.ranks;
  const std::uint64_t chunk = std::max<std::uint64_t>(1, b.plan.chunk_bytes / b.plan.type_bytes);
  for (std::uint64_t off = 0; off < elems || (off == 0 && elems == 0); off += chunk) {
    const std::uint64_t len = std::min<std::uint64_t>(elems - off, chunk);
    for (std::uint32_t r = 1; r < n; ++r)
      for (std::uint32_t i = 0; i < n; ++i) b.add(ch, i, (i + r) % n, len, false);
    if (elems == 0) break;
  }
}

void tree(Builder& b, std::uint32_t ch, std::uint64_t elems) {
  const std::uint32_t n = b.plan.ranks;
  const unsigned which = ch < (b.plan.channels + 1) / 2 ? 0 : 1;
  std::vector<NcclTreeNode> nodes(n);
  std::uint32_t root = 0;
  for (std::uint32_t r = 0; r < n; ++r) {
    nodes[r] = nccl_double_tree(n, r, which);
    if (nodes[r].parent == kNcclNoRank) root = r;
  }
  // Children before parents going up (post-order), parents before children going down (pre-order).
  std::vector<std::uint32_t> post, pre;
  std::function<void(std::uint32_t)> walk = [&](std::uint32_t r) {
    pre.push_back(r);
    for (std::uint32_t c : nodes[r].children)
      if (c != kNcclNoRank) walk(c);
    post.push_back(r);
  };
  walk(root);
  const std::uint64_t chunk = std::max<std::uint64_t>(1, b.plan.chunk_bytes / b.plan.type_bytes);
  std::vector<std::uint32_t> up(n, kNcclNoTransfer), down(n, kNcclNoTransfer);  // by sender / receiver
  for (std::uint64_t off = 0; off < elems || (off == 0 && elems == 0); off += chunk) {
    const std::uint64_t len = std::min<std::uint64_t>(elems - off, chunk);
    auto child_ups = [&](std::uint32_t r) {
      std::array<std::uint32_t, 2> a{kNcclNoTransfer, kNcclNoTransfer};
      std::size_t k = 0;
      for (std::uint32_t c : nodes[r].children)
        if (c != kNcclNoRank) a[k++] = up[c];
      return a;
    };
    for (std::uint32_t r : post) {
      if (r == root) continue;
      const auto a = child_ups(r);
      up[r] = b.add(ch, r, nodes[r].parent, len, a[0] != kNcclNoTransfer, a[0], a[1]);
    }
    for (std::uint32_t r : pre)
      for (std::uint32_t c : nodes[r].children) {
        if (c == kNcclNoRank) continue;
        if (r == root) {
          const auto a = child_ups(r);
          down[c] = b.add(ch, r, c, len, true, a[0], a[1]);
        } else {
          down[c] = b.add(ch, r, c, len, false, down[r]);
        }
      }
    if (elems == 0) break;
  }
}

}  // namespace

const char* nccl_op_name(NcclOp op) {
  switch (op) {
    case NcclOp::kAllReduce: return "allreduce";
    case NcclOp::kAllGather: return "allgather";
    case NcclOp::kReduceScatter: return "reducescatter";
    case NcclOp::kAllToAll: return "alltoall";
    case NcclOp::kBroadcast: break;
  }
  return "broadcast";
}

const char* nccl_algorithm_name(NcclAlgorithm a) {
  return a == NcclAlgorithm::kRing ? "ring" : a == NcclAlgorithm::kTree ? "tree" : "sharp";
}

std::uint64_t nccl_round_size(const NcclPlan& plan, std::uint64_t size_bytes) {
  const bool per_rank = plan.op == NcclOp::kAllGather || plan.op == NcclOp::kReduceScatter || plan.op == NcclOp::kAllToAll;
  const std::uint64_t unit = std::uint64_t{plan.type_bytes} * (per_rank ? plan.ranks : 1);
  return size_bytes / unit * unit;
}

double nccl_bus_factor(NcclOp op, std::uint32_t ranks) {
  const double n = ranks;
  switch (op) {
    case NcclOp::kAllReduce: return 2 * (n - 1) / n;
    case NcclOp::kBroadcast: return 1;
    default: break;
  }
  return (n - 1) / n;
}

NcclTreeNode nccl_btree(std::uint32_t ranks, std::uint32_t rank) {
  const std::int64_t n = ranks, r = rank;
  std::int64_t bit = 1;
  for (; bit < n; bit <<= 1)
    if (bit & r) break;
  NcclTreeNode t;
  auto out = [](std::int64_t v) { return v < 0 ? kNcclNoRank : static_cast<std::uint32_t>(v); };
  if (r == 0) {
    t.children[1] = out(n > 1 ? bit >> 1 : -1);
    return t;
  }
  std::int64_t up = (r ^ bit) | (bit << 1);
  if (up >= n) up = r ^ bit;  // the parent's other child position is past the last rank
  t.parent = out(up);
  std::int64_t low = bit >> 1;
  t.children[0] = out(low == 0 ? -1 : r - low);
  std::int64_t d1 = low == 0 ? -1 : r + low;
  while (d1 >= n) {  // the right child is the largest r + 2^k below n, if any
    low >>= 1;
    d1 = low == 0 ? -1 : r + low;
  }
  t.children[1] = out(d1);
  return t;
}

NcclTreeNode nccl_double_tree(std::uint32_t ranks, std::uint32_t rank, unsigned tree) {
  if (tree == 0) return nccl_btree(ranks, rank);
  const std::uint32_t n = ranks;
  NcclTreeNode t;
  auto map = [&](std::uint32_t v, bool shift) {
    if (v == kNcclNoRank) return kNcclNoRank;
    return shift ? (v + 1) % n : n - 1 - v;
  };
  const bool shift = n % 2 == 1;
  const NcclTreeNode b = nccl_btree(n, shift ? (rank + n - 1) % n : n - 1 - rank);
  t.parent = map(b.parent, shift);
  t.children = {map(b.children[0], shift), map(b.children[1], shift)};
  return t;
}

std::vector<NcclTransfer> nccl_schedule(const NcclPlan& plan, std::uint64_t size_bytes) {
  IBFSIM_CHECK(plan.ranks >= 2 && plan.channels >= 1 && plan.type_bytes >= 1 && plan.root < plan.ranks,
               "nccl schedule: bad plan");
  IBFSIM_CHECK(plan.algorithm == NcclAlgorithm::kRing || plan.op == NcclOp::kAllReduce,
               "nccl schedule: tree is for allreduce only");
  IBFSIM_CHECK(plan.algorithm != NcclAlgorithm::kSharp, "nccl schedule: SHARP reduces in the switches (no transfers)");
  for (const std::vector<std::uint32_t>& r : plan.rings) {
    std::vector<bool> seen(plan.ranks, false);
    IBFSIM_CHECK(r.size() == plan.ranks, "nccl schedule: a ring of every rank");
    for (std::uint32_t x : r) {
      IBFSIM_CHECK(x < plan.ranks && !seen[x], "nccl schedule: a ring of every rank once");
      seen[x] = true;
    }
  }
  Builder b{plan, {}};
  std::uint64_t elems = size_bytes / plan.type_bytes;
  if (plan.op == NcclOp::kAllToAll) elems /= plan.ranks;  // each block
  for (std::uint32_t c = 0; c < plan.channels; ++c) {
    const std::uint64_t mine = share(elems, plan.channels, c);
    if (plan.algorithm == NcclAlgorithm::kTree) tree(b, c, mine);
    else if (plan.op == NcclOp::kBroadcast) broadcast(b, c, mine);
    else if (plan.op == NcclOp::kAllToAll) all_to_all(b, c, mine);
    else ring(b, c, mine);
  }
  return std::move(b.out);
}

std::string nccl_transfer_text(const NcclTransfer& t) {
  std::string s = fmt::format("{}->{} ch{} {}B", t.src, t.dst, t.channel, t.bytes);
  if (t.after[0] != kNcclNoTransfer) {
    s += fmt::format(" after {}", t.after[0]);
    if (t.after[1] != kNcclNoTransfer) s += fmt::format(",{}", t.after[1]);
  }
  if (t.reduce) s += " reduce";
  return s;
}

}  // namespace ibfsim
