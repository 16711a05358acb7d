// Before the collect phase (scenario_run_phases.h): the tallies each rank's modules keep, put
// together across MPI ranks (rank_tallies.h) so that every rank computes results.json, classes.csv
// and the fact tables from the whole run's.
#include "sim/core/rank_event_codec.h"
#include "sim/core/rank_exchange.h"
#include "sim/workload/rank_gather.h"
#include "sim/workload/scenario_run_phases.h"
#include "sim/workload/study_figures.h"

namespace ibfsim {

namespace {

// This rank's tallies, in the shape every rank has.
RankTallies own_tallies(const ScenarioRun& run) {
  Fabric& fabric = *run.fabric;
  const Partitioning& p = fabric.partitioning();
  const auto nranks = static_cast<unsigned>(ranks::size()), me = static_cast<unsigned>(ranks::rank());
  auto mine = [&](std::size_t n) { return ranks::rank_of_partition(p.part.at(n), p.parts, nranks) == me; };
  RankTallies t;
  t.traffic.push_back(*run.all_stats);
  for (const TrafficStats& s : run.flow_stats) t.traffic.push_back(s);
  t.generator_message_latency = run.observer->generator_message_latency;
  t.generator_network_latency = run.observer->generator_network_latency;
  t.sources = run.source_counts;
  for (const FaultWatch& w : run.watches) {
    t.last_before.push_back(w.last_before);
    t.first_after.push_back(w.first_after);
  }
  // Only this rank's switches and SMAs have run: the others' figures are their initial ones.
  for (std::size_t i = 0; i < run.faults.size(); ++i) {
    const std::optional<Time> moved = fault_ar_moved(run, i);
    t.ar_moved.push_back(moved.value_or(0));
  }
  const std::size_t nodes = fabric.topology().nodes.size();
  t.m_key_violations.assign(nodes, 0);
  for (std::size_t n = 0; n < nodes; ++n) {
    const SmaShell* sma = fabric.hca_sma(n) ? static_cast<const SmaShell*>(fabric.hca_sma(n)) : fabric.switch_sma(n);
    if (!sma || !mine(n)) continue;
    for (const SmaPort& port : sma->state().ports) t.m_key_violations[n] += port.info.m_key_violations;
  }
  if (SubnetManager* sm = fabric.subnet_manager()) {
    const std::optional<std::size_t> host = fabric.topology().find_node(run.sm_host);
    IBFSIM_CHECK(host.has_value(), "the subnet manager's host is a node of the fabric");
    if (mine(*host)) t.subnet_manager = subnet_manager_facts(run, *sm);
  }
  return t;
}

// Each verbs flow's results and summary line from the rank that ran it (its hosts' rank): the
// figures it computed once, from its own counts, as one rank does.
void take_in_verbs_results(ScenarioRun& run) {
  if (run.verbs_flows.empty()) return;
  const Partitioning& p = run.fabric->partitioning();
  const auto nranks = static_cast<unsigned>(ranks::size()), me = static_cast<unsigned>(ranks::rank());
  std::vector<bool> here;
  for (const auto& f : run.verbs_flows) {
    const std::size_t node = *run.fabric->topology().find_node(f->spec().from);
    here.push_back(ranks::rank_of_partition(p.part.at(node), p.parts, nranks) == me);
  }
  VerbsFlowResults r = gather_verbs_results(run.verbs_flows, here);
  run.verbs_results = std::move(r.results);
  run.verbs_summaries = std::move(r.summaries);
}

// Each traffic class's figures from the rank that ran it (its hosts' rank), computed there once
// from its own counts, as one rank does (TrafficClass::encode_figures).
void take_in_class_figures(ScenarioRun& run) {
  if (run.classes.empty()) return;
  std::vector<std::uint8_t> mine;
  ByteWriter w(mine);
  for (std::size_t k = 0; k < run.classes.size(); ++k) {
    if (!run.classes_here.at(k)) continue;
    w.put(static_cast<std::uint64_t>(k));
    w.bytes(run.classes[k]->encode_figures());
  }
  std::vector<bool> seen(run.classes.size(), false);
  for (const auto& bytes : ranks::all_gather(mine)) {
    ByteReader r(bytes);
    while (!r.done()) {
      const auto k = static_cast<std::size_t>(r.get<std::uint64_t>());
      IBFSIM_CHECK(k < seen.size() && !seen[k], "a traffic class's figures from exactly one rank");
      seen[k] = true;
      const std::vector<std::uint8_t> figures = r.bytes();
      if (!run.classes_here[k]) run.classes[k]->take_in_figures(figures);
    }
  }
  for (std::size_t k = 0; k < seen.size(); ++k) IBFSIM_CHECK(seen[k], "a traffic class's figures from its rank");
}

// SHARP's aggregation manager's figures as bytes and back (every field, in declaration order).
void encode_sharp_manager_stats(const SharpManagerStats& s, ByteWriter& w) {
  for (std::uint64_t n : {s.jobs, s.jobs_refused, s.mads_sent, s.mads_answered, s.mads_resent, s.mads_unanswered,
                          s.jobs_unanswered, s.jobs_failed})
    w.put(n);
  w.put(s.setup_time);
}

SharpManagerStats decode_sharp_manager_stats(ByteReader& r) {
  SharpManagerStats s;
  for (std::uint64_t* n : {&s.jobs, &s.jobs_refused, &s.mads_sent, &s.mads_answered, &s.mads_resent,
                           &s.mads_unanswered, &s.jobs_unanswered, &s.jobs_failed})
    *n = r.get<std::uint64_t>();
  s.setup_time = r.get<Time>();
  return s;
}

// The collectives' rows of nccl-tests' table and their end, from the rank that ran them (their
// hosts share a partition), computed there once as one rank does; with algorithm: sharp also each
// one's set-up line and the aggregation manager's figures (the AM's host shares that partition:
// run_bring_up.cpp). The switches' aggregation nodes' rows come with the tables, each from its
// switch's rank (stats_rank_merge.h).
void take_in_collective_results(ScenarioRun& run) {
  if (run.collectives.empty()) return;
  std::vector<std::uint8_t> mine;
  ByteWriter w(mine);
  if (run.collectives_here) {
    w.put(run.sharp_manager != nullptr);
    if (run.sharp_manager) encode_sharp_manager_stats(run.sharp_manager->stats(), w);
    for (const auto& c : run.collectives) {
      w.put(c->done());
      w.put(c->error_completions());
      const std::string note = c->sharp_note();
      w.bytes(std::vector<std::uint8_t>(note.begin(), note.end()));
      w.put(static_cast<std::uint64_t>(c->rows().size()));
      for (const NcclResultRow& row : c->rows()) {
        for (std::uint64_t n : {row.size_bytes, row.count}) w.put(n);
        for (double x : {row.time_us, row.algbw_gbps, row.busbw_gbps}) w.put(x);  // by their bits
        w.put(row.wrong.has_value());
        w.put(row.wrong.value_or(0));
      }
    }
  }
  bool seen = false;
  for (const auto& bytes : ranks::all_gather(mine)) {
    if (bytes.empty()) continue;
    IBFSIM_CHECK(!seen, "the collectives' results from exactly one rank");
    seen = true;
    ByteReader r(bytes);
    const bool manager = r.get<bool>();
    IBFSIM_CHECK(manager == (run.sharp_manager != nullptr), "the aggregation manager on every rank alike");
    if (manager) {
      const SharpManagerStats stats = decode_sharp_manager_stats(r);
      if (!run.collectives_here) run.sharp_manager->take_in_stats(stats);
    }
    for (const auto& c : run.collectives) {
      const bool done = r.get<bool>();
      const auto errors = r.get<std::uint64_t>();
      const std::vector<std::uint8_t> note = r.bytes();
      std::vector<NcclResultRow> rows(r.get<std::uint64_t>());
      for (NcclResultRow& row : rows) {
        row.size_bytes = r.get<std::uint64_t>();
        row.count = r.get<std::uint64_t>();
        row.time_us = r.get<double>();
        row.algbw_gbps = r.get<double>();
        row.busbw_gbps = r.get<double>();
        const bool has_wrong = r.get<bool>();
        const auto wrong = r.get<std::uint64_t>();
        if (has_wrong) row.wrong = wrong;
      }
      if (!run.collectives_here) c->take_in_results(std::move(rows), done, errors, std::string(note.begin(), note.end()));
    }
    IBFSIM_CHECK(r.done(), "the collectives' results: bytes left over");
  }
  IBFSIM_CHECK(seen, "the collectives' results from their rank");
}

// The trace replay's ranks' results from the MPI rank that ran it (its hosts share a partition).
void take_in_trace_replay_results(ScenarioRun& run) {
  if (!run.trace_replay || run.trace_replay->results().empty()) return;
  std::vector<std::uint8_t> mine;
  ByteWriter w(mine);
  auto put_times = [&w](const std::vector<Time>& v) {
    w.put(static_cast<std::uint64_t>(v.size()));
    for (Time t : v) w.put(t);
  };
  if (run.trace_replay_here)
    for (const TraceReplayRank& x : run.trace_replay->results()) {
      w.bytes(std::vector<std::uint8_t>(x.host.begin(), x.host.end()));
      for (std::uint64_t n : {x.messages_sent, x.bytes_sent, x.messages_received, x.bytes_received, x.point_to_point_sent,
                              x.point_to_point_bytes_sent, x.point_to_point_received, x.point_to_point_bytes_received,
                              x.error_completions})
        w.put(n);
      put_times(x.posted);
      put_times(x.completed);
      w.put(x.end);
      w.put(x.done);
    }
  bool seen = false;
  for (const auto& bytes : ranks::all_gather(mine)) {
    if (bytes.empty()) continue;
    IBFSIM_CHECK(!seen, "the trace replay's results from exactly one rank");
    seen = true;
    ByteReader r(bytes);
    auto get_times = [&r] {
      std::vector<Time> v(r.get<std::uint64_t>());
      for (Time& t : v) t = r.get<Time>();
      return v;
    };
    std::vector<TraceReplayRank> results(run.trace_replay->results().size());
    for (TraceReplayRank& x : results) {
      const std::vector<std::uint8_t> host = r.bytes();
      x.host.assign(host.begin(), host.end());
      for (std::uint64_t* n : {&x.messages_sent, &x.bytes_sent, &x.messages_received, &x.bytes_received,
                               &x.point_to_point_sent, &x.point_to_point_bytes_sent, &x.point_to_point_received,
                               &x.point_to_point_bytes_received, &x.error_completions})
        *n = r.get<std::uint64_t>();
      x.posted = get_times();
      x.completed = get_times();
      x.end = r.get<Time>();
      x.done = r.get<bool>();
    }
    IBFSIM_CHECK(r.done(), "the trace replay's results: bytes left over");
    if (!run.trace_replay_here) run.trace_replay->take_in_results(std::move(results));
  }
  IBFSIM_CHECK(seen, "the trace replay's results from its rank");
}

}  // namespace

void take_in_rank_tallies(ScenarioRun& run) {
  run.source_counts.clear();
  for (const auto& gens : run.flow_generators) run.source_counts.push_back(source_counts(gens));
  if (!ranks::several()) return;
  const RankTallies mine = own_tallies(run);
  std::vector<RankTallies> per_rank;
  for (const auto& bytes : ranks::all_gather(encode_rank_tallies(mine))) per_rank.push_back(decode_rank_tallies(bytes, mine));
  RankTallies all = merge_rank_tallies(per_rank);
  run.all_stats = all.traffic.front();
  for (std::size_t k = 0; k < run.flow_stats.size(); ++k) run.flow_stats[k] = all.traffic.at(k + 1);
  run.observer->generator_message_latency = all.generator_message_latency;
  run.observer->generator_network_latency = all.generator_network_latency;
  run.source_counts = all.sources;
  for (std::size_t i = 0; i < run.watches.size(); ++i) {
    run.watches[i].last_before = all.last_before.at(i);
    run.watches[i].first_after = all.first_after.at(i);
  }
  run.ar_moved = all.ar_moved;
  if (all.subnet_manager && all.subnet_manager->m_key) {
    // Each node's violations from its own rank.
    auto& v = all.subnet_manager->m_key->violations;
    v.clear();
    for (std::size_t n = 0; n < all.m_key_violations.size(); ++n)
      if (all.m_key_violations[n]) v.emplace_back(run.fabric->topology().nodes[n].name, all.m_key_violations[n]);
  }
  run.sm_facts = all.subnet_manager;
  take_in_verbs_results(run);
  take_in_class_figures(run);
  take_in_collective_results(run);
  take_in_trace_replay_results(run);
}

}  // namespace ibfsim
