#include <catch2/catch.hpp>

#include "sim/report/erf_record.h"

using namespace ibfsim;

TEST_CASE("ERF record types match Wireshark's erf_record.h", "[report]") {
  CHECK(kErfTypeInfiniband == 21);
  CHECK(kErfTypeInfinibandLink == 25);
}

TEST_CASE("erf_header encodes 1.5 s + 250 ns byte by byte", "[report]") {
  // fraction = floor(0.50000025 * 2^32) = 0x80000000 + floor(1073.741824) = 0x80000431
  const auto h = erf_header(kSec + 500 * kMs + 250 * kNs, kErfTypeInfiniband, 50);
  const std::array<std::uint8_t, 16> expected = {
      0x31, 0x04, 0x00, 0x80,  // fraction, little-endian
      0x01, 0x00, 0x00, 0x00,  // seconds, little-endian
      21,                      // type InfiniBand
      0x04,                    // flags: varying length record
      0x00, 0x42,              // rlen = 16 + 50, big-endian
      0x00, 0x00,              // lctr
      0x00, 0x32,              // wlen = 50, big-endian
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("byte " << i);
    CHECK(static_cast<int>(h[i]) == static_cast<int>(expected[i]));
  }
}

TEST_CASE("erf_timestamp truncates and every whole ns reads back exactly", "[report]") {
  CHECK(erf_timestamp(0) == 0);
  CHECK(erf_timestamp(kSec) == (std::uint64_t{1} << 32));
  CHECK(erf_timestamp(kSec - 1) == (std::uint64_t{1} << 32) - 1);  // just under a second
  CHECK(erf_timestamp(kSec / 2) == 0x80000000u);
  // Wireshark reads the fraction back as (frac * 1e9 + 2^31) >> 32 ns.
  auto read_back_ns = [](std::uint64_t ts) {
    const std::uint64_t frac_ns = ((ts & 0xFFFFFFFFu) * 1'000'000'000u + 0x80000000u) >> 32;
    return (ts >> 32) * 1'000'000'000u + frac_ns;
  };
  for (std::uint64_t ns : {0ull, 1ull, 2ull, 100ull, 233ull, 999ull, 123'456'789ull, 999'999'999ull,
                           4'000'000'001ull}) {
    INFO(ns << " ns");
    CHECK(read_back_ns(erf_timestamp(ns * kNs)) == ns);
  }
  for (std::uint64_t ns = 0; ns < 100'000; ++ns) {
    if (read_back_ns(erf_timestamp(ns * kNs)) != ns) FAIL("ns " << ns << " does not round-trip");
  }
  // The largest Time: 18446 s and a fraction, still exact.
  CHECK(erf_timestamp(kTimeNever) >> 32 == kTimeNever / kSec);
  CHECK(read_back_ns(erf_timestamp(kTimeNever / kNs * kNs)) == kTimeNever / kNs);
}

TEST_CASE("erf_header rejects frames longer than a 16-bit rlen allows", "[report]") {
  CHECK_NOTHROW(erf_header(0, kErfTypeInfiniband, kErfMaxFrameBytes));
  const auto h = erf_header(0, kErfTypeInfiniband, kErfMaxFrameBytes);
  CHECK(h[10] == 0xFF);
  CHECK(h[11] == 0xFF);
  CHECK_THROWS_AS(erf_header(0, kErfTypeInfiniband, kErfMaxFrameBytes + 1), std::invalid_argument);
}

TEST_CASE("erf_header of a cut frame: rlen covers what was kept, wlen the frame", "[report]") {
  const auto h = erf_header(0, kErfTypeInfiniband, 300, 64);
  CHECK(h[10] == 0x00);
  CHECK(h[11] == 16 + 64);
  CHECK(h[14] == 0x01);  // 300 = 0x012C
  CHECK(h[15] == 0x2C);
  CHECK_THROWS_AS(erf_header(0, kErfTypeInfiniband, 64, 65), std::invalid_argument);
}
