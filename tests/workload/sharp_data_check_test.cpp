// sharp_data_check.h: the ranks' values, the exact sum, min and max, and #wrong counting a result
// element that is off (the checker as a pure function).
#include <catch2/catch.hpp>

#include <vector>

#include "sim/workload/sharp_data_check.h"

using namespace ibfsim;

TEST_CASE("sharp data check: expected sum, min and max over 4 ranks", "[workload][sharp]") {
  // Element 7 (7 mod 5 = 2): ranks give 3, 4, 5, 6.
  CHECK(sharp_expected_value(SharpOp::kSum, 4, 7) == 18);
  CHECK(sharp_expected_value(SharpOp::kMin, 4, 7) == 3);
  CHECK(sharp_expected_value(SharpOp::kMax, 4, 7) == 6);
  CHECK(sharp_rank_value(3, 7) == 6);
}

TEST_CASE("sharp data check: the exact min and max pass, one element off is counted", "[workload][sharp]") {
  for (SharpType type : {SharpType::kInt32, SharpType::kFloat16, SharpType::kFloat32}) {
    for (SharpOp op : {SharpOp::kMin, SharpOp::kMax, SharpOp::kSum}) {
      INFO(sharp_type_name(type) << " " << sharp_op_name(op));
      const std::uint32_t size = sharp_type_bytes(type);
      // 4 ranks, elements 10..21, reduced with sharp_reduce as the nodes do.
      std::vector<std::uint8_t> acc(12 * size), in(12 * size);
      sharp_fill_values(type, 0, 10, 12, acc.data());
      for (std::uint64_t r = 1; r < 4; ++r) {
        sharp_fill_values(type, r, 10, 12, in.data());
        sharp_reduce(op, type, acc.data(), in.data(), acc.size());
      }
      CHECK(sharp_count_wrong(op, type, 4, 10, acc.data(), 12) == 0);
      // Checked against another operator, or at other elements, they are wrong.
      const SharpOp other = op == SharpOp::kMin ? SharpOp::kMax : SharpOp::kMin;
      CHECK(sharp_count_wrong(other, type, 4, 10, acc.data(), 12) == 12);
      CHECK(sharp_count_wrong(op, type, 4, 11, acc.data(), 12) == 12);
      // One element made wrong: rank 0's own value in place of the reduction, at element 13.
      std::vector<std::uint8_t> one(size);
      sharp_fill_values(type, 0, 13, 1, one.data());
      std::copy(one.begin(), one.end(), acc.begin() + 3 * size);
      CHECK(sharp_count_wrong(op, type, 4, 10, acc.data(), 12) == (op == SharpOp::kMin ? 0u : 1u));
      // (rank 0's value is the minimum: a min is still right; a deliberately wrong min is caught:)
      std::vector<std::uint8_t> nine(size);
      sharp_fill_values(type, 8, 13, 1, nine.data());
      std::copy(nine.begin(), nine.end(), acc.begin() + 3 * size);
      CHECK(sharp_count_wrong(op, type, 4, 10, acc.data(), 12) == 1);
    }
  }
}
