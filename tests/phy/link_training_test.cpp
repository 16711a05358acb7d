#include <catch2/catch.hpp>

#include "sim/phy/link_training.h"

using namespace ibfsim;

namespace {
// PortInfo-style sets, as sim/fabric/topology.h encodes them.
constexpr std::uint8_t speeds_up_to(LinkSpeed s) {
  return static_cast<std::uint8_t>((2u << static_cast<unsigned>(s)) - 1);
}
constexpr std::uint8_t k1x = 1, k4x = 2, k8x = 4, k12x = 8, k2x = 16;
}  // namespace

TEST_CASE("TS1 and TS2 are COM, the lane id and 14 D10.2 or D5.2", "[phy][training]") {
  const TrainingSet8b10b ts1 = make_training_set_8b10b(TrainingSetKind::kTs1, 3);
  CHECK(ts1[0] == sym8b10b::kCom);
  CHECK(ts1[1] == data_symbol(3));
  for (unsigned i = 2; i < 16; ++i) CHECK(ts1[i] == d_symbol(10, 2));
  const TrainingSet8b10b ts2 = make_training_set_8b10b(TrainingSetKind::kTs2, 11);
  for (unsigned i = 2; i < 16; ++i) CHECK(ts2[i] == d_symbol(5, 2));

  auto info = parse_training_set_8b10b(ts1);
  REQUIRE(info);
  CHECK(info->kind == TrainingSetKind::kTs1);
  CHECK(info->lane_id == 3);
  info = parse_training_set_8b10b(ts2);
  REQUIRE(info);
  CHECK(info->kind == TrainingSetKind::kTs2);
  CHECK(info->lane_id == 11);

  TrainingSet8b10b broken = ts1;
  broken[9] = d_symbol(5, 2);
  CHECK_FALSE(parse_training_set_8b10b(broken));
  broken = ts1;
  broken[0] = sym8b10b::kSkp;
  CHECK_FALSE(parse_training_set_8b10b(broken));

  const Block66 b = make_training_block(TrainingSetKind::kTs2, 7);
  CHECK(is_alignment_block(b));
  info = parse_training_block(b);
  REQUIRE(info);
  CHECK(info->kind == TrainingSetKind::kTs2);
  CHECK(info->lane_id == 7);
  CHECK_FALSE(parse_training_block(make_skip_block(7)));

  CHECK(lanes_reversed({0, 1, 2, 3}) == false);
  CHECK(lanes_reversed({3, 2, 1, 0}) == true);
  CHECK(lanes_reversed({0}) == false);
  CHECK_FALSE(lanes_reversed({0, 2, 1, 3}).has_value());
}

TEST_CASE("training picks the best common speed: a 4x EDR HCA on a 4x HDR switch port comes up 4x EDR",
          "[phy][training]") {
  const PortLinkCaps hca{speeds_up_to(LinkSpeed::kEdr), k1x | k4x};
  const PortLinkCaps sw{speeds_up_to(LinkSpeed::kHdr), k1x | k4x};
  const TrainingResult r = train_link(hca, sw);
  REQUIRE(r.up);
  CHECK(r.speed == LinkSpeed::kEdr);
  CHECK(r.lanes == 4);
  CHECK(r.rate().name() == "4x EDR");
  CHECK_FALSE(r.lane_reversed);
  CHECK(train_link(sw, hca).speed == LinkSpeed::kEdr);  // symmetric
}

TEST_CASE("training picks the widest common width: 12x to 4x comes up 4x", "[phy][training]") {
  const PortLinkCaps wide{0xFF, k1x | k4x | k12x};
  const PortLinkCaps narrow{0xFF, k1x | k4x};
  const TrainingResult r = train_link(wide, narrow);
  REQUIRE(r.up);
  CHECK(r.lanes == 4);
  CHECK(r.speed == LinkSpeed::kNdr);
  CHECK(train_link(PortLinkCaps{0xFF, k1x | k4x | k8x | k12x}, PortLinkCaps{0xFF, 0x1F}).lanes == 12);
  CHECK(train_link(PortLinkCaps{0xFF, k1x | k8x}, PortLinkCaps{0xFF, 0x1F}).lanes == 8);
}

TEST_CASE("training drops a 4x link with a failed lane to 1x, or to 2x where both ends enable it",
          "[phy][training]") {
  const PortLinkCaps a{speeds_up_to(LinkSpeed::kQdr), k1x | k4x};
  for (unsigned dead = 1; dead < 4; ++dead) {
    const TrainingResult r = train_link(a, a, LaneChannel{static_cast<std::uint16_t>(1u << dead), false});
    REQUIRE(r.up);
    CHECK(r.lanes == 1);
    CHECK(r.speed == LinkSpeed::kQdr);
    CHECK_FALSE(r.reason.empty());
  }
  const PortLinkCaps b{speeds_up_to(LinkSpeed::kEdr), k1x | k2x | k4x};
  CHECK(train_link(b, b, LaneChannel{0b0100, false}).lanes == 2);   // lane 2 dead: lanes 0, 1 work
  CHECK(train_link(b, b, LaneChannel{0b0010, false}).lanes == 1);   // lane 1 dead
  CHECK(train_link(b, a, LaneChannel{0b0100, false}).lanes == 1);   // 2x not enabled on both ends
  const TrainingResult dead0 = train_link(a, a, LaneChannel{0b0001, false});
  CHECK_FALSE(dead0.up);
  CHECK_FALSE(dead0.reason.empty());
}

TEST_CASE("training fails without a common speed or width and reports lane reversal", "[phy][training]") {
  CHECK_FALSE(train_link(PortLinkCaps{speeds_up_to(LinkSpeed::kQdr), k4x},
                         PortLinkCaps{static_cast<std::uint8_t>(1u << static_cast<unsigned>(LinkSpeed::kEdr)), k4x})
                  .up);
  CHECK_FALSE(train_link(PortLinkCaps{0xFF, k12x}, PortLinkCaps{0xFF, k4x}).up);
  const TrainingResult r = train_link(PortLinkCaps{}, PortLinkCaps{}, LaneChannel{0, true});
  REQUIRE(r.up);
  CHECK(r.lane_reversed);
  CHECK(r.lanes == 12);
}

TEST_CASE("training time follows the documented TS1/TS2 model", "[phy][training]") {
  // SDR phase: (256 TS1 + 16 TS2) x 16 symbols at 4 ns; QDR speed change: the same at 1 ns.
  const PortLinkCaps qdr{speeds_up_to(LinkSpeed::kQdr), k1x | k4x};
  TrainingResult r = train_link(qdr, qdr);
  CHECK(r.sdr_edges == 272 * 16);
  CHECK(r.speed_edges == 272 * 16);
  CHECK(r.duration == 272 * 16 * 4 * kNs + 272 * 16 * kNs);

  // EDR: one training block per set at 2.56 ns.
  const PortLinkCaps edr{speeds_up_to(LinkSpeed::kEdr), k1x | k4x};
  r = train_link(edr, edr);
  CHECK(r.speed_edges == 272);
  CHECK(r.duration == 272 * 16 * 4 * kNs + 272 * 2'560'000);

  // SDR only: no speed change.
  const PortLinkCaps sdr{speeds_up_to(LinkSpeed::kSdr), k1x | k4x};
  r = train_link(sdr, sdr);
  CHECK(r.speed_edges == 0);
  CHECK(r.duration == 272 * 16 * 4 * kNs);

  // A dead lane costs one more TS1 phase at SDR waiting for it.
  r = train_link(edr, edr, LaneChannel{0b1000, false});
  CHECK(r.sdr_edges == (272 + 256) * 16);

  TrainingModel m;
  m.ts1_per_phase = 10;
  m.ts2_per_phase = 2;
  CHECK(train_link(qdr, qdr, {}, m).sdr_edges == 12 * 16);
}

TEST_CASE("training ends on an edge of the final clock, from whenever it starts", "[phy][training]") {
  const PortLinkCaps edr{speeds_up_to(LinkSpeed::kEdr), k1x | k4x};
  const TrainingResult r = train_link(edr, edr);
  CHECK(training_done_at(r, 0) == r.duration);
  // From 50 us + 1 fs: the SDR phase waits for the SDR edge at 50.004 us and ends 17.408 us later
  // (67.412 us = 26,332.8125 EDR edges); the EDR phase starts at edge 26,333 and lasts 272 edges.
  CHECK(training_done_at(r, 50 * kUs + 1) == (26'333 + 272) * 2'560'000ull);
  // FDR's period is 14,080,000/3 fs: 17.408 us is 3,709.09 edges, so its phase starts at edge 3,710.
  const PortLinkCaps fdr{speeds_up_to(LinkSpeed::kFdr), k4x};
  const TrainingResult f = train_link(fdr, fdr);
  CHECK(f.duration == (3'710 + 272) * 14'080'000ull / 3);
}
