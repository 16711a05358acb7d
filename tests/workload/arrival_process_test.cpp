// Arrival processes: each gives the offered load it is asked for (mean gap = wire time / load),
// with the shape of gaps its definition says.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/workload/arrival_process.h"

using namespace ibfsim;

namespace {
constexpr double kWire = 168'960'000;  // a 2 KiB UD packet on 4x EDR: 66 edges of 2.56 ns
}

TEST_CASE("constant arrivals: every gap is wire time / load", "[workload][arrival]") {
  ArrivalProcess a({ArrivalKind::kConstant}, 0.25);
  RngStream r(1, 1);
  for (int i = 0; i < 5; ++i) CHECK(a.next_gap(kWire, r) == 675'840'000);
}

TEST_CASE("poisson arrivals: mean gap wire / load, coefficient of variation 1", "[workload][arrival]") {
  ArrivalProcess a({ArrivalKind::kPoisson}, 0.5);
  RngStream r(2, 2);
  const int n = 200000;
  double sum = 0, sq = 0;
  for (int i = 0; i < n; ++i) {
    const double g = static_cast<double>(a.next_gap(kWire, r));
    sum += g;
    sq += g * g;
  }
  const double mean = sum / n, var = sq / n - mean * mean;
  // Mean 337.92 ns; the sample mean's sd is mean / sqrt(n) = 0.22%: allow 1%.
  CHECK(std::abs(mean / (kWire / 0.5) - 1) < 0.01);
  CHECK(std::abs(std::sqrt(var) / mean - 1) < 0.02);
}

TEST_CASE("bernoulli arrivals: gaps are whole slots, geometric with mean 1 / load", "[workload][arrival]") {
  ArrivalProcess a({ArrivalKind::kBernoulli}, 0.3);
  RngStream r(3, 3);
  const int n = 200000;
  double slots = 0;
  int ones = 0;
  for (int i = 0; i < n; ++i) {
    const Time g = a.next_gap(kWire, r);
    const double k = static_cast<double>(g) / kWire;
    CHECK(std::abs(k - std::round(k)) < 1e-6);  // a whole number of slots
    slots += std::round(k);
    ones += std::llround(k) == 1;
  }
  CHECK(std::abs(slots / n / (1 / 0.3) - 1) < 0.01);
  // P(gap = 1 slot) = load.
  CHECK(std::abs(static_cast<double>(ones) / n - 0.3) < 0.005);
  // Load 1: back to back.
  ArrivalProcess full({ArrivalKind::kBernoulli}, 1.0);
  CHECK(full.next_gap(kWire, r) == static_cast<Time>(kWire));
}

TEST_CASE("on/off arrivals: bursts at the peak rate, long-run load as asked", "[workload][arrival]") {
  ArrivalSpec s;
  s.kind = ArrivalKind::kOnOff;
  s.burst_length = 10;
  s.peak_load = 1.0;
  ArrivalProcess a(s, 0.2);
  RngStream r(4, 4);
  const int n = 400000;
  double sum = 0;
  int back_to_back = 0;
  for (int i = 0; i < n; ++i) {
    const Time g = a.next_gap(kWire, r);
    sum += static_cast<double>(g);
    back_to_back += g == static_cast<Time>(kWire);
  }
  // Mean gap wire / 0.2; bursts average 10 messages, 9 gaps of which are back to back.
  CHECK(std::abs(sum / n / (kWire / 0.2) - 1) < 0.02);
  CHECK(std::abs(static_cast<double>(back_to_back) / n - 0.9) < 0.01);
}
