#include "sim/workload/mpi_replay_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <utility>

#include "sim/core/error.h"

namespace ibfsim {

namespace {

class Planner {
 public:
  explicit Planner(const MpiTrace& trace) : trace_(trace), n_(static_cast<std::uint32_t>(trace.ranks.size())) {
    plan_.steps.resize(n_);
    plan_.by_pair.resize(std::size_t{n_} * n_);
  }

  ReplayPlan run() {
    pair_point_to_point();
    // Per communicator (its members, world ranks in its own order), per member: its collective
    // calls' indices. The k-th call of every member is one operation.
    std::vector<std::uint32_t> world(n_);
    for (std::uint32_t r = 0; r < n_; ++r) world[r] = r;
    std::map<std::vector<std::uint32_t>, std::map<std::uint32_t, std::vector<std::uint32_t>>> by_comm;
    for (std::uint32_t r = 0; r < n_; ++r)
      for (std::uint32_t i = 0; i < trace_.ranks[r].calls.size(); ++i) {
        const MpiCall& c = trace_.ranks[r].calls[i];
        if (c.kind == MpiCallKind::kCollective) by_comm[c.comm.empty() ? world : c.comm][r].push_back(i);
      }
    // Collectives decomposed; the steps of each rank are then put in call order.
    std::vector<std::map<std::uint32_t, std::vector<ReplayStep>>> coll_steps(n_);
    for (auto& [members, collectives] : by_comm) {
      const bool whole = members == world;
      const std::string on = whole ? "" : fmt::format(" on the communicator of ranks {}", fmt::join(members, ","));
      const auto& first = collectives[members.front()];
      for (const std::uint32_t r : members)
        if (collectives[r].size() != first.size())
          fail(fmt::format("rank {} makes {} collective calls{} and rank {} makes {}; every rank must make the same",
                           members.front(), first.size(), on, r, collectives[r].size()));
      for (std::size_t k = 0; k < first.size(); ++k) {
        std::vector<const MpiCall*> calls;
        for (const std::uint32_t r : members) calls.push_back(&trace_.ranks[r].calls[collectives[r][k]]);
        for (std::size_t i = 1; i < members.size(); ++i)
          if (calls[i]->op != calls[0]->op || calls[i]->root != calls[0]->root)
            fail(fmt::format("collective call {}{} is {} on rank {} but {} on rank {}", k, on,
                             mpi_collective_name(calls[0]->op), members.front(), mpi_collective_name(calls[i]->op),
                             members[i]));
        auto steps = decompose(calls, members);
        for (std::size_t i = 0; i < members.size(); ++i)
          coll_steps[members[i]][collectives[members[i]][k]] = std::move(steps[i]);
      }
    }
    for (std::uint32_t r = 0; r < n_; ++r) {
      const auto& calls = trace_.ranks[r].calls;
      for (std::uint32_t i = 0; i < calls.size(); ++i) {
        if (calls[i].kind != MpiCallKind::kCollective) {
          plan_.steps[r].push_back(p2p_steps_[r].at(i));
          continue;
        }
        auto& steps = coll_steps[r][i];
        if (steps.empty()) steps.emplace_back();  // a rank with no part still makes the call
        for (std::size_t s = 0; s < steps.size(); ++s) {
          steps[s].call = i;
          steps[s].gap = s == 0 ? calls[i].gap : 0;
          plan_.steps[r].push_back(std::move(steps[s]));
        }
      }
    }
    return std::move(plan_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw InputError(fmt::format("{}: {}", trace_.file, what)); }

  std::uint32_t add_message(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint32_t tag,
                            bool collective) {
    auto& pair = plan_.by_pair[std::size_t{src} * n_ + dst];
    ReplayMessage m;
    m.src = src, m.dst = dst, m.bytes = bytes, m.tag = tag, m.collective = collective;
    const auto id = static_cast<std::uint32_t>(plan_.messages.size());
    plan_.messages.push_back(m);
    pair.push_back(id);
    return id;
  }

  // Sends and receives in program order per pair; the i-th send from a to b is the i-th receive
  // at b from a.
  void pair_point_to_point() {
    p2p_steps_.resize(n_);
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::pair<std::uint32_t, std::uint32_t>>> sends, recvs;
    for (std::uint32_t r = 0; r < n_; ++r) {
      const auto& calls = trace_.ranks[r].calls;
      for (std::uint32_t i = 0; i < calls.size(); ++i) {
        const MpiCallKind k = calls[i].kind;
        if (k == MpiCallKind::kSend || k == MpiCallKind::kIsend) sends[{r, calls[i].peer}].push_back({r, i});
        if (k == MpiCallKind::kRecv || k == MpiCallKind::kIrecv) recvs[{calls[i].peer, r}].push_back({r, i});
      }
    }
    for (const auto& [pair, list] : recvs)
      if (!sends.count(pair))
        fail(fmt::format("rank {} receives {} message(s) from rank {}, which sends it none", pair.second, list.size(),
                         pair.first));
    for (const auto& [pair, list] : sends) {
      const auto& rl = recvs[pair];
      if (rl.size() != list.size())
        fail(fmt::format("rank {} sends {} message(s) to rank {}, which receives {}", pair.first, list.size(),
                         pair.second, rl.size()));
      for (std::size_t k = 0; k < list.size(); ++k) {
        const MpiCall& s = trace_.ranks[pair.first].calls[list[k].second];
        const MpiCall& v = trace_.ranks[pair.second].calls[rl[k].second];
        if (s.bytes != v.bytes || s.tag != v.tag)
          fail(fmt::format("message {} from rank {} to rank {}: sent as {} bytes with tag {} (call {}), received as "
                           "{} bytes with tag {} (call {})",
                           k, pair.first, pair.second, s.bytes, s.tag, list[k].second, v.bytes, v.tag, rl[k].second));
        const std::uint32_t id = add_message(pair.first, pair.second, s.bytes, s.tag, false);
        ReplayStep send, recv;
        send.call = list[k].second, send.gap = s.gap, send.sends = {id};
        if (s.kind == MpiCallKind::kSend) send.acked = {id};
        recv.call = rl[k].second, recv.gap = v.gap;
        if (v.kind == MpiCallKind::kRecv) recv.recvs = {id};
        p2p_steps_[pair.first][send.call] = send;
        p2p_steps_[pair.second][recv.call] = recv;
        message_of_[{pair.first, send.call}] = id;
        message_of_[{pair.second, recv.call}] = id;
      }
    }
    // Each wait: for the message its request posted.
    for (std::uint32_t r = 0; r < n_; ++r) {
      const auto& calls = trace_.ranks[r].calls;
      for (std::uint32_t i = 0; i < calls.size(); ++i) {
        if (calls[i].kind != MpiCallKind::kWait) continue;
        const std::uint32_t id = message_of_.at({r, calls[i].posted_call});
        ReplayStep wait;
        wait.call = i, wait.gap = calls[i].gap;
        (calls[i].completes_send ? wait.acked : wait.recvs) = {id};
        p2p_steps_[r][i] = wait;
      }
    }
  }

  // One ring exchange over the communicator's members (local indices r, their world ranks
  // `members`): in step s every r sends `bytes(r, s)` to r + dist and receives from r - dist.
  template <typename Bytes>
  void ring_steps(std::vector<std::vector<ReplayStep>>& out, const std::vector<std::uint32_t>& members,
                  std::uint32_t count, std::uint32_t dist, Bytes bytes) {
    const auto n = static_cast<std::uint32_t>(members.size());
    for (std::uint32_t s = 0; s < count; ++s) {
      std::vector<std::uint32_t> ids(n);
      for (std::uint32_t r = 0; r < n; ++r) ids[r] = add_message(members[r], members[(r + dist) % n], bytes(r, s), 0, true);
      for (std::uint32_t r = 0; r < n; ++r) {
        ReplayStep st;
        st.sends = {ids[r]};
        st.acked = {ids[r]};
        st.recvs = {ids[(r + n - dist) % n]};
        out[r].push_back(std::move(st));
      }
    }
  }

  // The steps of one collective, by local index in `members` (calls[i] is member i's call).
  std::vector<std::vector<ReplayStep>> decompose(const std::vector<const MpiCall*>& calls,
                                                 const std::vector<std::uint32_t>& members) {
    const auto n = static_cast<std::uint32_t>(members.size());  // the communicator's size
    std::vector<std::vector<ReplayStep>> out(n);
    const MpiCollectiveOp op = calls[0]->op;
    if (n < 2) return out;
    switch (op) {
      case MpiCollectiveOp::kAllreduce:
      case MpiCollectiveOp::kBarrier: {
        // Chunk c of rank r's vector: bytes_sent / n, the first bytes_sent % n chunks one byte more.
        auto chunk = [&](std::uint32_t r, std::uint32_t c) -> std::uint64_t {
          if (op == MpiCollectiveOp::kBarrier) return 0;
          const std::uint64_t total = calls[r]->bytes_sent;
          return total / n + (c < total % n ? 1 : 0);
        };
        // Reduce-scatter step s: rank r sends chunk (r - s) mod n; allgather step s: (r + 1 - s) mod n.
        ring_steps(out, members, n - 1, 1, [&](std::uint32_t r, std::uint32_t s) { return chunk(r, (r + n - s) % n); });
        ring_steps(out, members, n - 1, 1,
                   [&](std::uint32_t r, std::uint32_t s) { return chunk(r, (r + 1 + n - s) % n); });
        break;
      }
      case MpiCollectiveOp::kAllgather:
        ring_steps(out, members, n - 1, 1,
                   [&](std::uint32_t r, std::uint32_t s) { return calls[(r + n - s) % n]->bytes_sent; });
        break;
      case MpiCollectiveOp::kAlltoall:
        for (std::uint32_t k = 1; k < n; ++k)
          ring_steps(out, members, 1, k, [&](std::uint32_t r, std::uint32_t) { return calls[r]->bytes_sent / n; });
        break;
      case MpiCollectiveOp::kBcast:
      case MpiCollectiveOp::kReduce: {
        // The root is a world rank: its position in the communicator.
        const auto at = std::find(members.begin(), members.end(), calls[0]->root);
        if (calls[0]->root != kNoRoot && at == members.end())
          fail(fmt::format("a {} rooted at rank {}, which is not in its communicator", mpi_collective_name(op),
                           calls[0]->root));
        const std::uint32_t root =
            calls[0]->root == kNoRoot || at == members.end() ? 0 : static_cast<std::uint32_t>(at - members.begin());
        const bool bcast = op == MpiCollectiveOp::kBcast;
        const std::uint64_t bytes = calls[bcast ? root : (root + 1) % n]->bytes_sent;
        // Hop h: bcast from ring position root + h to the next; reduce from root + 1 + h to the
        // next, so that the chain ends at the root.
        for (std::uint32_t h = 0; h + 1 < n; ++h) {
          const std::uint32_t s = (root + h + (bcast ? 0 : 1)) % n;
          const std::uint32_t d = (s + 1) % n;
          const std::uint32_t id = add_message(members[s], members[d], bytes, 0, true);
          ReplayStep send, recv;
          send.sends = {id};
          send.acked = {id};
          recv.recvs = {id};
          out[s].push_back(send);
          out[d].push_back(recv);
        }
        break;
      }
    }
    return out;
  }

  const MpiTrace& trace_;
  std::uint32_t n_;
  ReplayPlan plan_;
  std::vector<std::map<std::uint32_t, ReplayStep>> p2p_steps_;  // by rank: call index -> its step
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> message_of_;  // (rank, call) -> message
};

}  // namespace

ReplayPlan plan_replay(const MpiTrace& trace) { return Planner(trace).run(); }

ReplayTimeline replay_timeline(const ReplayPlan& plan, Time latency, const std::string& file) {
  const std::size_t n = plan.ranks();
  ReplayTimeline t;
  t.posted.resize(n);
  t.completed.resize(n);
  std::vector<Time> sent_at(plan.messages.size(), kTimeNever);
  std::vector<Time> ready(n, 0);  // when each rank's previous step completed
  std::vector<std::size_t> next(n, 0);
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t r = 0; r < n; ++r) {
      while (next[r] < plan.steps[r].size()) {
        const ReplayStep& s = plan.steps[r][next[r]];
        const Time post = ready[r] + s.gap;
        Time done = post;
        bool blocked = false;
        for (std::uint32_t m : s.recvs) {
          if (sent_at[m] == kTimeNever) blocked = true;
          else done = std::max(done, sent_at[m] + latency);
        }
        if (blocked) {
          // Its sends go out now all the same: the step posts them before it waits.
          for (std::uint32_t m : s.sends)
            if (sent_at[m] == kTimeNever) sent_at[m] = post, progress = true;
          break;
        }
        for (std::uint32_t m : s.sends)
          if (sent_at[m] == kTimeNever) sent_at[m] = post;
        for (std::uint32_t m : s.acked) done = std::max(done, sent_at[m] + latency);
        t.posted[r].push_back(post);
        t.completed[r].push_back(done);
        ready[r] = done;
        t.end = std::max(t.end, done);
        ++next[r];
        progress = true;
      }
    }
  }
  std::string stuck;
  for (std::size_t r = 0; r < n; ++r)
    if (next[r] < plan.steps[r].size())
      stuck += fmt::format("{}rank {} at call {}", stuck.empty() ? "" : ", ", r, plan.steps[r][next[r]].call);
  if (!stuck.empty()) throw InputError(fmt::format("{}: the trace deadlocks when replayed ({})", file, stuck));
  return t;
}

}  // namespace ibfsim
