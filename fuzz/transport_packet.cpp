// The packet decoders a receiver runs on the bytes of a packet: LRH, GRH, BTH and every extended
// header (parse_transport_packet), UD SEND (parse_ud_send, the SMA's and the UD QP's path) and
// GMPs (parse_gmp_packet), on any header and payload.
//
// Input: byte 0 gives the header length (mod 105: a Packet holds at most 104 header bytes), then
// the header bytes, then the payload (carried).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "sim/core/packet.h"
#include "sim/link/lrh.h"
#include "sim/network/grh.h"
#include "sim/subnet_manager/mad/gmp_packet.h"
#include "sim/transport/transport_packet.h"
#include "sim/transport/ud_send_packet.h"

using namespace ibfsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  Packet p;
  const std::size_t header = std::min<std::size_t>(data[0] % (Packet::kMaxHeaderBytes + 1), size - 1);
  p.header_len = static_cast<std::uint16_t>(header);
  std::copy(data + 1, data + 1 + header, p.header.begin());
  p.payload.assign(data + 1 + header, data + size);
  p.payload_len = static_cast<std::uint32_t>(p.payload.size());
  const ParsedPacket parsed = parse_transport_packet(p);
  if (parsed.ok()) (void)parsed.payload_len;
  (void)parse_ud_send(p);
  (void)parse_gmp_packet(p);
  // The codecs on their own, wherever the bytes allow.
  if (header >= kLrhBytes) (void)decode_lrh(p.header.data());
  if (header >= kLrhBytes + kGrhBytes) (void)decode_grh(p.header.data() + kLrhBytes);
  return 0;
}
