// A run's tallies across MPI ranks (sim/workload/rank_tallies.h): each rank's as bytes and back,
// and merged, give the figures of one rank that saw everything.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/rank_event_codec.h"
#include "sim/workload/rank_tallies.h"

using namespace ibfsim;

namespace {

constexpr Time kBegin = 1000, kEnd = 2000;  // the measurement window

Packet delivered(Time created, Time injected, std::uint32_t payload, bool measured) {
  Packet p;
  p.created = created;
  p.injected = injected;
  p.payload_len = payload;
  p.measured = measured;
  return p;
}

// Every tally of one shape: one generator flow, one fault, three nodes.
RankTallies empty_tallies() {
  RankTallies t;
  t.traffic.assign(2, TrafficStats(kBegin, kEnd));
  t.sources.resize(1);
  t.last_before.assign(1, std::vector<Time>(3, kTimeNever));
  t.first_after.assign(1, std::vector<Time>(3, kTimeNever));
  t.ar_moved.assign(1, 0);
  t.m_key_violations.assign(3, 0);
  return t;
}

// A delivery seen by a rank (and by the one-rank run `whole`).
void deliver(RankTallies& t, RankTallies& whole, const Packet& p, Time tail) {
  for (RankTallies* x : {&t, &whole}) {
    x->traffic[0].count(p, tail);
    x->traffic[1].count(p, tail);
    if (p.measured) {
      x->generator_message_latency.add(tail - p.created);
      x->generator_network_latency.add(tail - p.injected);
    }
  }
}

std::vector<std::uint8_t> bytes_of(const LatencyHistogram& h) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  h.encode(w);
  return out;
}

SubnetManagerFacts sm_facts() {
  SubnetManagerFacts f;
  f.host = "h1";
  f.port = 1;
  f.routing = "minhop";
  f.lmc = 2;
  f.smps_sent = 107;
  f.traps_received = 3;
  f.configured = true;
  f.sweeps.push_back(SweepFacts{"bring_up", 18104320000, 122841600000, 107, 107, 1, 0, 1, 9, 1, 8, std::nullopt});
  f.sweeps.push_back(SweepFacts{"trap", 200000000000, 0, 12, 12, 0, 2, 0, 9, 1, 7, 5});
  f.notes = {"a note"};
  f.m_key = SubnetManagerFacts::MKeyFacts{1, 60, 4, {{"sw1", 2}}};
  return f;
}

}  // namespace

TEST_CASE("rank tallies: two ranks' deliveries, as bytes and merged, give the one-rank figures", "[rank_tallies]") {
  RankTallies a = empty_tallies(), b = empty_tallies(), whole = empty_tallies();
  deliver(a, whole, delivered(1100, 1150, 2048, true), 1400);   // 300 fs, in the window
  deliver(b, whole, delivered(1200, 1210, 2048, true), 1300);   // 100 fs
  deliver(a, whole, delivered(1500, 1600, 1024, true), 1700);   // 200 fs
  deliver(b, whole, delivered(1900, 1990, 512, false), 2100);   // after the window, not measured
  a.sources[0] = {3, 1};
  b.sources[0] = {2, 0};
  a.last_before[0] = {500, kTimeNever, kTimeNever};
  b.first_after[0] = {kTimeNever, 1800, kTimeNever};
  b.ar_moved[0] = 1250;
  a.m_key_violations = {0, 0, 2};
  b.m_key_violations = {1, 0, 0};
  b.subnet_manager = sm_facts();

  std::vector<RankTallies> per_rank;
  for (const RankTallies* t : {&a, &b}) per_rank.push_back(decode_rank_tallies(encode_rank_tallies(*t), a));
  const RankTallies m = merge_rank_tallies(per_rank);

  for (std::size_t k = 0; k < 2; ++k) {
    const TrafficStats& got = m.traffic[k];
    const TrafficStats& want = whole.traffic[k];
    REQUIRE(got.latency().count() == 3);
    CHECK(got.latency().min() == 100);
    CHECK(got.latency().max() == 300);
    CHECK(got.latency().percentile(50) == 200);
    CHECK(got.latency().percentile(50) == want.latency().percentile(50));
    CHECK(got.latency().mean_fs() == want.latency().mean_fs());  // 200 exactly, from the integer sum
    CHECK(got.latency().mean_fs() == 200.0);
    CHECK(got.network_latency().percentile(99) == 250);
    CHECK(got.window_payload_bytes() == 2048 + 2048 + 1024);
    CHECK(got.window_packets() == 3);
    CHECK(got.total_payload_bytes() == 2048 + 2048 + 1024 + 512);
    CHECK(got.last_delivery() == 2100);
  }
  // Histograms merge bucket by bucket: the very bytes of the one-rank histogram.
  CHECK(bytes_of(m.generator_message_latency) == bytes_of(whole.generator_message_latency));
  CHECK(bytes_of(m.generator_network_latency) == bytes_of(whole.generator_network_latency));
  CHECK(m.generator_message_latency.count() == 3);
  CHECK(m.sources[0].posted == 5);
  CHECK(m.sources[0].waiting == 1);
  CHECK(m.last_before[0] == std::vector<Time>{500, kTimeNever, kTimeNever});
  CHECK(m.first_after[0] == std::vector<Time>{kTimeNever, 1800, kTimeNever});
  CHECK(m.ar_moved[0] == 1250);
  CHECK(m.m_key_violations == std::vector<std::uint64_t>{1, 0, 2});
  REQUIRE(m.subnet_manager.has_value());
  CHECK(m.subnet_manager->smps_sent == 107);
}

TEST_CASE("rank tallies: the subnet manager's facts cross whole", "[rank_tallies]") {
  const SubnetManagerFacts f = sm_facts();
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  encode_subnet_manager_facts(f, w);
  ByteReader r(out);
  const SubnetManagerFacts g = decode_subnet_manager_facts(r);
  CHECK(r.done());
  CHECK(g.host == "h1");
  CHECK(g.port == 1);
  CHECK(g.routing == "minhop");
  CHECK(g.lmc == 2);
  CHECK(g.smps_sent == 107);
  CHECK(g.traps_received == 3);
  CHECK(g.configured);
  REQUIRE(g.sweeps.size() == 2);
  CHECK(g.sweeps[0].trigger == "bring_up");
  CHECK(g.sweeps[0].started == 18104320000);
  CHECK(g.sweeps[0].done == 122841600000);
  CHECK(g.sweeps[0].retries == 1);
  CHECK(g.sweeps[0].links == 8);
  CHECK_FALSE(g.sweeps[0].ar_smps.has_value());
  CHECK(g.sweeps[1].errors == 2);
  CHECK(g.sweeps[1].ar_smps == std::optional<std::uint64_t>(5));
  CHECK(g.notes == std::vector<std::string>{"a note"});
  REQUIRE(g.m_key.has_value());
  CHECK(g.m_key->lease_period_s == 60);
  CHECK(g.m_key->bad_m_key_traps == 4);
  CHECK(g.m_key->violations == std::vector<std::pair<std::string, std::uint64_t>>{{"sw1", 2}});
}

TEST_CASE("rank tallies: two subnet managers or another shape are invariant failures", "[rank_tallies]") {
  RankTallies a = empty_tallies(), b = empty_tallies();
  a.subnet_manager = sm_facts();
  b.subnet_manager = sm_facts();
  CHECK_THROWS_AS(merge_rank_tallies({a, b}), SimError);
  RankTallies c = empty_tallies();
  c.m_key_violations.push_back(0);  // a fabric of four nodes
  CHECK_THROWS_AS(decode_rank_tallies(encode_rank_tallies(c), a), SimError);
  std::vector<std::uint8_t> cut = encode_rank_tallies(a);
  cut.pop_back();
  CHECK_THROWS_AS(decode_rank_tallies(cut, a), SimError);
}
