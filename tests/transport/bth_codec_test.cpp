// BTH codec and opcode constants: byte layout, round trips, reserved bits, in-place FECN marking.
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>

#include "sim/transport/bth.h"

using namespace ibfsim;

namespace {
void require_equal(const Bth& a, const Bth& b) {
  REQUIRE(a.opcode == b.opcode);
  REQUIRE(a.se == b.se);
  REQUIRE(a.m == b.m);
  REQUIRE(a.pad_cnt == b.pad_cnt);
  REQUIRE(a.tver == b.tver);
  REQUIRE(a.p_key == b.p_key);
  REQUIRE(a.fecn == b.fecn);
  REQUIRE(a.becn == b.becn);
  REQUIRE(a.dest_qp == b.dest_qp);
  REQUIRE(a.ack_req == b.ack_req);
  REQUIRE(a.psn == b.psn);
}
}  // namespace

TEST_CASE("BTH encodes the reference UD and ACK headers byte for byte", "[transport][codec]") {
  std::array<std::uint8_t, kBthBytes> out{};
  Bth ud;
  ud.opcode = kOpcodeUdSendOnly;
  ud.se = true;
  ud.pad_cnt = 3;
  ud.dest_qp = 0x12;
  ud.psn = 1;
  encode_bth(ud, out.data());
  REQUIRE(out ==
          std::array<std::uint8_t, 12>{0x64, 0xb0, 0xff, 0xff, 0, 0, 0, 0x12, 0, 0, 0, 0x01});
  Bth ack;
  ack.opcode = kOpcodeRcBase + op::kAcknowledge;
  ack.p_key = 0x8001;
  ack.dest_qp = 0x44;
  ack.psn = 0xABCD;
  encode_bth(ack, out.data());
  REQUIRE(out ==
          std::array<std::uint8_t, 12>{0x11, 0, 0x80, 0x01, 0, 0, 0, 0x44, 0, 0, 0xab, 0xcd});
}

TEST_CASE("BTH round-trips field extremes", "[transport][codec]") {
  Bth zero;
  zero.p_key = 0;
  Bth max{0xFF, true, true, 3, 15, 0xFFFF, true, true, 0xFFFFFF, true, 0xFFFFFF};
  Bth mixed{kOpcodeCnp, false, true, 1, 0, 0x7FFF, false, true, 0x800000, false, 0x7FFFFF};
  for (const Bth& bth : {zero, max, mixed}) {
    std::array<std::uint8_t, kBthBytes> out{};
    encode_bth(bth, out.data());
    require_equal(decode_bth(out.data()), bth);
  }
}

TEST_CASE("BTH encoding writes reserved bits as 0 and masks 24-bit fields", "[transport][codec]") {
  std::array<std::uint8_t, kBthBytes> out{};
  out.fill(0xAA);
  encode_bth({0xFF, true, true, 0xFF, 0xFF, 0xFFFF, true, true, 0xFFFFFFFF, true, 0xFFFFFFFF},
             out.data());
  REQUIRE(out == std::array<std::uint8_t, 12>{0xFF, 0xFF, 0xFF, 0xFF, 0xC0, 0xFF, 0xFF, 0xFF, 0x80,
                                              0xFF, 0xFF, 0xFF});
  const Bth back = decode_bth(out.data());
  REQUIRE(back.dest_qp == 0xFFFFFF);
  REQUIRE(back.psn == 0xFFFFFF);
}

TEST_CASE("set_bth_fecn marks only the FECN bit", "[transport][codec]") {
  Bth bth;
  bth.becn = true;
  bth.dest_qp = 7;
  std::array<std::uint8_t, kBthBytes> out{};
  encode_bth(bth, out.data());
  REQUIRE_FALSE(bth_fecn(out.data()));
  set_bth_fecn(out.data());
  REQUIRE(bth_fecn(out.data()));
  bth.fecn = true;
  require_equal(decode_bth(out.data()), bth);
}

TEST_CASE("bth_opcode and bth_dest_qp read one field of an encoded BTH", "[transport][codec]") {
  for (const Qpn qp : {Qpn{0}, Qpn{1}, Qpn{0x000100}, Qpn{0xABCDEF}, Qpn{0xFFFFFF}}) {
    Bth bth{0x65, true, true, 3, 15, 0xFFFF, true, true, qp, true, 0xFFFFFF};
    std::array<std::uint8_t, kBthBytes> out{};
    encode_bth(bth, out.data());
    REQUIRE(bth_opcode(out.data()) == 0x65);
    REQUIRE(bth_dest_qp(out.data()) == qp);
    REQUIRE(bth_dest_qp(out.data()) == decode_bth(out.data()).dest_qp);
  }
  // The reference UD header: DestQP 0x12 in bytes 5-7.
  const std::array<std::uint8_t, 12> ud{0x64, 0xb0, 0xff, 0xff, 0, 0, 0, 0x12, 0, 0, 0, 0x01};
  REQUIRE(bth_opcode(ud.data()) == kOpcodeUdSendOnly);
  REQUIRE(bth_dest_qp(ud.data()) == 0x12);
}

TEST_CASE("opcode constants follow service base + operation", "[transport][codec]") {
  STATIC_REQUIRE(kOpcodeUdSendOnly == 0x64);
  STATIC_REQUIRE(kOpcodeUdSendOnlyImm == 0x65);
  STATIC_REQUIRE(kOpcodeCnp == 0x80);
  STATIC_REQUIRE(kOpcodeUcBase + op::kRdmaWriteOnly == 0x2A);
  STATIC_REQUIRE(opcode_service(0x65) == kOpcodeUdBase);
  STATIC_REQUIRE(opcode_operation(0x65) == op::kSendOnlyImm);
  STATIC_REQUIRE(is_rc_opcode(op::kAcknowledge));
  STATIC_REQUIRE(is_rc_opcode(op::kAtomicWrite));
  STATIC_REQUIRE_FALSE(is_rc_opcode(0x15));
  STATIC_REQUIRE_FALSE(is_rc_opcode(0x1E));
  STATIC_REQUIRE_FALSE(is_rc_opcode(kOpcodeUdSendOnly));
  for (std::size_t i = 1; i < kRcOpcodes.size(); ++i) REQUIRE(kRcOpcodes[i - 1] < kRcOpcodes[i]);
}
