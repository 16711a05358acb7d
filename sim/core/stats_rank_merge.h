// The statistics of one run across MPI ranks (rank_exchange.h), put together on rank 0. Every rank
// builds the whole fabric and registers the same statistics, but only the modules of its own
// partitions are simulated: the other rows it reads are stale. So each rank sends its snapshot's
// rows as bytes (encode_stat_rows), and rank 0 takes each row from the rank that owns it
// (merge_rank_rows): the rank that simulates the node the row belongs to. A row no rank owns (a
// figure of the fabric as a whole, a fact of the run) is taken only when every rank has the same
// values; otherwise the output is not written across ranks (the merge says why).
//
// Pure functions over plain data: tested without MPI (tests/core/stats_rank_merge_test.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/stats_snapshot.h"

namespace ibfsim {

// A snapshot's rows (kind, parent, keys, values), as bytes. The kinds are not sent: every rank
// registers the same ones.
std::vector<std::uint8_t> encode_stat_rows(const std::vector<StatRow>& rows);
// The rows back; bytes that end early or hold an unknown value tag are an invariant failure.
std::vector<StatRow> decode_stat_rows(const std::vector<std::uint8_t>& bytes);

// The merge of every rank's rows of one output, or why there is none.
struct RankRowsMerge {
  std::vector<StatRow> rows;
  std::string disagreement;  // empty: merged
  bool merged() const { return disagreement.empty(); }
};

// `per_rank[r]`: rank r's rows (the same rows in the same order on every rank: same kind, parent
// and keys, or there is no merge). `owner(top)`: the rank owning a row whose top-level ancestor
// (itself for a top-level row) is `top`, or nullopt when no rank owns it. `kinds` names the kind in
// a disagreement.
RankRowsMerge merge_rank_rows(const std::vector<std::vector<StatRow>>& per_rank,
                              const std::vector<StatKindInfo>& kinds,
                              const std::function<std::optional<std::size_t>(const StatRow& top)>& owner);

// The merge of a table whose rows a rank registers only where it has something to say (a switch's
// congestion-control marks once the SM configured it, a QP's throttle once it has one): the ranks'
// row sets differ. Every row's top-level owner must then be some rank's (`owner(top)`: that rank,
// and the owner's place in the fabric, its node's index); rank 0 takes each rank's rows of the
// owners it simulates, ordered by that place, each owner's rows in its rank's order, as a one-rank
// run registers them node by node.
struct RankRowOwner {
  std::size_t rank = 0;
  std::size_t place = 0;
};
RankRowsMerge merge_owned_rank_rows(const std::vector<std::vector<StatRow>>& per_rank,
                                    const std::vector<StatKindInfo>& kinds,
                                    const std::function<std::optional<RankRowOwner>(const StatRow& top)>& owner);

}  // namespace ibfsim
