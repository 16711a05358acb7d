#include "sim/workload/rank_tallies.h"

#include <algorithm>
#include <string>

#include "sim/core/error.h"
#include "sim/core/byte_strings.h"
#include "sim/core/rank_event_codec.h"

namespace ibfsim {

namespace {


void put_times(ByteWriter& w, const std::vector<Time>& v) {
  w.put(static_cast<std::uint64_t>(v.size()));
  for (Time t : v) w.put(t);
}
std::vector<Time> get_times(ByteReader& r) {
  std::vector<Time> v(r.get<std::uint64_t>());
  for (Time& t : v) t = r.get<Time>();
  return v;
}

}  // namespace

void encode_subnet_manager_facts(const SubnetManagerFacts& f, ByteWriter& w) {
  put_string(w, f.host);
  w.put(f.port);
  put_string(w, f.routing);
  w.put(f.lmc);
  w.put(f.smps_sent);
  w.put(f.traps_received);
  w.put(f.configured);
  w.put(static_cast<std::uint64_t>(f.sweeps.size()));
  for (const SweepFacts& s : f.sweeps) {
    put_string(w, s.trigger);
    w.put(s.started);
    w.put(s.done);
    for (std::uint64_t n : {s.smps, s.requests, s.retries, s.errors, s.lft_blocks}) w.put(n);
    for (std::size_t n : {s.nodes, s.switches, s.links}) w.put(static_cast<std::uint64_t>(n));
    w.put(s.ar_smps.has_value());
    w.put(s.ar_smps.value_or(0));
  }
  w.put(static_cast<std::uint64_t>(f.notes.size()));
  for (const std::string& n : f.notes) put_string(w, n);
  w.put(f.m_key.has_value());
  if (f.m_key) {
    w.put(f.m_key->protect_bits);
    w.put(f.m_key->lease_period_s);
    w.put(f.m_key->bad_m_key_traps);
    w.put(static_cast<std::uint64_t>(f.m_key->violations.size()));
    for (const auto& [node, n] : f.m_key->violations) {
      put_string(w, node);
      w.put(n);
    }
  }
}

SubnetManagerFacts decode_subnet_manager_facts(ByteReader& r) {
  SubnetManagerFacts f;
  f.host = get_string(r);
  f.port = r.get<unsigned>();
  f.routing = get_string(r);
  f.lmc = r.get<unsigned>();
  f.smps_sent = r.get<std::uint64_t>();
  f.traps_received = r.get<std::uint64_t>();
  f.configured = r.get<bool>();
  f.sweeps.resize(r.get<std::uint64_t>());
  for (SweepFacts& s : f.sweeps) {
    s.trigger = get_string(r);
    s.started = r.get<Time>();
    s.done = r.get<Time>();
    for (std::uint64_t* n : {&s.smps, &s.requests, &s.retries, &s.errors, &s.lft_blocks}) *n = r.get<std::uint64_t>();
    for (std::size_t* n : {&s.nodes, &s.switches, &s.links}) *n = static_cast<std::size_t>(r.get<std::uint64_t>());
    const bool ar = r.get<bool>();
    const auto ar_smps = r.get<std::uint64_t>();
    if (ar) s.ar_smps = ar_smps;
  }
  f.notes.resize(r.get<std::uint64_t>());
  for (std::string& n : f.notes) n = get_string(r);
  if (r.get<bool>()) {
    SubnetManagerFacts::MKeyFacts m;
    m.protect_bits = r.get<unsigned>();
    m.lease_period_s = r.get<unsigned>();
    m.bad_m_key_traps = r.get<std::uint64_t>();
    m.violations.resize(r.get<std::uint64_t>());
    for (auto& [node, n] : m.violations) {
      node = get_string(r);
      n = r.get<std::uint64_t>();
    }
    f.m_key = std::move(m);
  }
  return f;
}

std::vector<std::uint8_t> encode_rank_tallies(const RankTallies& t) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  w.put(static_cast<std::uint64_t>(t.traffic.size()));
  for (const TrafficStats& s : t.traffic) s.encode(w);
  t.generator_message_latency.encode(w);
  t.generator_network_latency.encode(w);
  w.put(static_cast<std::uint64_t>(t.sources.size()));
  for (const FlowSourceCounts& s : t.sources) {
    w.put(s.posted);
    w.put(s.waiting);
  }
  w.put(static_cast<std::uint64_t>(t.last_before.size()));
  for (std::size_t f = 0; f < t.last_before.size(); ++f) {
    put_times(w, t.last_before[f]);
    put_times(w, t.first_after.at(f));
  }
  put_times(w, t.ar_moved);
  w.put(static_cast<std::uint64_t>(t.m_key_violations.size()));
  for (std::uint64_t n : t.m_key_violations) w.put(n);
  w.put(t.subnet_manager.has_value());
  if (t.subnet_manager) encode_subnet_manager_facts(*t.subnet_manager, w);
  return out;
}

RankTallies decode_rank_tallies(const std::vector<std::uint8_t>& bytes, const RankTallies& shape) {
  ByteReader r(bytes);
  RankTallies t;
  const auto shape_check = [](bool ok) { IBFSIM_CHECK(ok, "a rank's tallies of another run's shape"); };
  shape_check(r.get<std::uint64_t>() == shape.traffic.size());
  for (const TrafficStats& like : shape.traffic) t.traffic.push_back(like.decoded(r));
  t.generator_message_latency = LatencyHistogram::decode(r);
  t.generator_network_latency = LatencyHistogram::decode(r);
  t.sources.resize(r.get<std::uint64_t>());
  shape_check(t.sources.size() == shape.sources.size());
  for (FlowSourceCounts& s : t.sources) {
    s.posted = r.get<std::uint64_t>();
    s.waiting = r.get<std::uint64_t>();
  }
  const auto faults = r.get<std::uint64_t>();
  shape_check(faults == shape.last_before.size());
  for (std::uint64_t f = 0; f < faults; ++f) {
    t.last_before.push_back(get_times(r));
    t.first_after.push_back(get_times(r));
    shape_check(t.last_before.back().size() == shape.last_before[f].size() &&
                t.first_after.back().size() == shape.first_after.at(f).size());
  }
  t.ar_moved = get_times(r);
  shape_check(t.ar_moved.size() == shape.ar_moved.size());
  t.m_key_violations.resize(r.get<std::uint64_t>());
  shape_check(t.m_key_violations.size() == shape.m_key_violations.size());
  for (std::uint64_t& n : t.m_key_violations) n = r.get<std::uint64_t>();
  if (r.get<bool>()) t.subnet_manager = decode_subnet_manager_facts(r);
  IBFSIM_CHECK(r.done(), "a rank's tallies: bytes left over");
  return t;
}

RankTallies merge_rank_tallies(const std::vector<RankTallies>& per_rank) {
  IBFSIM_CHECK(!per_rank.empty(), "tallies of at least one rank");
  RankTallies m = per_rank.front();
  for (std::size_t r = 1; r < per_rank.size(); ++r) {
    const RankTallies& o = per_rank[r];
    IBFSIM_CHECK(o.traffic.size() == m.traffic.size() && o.sources.size() == m.sources.size() &&
                     o.last_before.size() == m.last_before.size() && o.ar_moved.size() == m.ar_moved.size() &&
                     o.m_key_violations.size() == m.m_key_violations.size(),
                 "ranks' tallies of different shapes");
    for (std::size_t k = 0; k < m.traffic.size(); ++k) m.traffic[k].merge(o.traffic[k]);
    m.generator_message_latency.merge(o.generator_message_latency);
    m.generator_network_latency.merge(o.generator_network_latency);
    for (std::size_t k = 0; k < m.sources.size(); ++k) {
      m.sources[k].posted += o.sources[k].posted;
      m.sources[k].waiting += o.sources[k].waiting;
    }
    for (std::size_t f = 0; f < m.last_before.size(); ++f)
      for (std::size_t n = 0; n < m.last_before[f].size(); ++n) {
        m.last_before[f][n] = std::min(m.last_before[f][n], o.last_before[f].at(n));
        m.first_after[f][n] = std::min(m.first_after[f][n], o.first_after[f].at(n));
      }
    for (std::size_t f = 0; f < m.ar_moved.size(); ++f) m.ar_moved[f] = std::max(m.ar_moved[f], o.ar_moved[f]);
    for (std::size_t n = 0; n < m.m_key_violations.size(); ++n) m.m_key_violations[n] += o.m_key_violations[n];
    if (o.subnet_manager) {
      IBFSIM_CHECK(!m.subnet_manager, "the subnet manager's facts from two ranks");
      m.subnet_manager = o.subnet_manager;
    }
  }
  return m;
}

}  // namespace ibfsim
