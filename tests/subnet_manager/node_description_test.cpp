// NodeDescription codec: NUL padding, the 64-byte limit, decoding up to the first NUL.
#include <catch2/catch.hpp>
#include <string>

#include "sim/subnet_manager/mad/node_description.h"
#include "tests/subnet_manager/smp_data.h"

using namespace ibfsim;
using ibfsim::test::filled;
using ibfsim::test::smp_data;

TEST_CASE("NodeDescription is the text padded with NULs to 64 bytes", "[subnet_manager][codec]") {
  CHECK(IB_MAD_ATTR_NODE_DESC == 0x0010);
  CHECK(encode_node_description({"sw1 HCA-1"}) ==
        smp_data({'s', 'w', '1', ' ', 'H', 'C', 'A', '-', '1'}));
  CHECK(decode_node_description(smp_data({'h', '1'}).data()).text == "h1");
  CHECK(encode_node_description({""}) == SmpData{});
}

TEST_CASE("NodeDescription keeps 64 bytes: a full one has no NUL, a longer one is cut",
          "[subnet_manager][codec]") {
  const std::string full(64, 'x');
  CHECK(encode_node_description({full}) == filled('x'));
  CHECK(decode_node_description(filled('x').data()).text == full);
  CHECK(encode_node_description({full + "yz"}) == filled('x'));
  CHECK(decode_node_description(filled(0xFF).data()).text == std::string(64, '\xFF'));
}
