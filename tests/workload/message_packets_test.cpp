// The data packets of a message, from the header sizes: LRH 8, BTH 12, DETH 8, RETH 16, AETH 4,
// ICRC 4, VCRC 2, payload padded to a multiple of 4.
#include <catch2/catch.hpp>

#include "sim/workload/message_packets.h"

using namespace ibfsim;

TEST_CASE("UD: one packet with a DETH, or one per MTU at the wire", "[workload][packets]") {
  // 2048 bytes: 8 + 12 + 8 + 2048 + 4 + 2 = 2082 (the quickstart packet).
  const MessagePackets m = message_packets(ClassTransport::kUd, ClassVerb::kSend, 2048, 4096);
  CHECK(m.count == 1);
  CHECK(m.wire_bytes == 2082);
  // 257 bytes: pad 3 -> 8 + 12 + 8 + 257 + 3 + 4 + 2 = 294.
  CHECK(message_packets(ClassTransport::kUdSend, ClassVerb::kSend, 257, 4096).wire_bytes == 294);
  // ud_send 10000 bytes at MTU 4096: 4096 + 4096 + 1808, each with 34 bytes of headers and CRCs.
  const MessagePackets big = message_packets(ClassTransport::kUdSend, ClassVerb::kSend, 10000, 4096);
  CHECK(big.count == 3);
  CHECK(big.first_bytes == 4130);
  CHECK(big.middle_bytes == 4130);
  CHECK(big.last_bytes == 1842);
  CHECK(big.wire_bytes == 4130 * 2 + 1842);
}

TEST_CASE("RC WRITE: RETH in the first packet only", "[workload][packets]") {
  // 65536 at MTU 4096: 16 packets; first 20 + 16 + 4096 + 6 = 4138, the others 20 + 4096 + 6 = 4122.
  const MessagePackets m = message_packets(ClassTransport::kRc, ClassVerb::kWrite, 65536, 4096);
  CHECK(m.count == 16);
  CHECK(m.first_bytes == 4138);
  CHECK(m.middle_bytes == 4122);
  CHECK(m.last_bytes == 4122);
  CHECK(m.wire_bytes == 4138 + 15 * 4122);
  // A WRITE Only: 20 + 16 + 8 + 6 = 50.
  CHECK(message_packets(ClassTransport::kUc, ClassVerb::kWrite, 8, 4096).wire_bytes == 50);
}

TEST_CASE("RC READ: responses carry an AETH in the first and last packet", "[workload][packets]") {
  // 5000 bytes at MTU 2048: 2048, 2048, 904: 20 + 4 + 2048 + 6, 20 + 2048 + 6, 20 + 4 + 904 + 6.
  const MessagePackets m = message_packets(ClassTransport::kRc, ClassVerb::kRead, 5000, 2048);
  CHECK(m.count == 3);
  CHECK(m.first_bytes == 2078);
  CHECK(m.middle_bytes == 2074);
  CHECK(m.last_bytes == 934);
  // Zero bytes: one READ response Only of 20 + 4 + 6 = 30.
  CHECK(message_packets(ClassTransport::kRc, ClassVerb::kRead, 0, 2048).wire_bytes == 30);
  // RC SEND of 4096 at 4096: one packet 20 + 4096 + 6.
  CHECK(message_packets(ClassTransport::kRc, ClassVerb::kSend, 4096, 4096).wire_bytes == 4122);
}
