// sharp_mad.h: the TreeConfig MAD's bytes, its pages, and what decode refuses.
#include <catch2/catch.hpp>

#include "sim/transport/sharp/sharp_mad.h"

using namespace ibfsim;

TEST_CASE("sharp mad: a TreeConfig Set's bytes, and decode gives it back", "[transport][sharp]") {
  SharpTreeConfigMad m;
  m.transaction_id = 0x5A00000000000007ull;
  m.tree = 3;
  m.op = SharpOp::kMax;
  m.type = SharpType::kFloat16;
  m.sl = 2;
  m.parent = 0x0102;
  m.total_children = 2;
  m.children = {{0x0011, 0x5A0}, {0x0004, 0xABCDEF}};
  const SharpMadBytes b = encode_sharp_mad(m);
  CHECK(b[0] == 1);
  CHECK(b[1] == 0x0A);
  CHECK(b[2] == 1);
  CHECK(b[3] == 0x02);
  CHECK(b[8] == 0x5A);
  CHECK(b[15] == 0x07);
  CHECK(b[16] == 0x00);
  CHECK(b[17] == 0x10);
  CHECK(b[24] == 3);
  CHECK(b[25] == 2);  // max
  CHECK(b[26] == 2);  // float16
  CHECK(b[27] == 2);
  CHECK(b[28] == 0xFF);
  CHECK(b[30] == 0x01);
  CHECK(b[31] == 0x02);
  CHECK(b[33] == 2);
  CHECK(b[36] == 2);
  // Child 1 at 48: LID 0x0004, 0, QPN 0xABCDEF.
  CHECK(b[48] == 0x00);
  CHECK(b[49] == 0x04);
  CHECK(b[50] == 0x00);
  CHECK(b[51] == 0xAB);
  CHECK(b[52] == 0xCD);
  CHECK(b[53] == 0xEF);
  const auto d = decode_sharp_mad(b.data());
  REQUIRE(d);
  CHECK(d->transaction_id == m.transaction_id);
  CHECK(d->op == SharpOp::kMax);
  CHECK(d->type == SharpType::kFloat16);
  CHECK(d->parent == 0x0102);
  CHECK(d->children == m.children);
  SharpMadBytes bad = b;
  bad[1] = 0x21;  // another class
  CHECK(!decode_sharp_mad(bad.data()));
  bad = b;
  bad[36] = 3;  // more children on the page than in all
  CHECK(!decode_sharp_mad(bad.data()));
  bad = b;
  bad[25] = 7;  // no such operator
  CHECK(!decode_sharp_mad(bad.data()));
}

TEST_CASE("sharp mad: 30 children take two pages of 27 and 3, with consecutive TIDs", "[transport][sharp]") {
  std::vector<SharpTreeConfigMad::Child> kids;
  for (std::uint32_t i = 0; i < 30; ++i) kids.push_back({static_cast<Lid>(i + 1), 0x100 + i});
  const auto mads = sharp_tree_config_mads(1, SharpOp::kSum, SharpType::kInt32, 0, 0xFFFF, 0, kids, 10);
  REQUIRE(mads.size() == 2);
  CHECK(mads[0].page == 0);
  CHECK(mads[0].children.size() == 27);
  CHECK(mads[1].page == 1);
  CHECK(mads[1].first_child == 27);
  CHECK(mads[1].children.size() == 3);
  CHECK(mads[1].transaction_id == 11);
  CHECK(decode_sharp_mad(encode_sharp_mad(mads[1]).data())->children[2] == SharpTreeConfigMad::Child{30, 0x100 + 29});
  // A node without children (never in a tree, but well defined): one MAD.
  CHECK(sharp_tree_config_mads(1, SharpOp::kSum, SharpType::kInt32, 0, 0xFFFF, 5, {}, 1).size() == 1);
}
