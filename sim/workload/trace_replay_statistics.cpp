#include "sim/workload/trace_replay_statistics.h"

namespace ibfsim {

namespace {

struct RankRow {
  const TraceReplay* replay = nullptr;
  std::uint32_t rank = 0;
  const TraceReplayRank& r() const { return replay->results()[rank]; }
  // The trace's own end of this rank: its last call's end.
  Time trace_end() const {
    const auto& calls = replay->spec().trace->ranks[rank].calls;
    return calls.empty() ? 0 : calls.back().end;
  }
};

struct StepRow {
  const TraceReplay* replay = nullptr;
  std::uint32_t rank = 0, step = 0;
  const TraceReplayRank& r() const { return replay->results()[rank]; }
  const ReplayStep& s() const { return replay->plan().steps[rank][step]; }
  Time posted() const { return step < r().posted.size() ? r().posted[step] : 0; }
  Time completed() const { return step < r().completed.size() ? r().completed[step] : 0; }
};

}  // namespace

void register_trace_replay_statistics(StatsRegistry& reg, const TraceReplay* replay) {
  if (!replay) return;
  const auto n = static_cast<std::uint32_t>(replay->results().size());
  auto totals = reg.add_kind<const TraceReplay*>("trace_replay", {});
  auto sum = [](const TraceReplay* t, std::uint64_t TraceReplayRank::*f) {
    std::uint64_t s = 0;
    for (const TraceReplayRank& r : t->results()) s += r.*f;
    return s;
  };
  totals
      .counter("trace_replay.messages_sent", "messages", kResultsTop,
               [sum](const TraceReplay* t) { return sum(t, &TraceReplayRank::messages_sent); })
      .counter("trace_replay.bytes_sent", "bytes", kResultsTop,
               [sum](const TraceReplay* t) { return sum(t, &TraceReplayRank::bytes_sent); })
      .counter("trace_replay.messages_received", "messages", kResultsTop,
               [sum](const TraceReplay* t) { return sum(t, &TraceReplayRank::messages_received); })
      .counter("trace_replay.bytes_received", "bytes", kResultsTop,
               [sum](const TraceReplay* t) { return sum(t, &TraceReplayRank::bytes_received); })
      .counter("trace_replay.error_completions", "completions", kResultsTop,
               [sum](const TraceReplay* t) { return sum(t, &TraceReplayRank::error_completions); })
      .figure("trace_replay.done", "", Merge::kSame, kResultsTop, [](const TraceReplay* t) { return t->done() ? 1 : 0; })
      .figure("trace_replay.duration_ns", "ns", Merge::kSame, kResultsTop,
              [](const TraceReplay* t) { return to_ns(t->duration()); }, 6)
      .figure("trace_replay.trace_duration_ns", "ns", Merge::kSame, kResultsTop,
              [](const TraceReplay* t) { return to_ns(t->spec().trace->duration); }, 6);
  totals.add(replay, kNoStatParent);

  constexpr StatOutputs kRanks = kTraceRanksCsv;
  auto ranks = reg.add_kind<RankRow>("trace_ranks", {"rank"});
  ranks.attribute("host", kRanks, [](const RankRow& x) { return x.r().host; })
      .counter("messages_sent", "messages", kRanks, [](const RankRow& x) { return x.r().messages_sent; })
      .counter("bytes_sent", "bytes", kRanks, [](const RankRow& x) { return x.r().bytes_sent; })
      .counter("messages_received", "messages", kRanks, [](const RankRow& x) { return x.r().messages_received; })
      .counter("bytes_received", "bytes", kRanks, [](const RankRow& x) { return x.r().bytes_received; })
      .counter("point_to_point_sent", "messages", kRanks, [](const RankRow& x) { return x.r().point_to_point_sent; })
      .counter("point_to_point_bytes_sent", "bytes", kRanks,
               [](const RankRow& x) { return x.r().point_to_point_bytes_sent; })
      .counter("point_to_point_received", "messages", kRanks,
               [](const RankRow& x) { return x.r().point_to_point_received; })
      .counter("point_to_point_bytes_received", "bytes", kRanks,
               [](const RankRow& x) { return x.r().point_to_point_bytes_received; })
      .counter("steps_completed", "steps", kRanks, [](const RankRow& x) { return std::uint64_t{x.r().completed.size()}; })
      .figure("end_ns", "ns", Merge::kSame, kRanks, [](const RankRow& x) { return to_ns(x.r().end); }, 6)
      .figure("trace_end_ns", "ns", Merge::kSame, kRanks, [](const RankRow& x) { return to_ns(x.trace_end()); }, 6);
  for (std::uint32_t r = 0; r < n; ++r) ranks.add(RankRow{replay, r}, kNoStatParent, r);

  constexpr StatOutputs kSteps = kTraceStepsCsv;
  auto steps = reg.add_kind<StepRow>("trace_steps", {"rank", "step"});
  steps.figure("call", "", Merge::kSame, kSteps, [](const StepRow& x) { return std::uint64_t{x.s().call}; })
      .figure("gap_fs", "fs", Merge::kSame, kSteps, [](const StepRow& x) { return x.s().gap; })
      .figure("posted_fs", "fs", Merge::kSame, kSteps, [](const StepRow& x) { return x.posted(); })
      .figure("completed_fs", "fs", Merge::kSame, kSteps, [](const StepRow& x) { return x.completed(); });
  for (std::uint32_t r = 0; r < n; ++r)
    for (std::uint32_t s = 0; s < replay->plan().steps[r].size(); ++s)
      steps.add(StepRow{replay, r, s}, kNoStatParent, r, s);
}

}  // namespace ibfsim
