// SMInfo codec: GUID, SM_Key, ActCount and the Priority/SMState byte.
#include <catch2/catch.hpp>

#include "sim/subnet_manager/mad/sm_info.h"
#include "tests/subnet_manager/smp_data.h"

using namespace ibfsim;
using ibfsim::test::filled;
using ibfsim::test::smp_data;

TEST_CASE("SMInfo encodes GUID, SM_Key, ActCount, Priority and SMState", "[subnet_manager][codec]") {
  CHECK(IB_MAD_ATTR_SM_INFO == 0x0020);
  SmInfo si;
  si.guid = 0x0002C90300000001;
  si.sm_key = 0x1122334455667788;
  si.act_count = 0x00010203;
  si.priority = 14;
  si.sm_state = IB_SMINFO_STATE_MASTER;
  const SmpData d = encode_sm_info(si);
  CHECK(d == smp_data({0x00, 0x02, 0xC9, 0x03, 0x00, 0x00, 0x00, 0x01, 0x11, 0x22, 0x33, 0x44,
                       0x55, 0x66, 0x77, 0x88, 0x00, 0x01, 0x02, 0x03, 0xE3}));
  const SmInfo back = decode_sm_info(d.data());
  CHECK(back.guid == si.guid);
  CHECK(back.sm_key == si.sm_key);
  CHECK(back.act_count == si.act_count);
  CHECK(back.priority == 14);
  CHECK(back.sm_state == IB_SMINFO_STATE_MASTER);
}

TEST_CASE("SMInfo masks Priority and SMState to 4 bits and keeps only 21 bytes",
          "[subnet_manager][codec]") {
  SmInfo si;
  si.priority = 0x1F;
  si.sm_state = 0x12;
  CHECK(encode_sm_info(si)[20] == 0xF2);
  SmpData expected{};
  for (std::size_t i = 0; i < kSmInfoBytes; ++i) expected[i] = 0xFF;
  CHECK(encode_sm_info(decode_sm_info(filled(0xFF).data())) == expected);
  CHECK(IB_SMINFO_STATE_NOTACTIVE == 0);
  CHECK(IB_SMINFO_STATE_DISCOVERING == 1);
  CHECK(IB_SMINFO_STATE_STANDBY == 2);
  CHECK(IB_SMINFO_ATTR_MOD_HANDOVER == 1);
  CHECK(IB_SMINFO_ATTR_MOD_DISCOVER == 5);
}
