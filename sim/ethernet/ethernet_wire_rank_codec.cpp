#include "sim/ethernet/ethernet_wire_rank_codec.h"

#include <cstring>

#include "sim/core/rank_event_codec.h"
#include "sim/ethernet/ethernet_port.h"

namespace ibfsim {

namespace {

// The kind's number, the same on every rank (InfiniBand's wire uses 1 to 3: wire_rank_codec.cpp).
constexpr std::uint16_t kEthernetHeadArrives = 4;

using HeadArgs = event_detail::Args<Packet*, Time>;

void encode_head(const unsigned char* args, ByteWriter& w) {
  HeadArgs a;
  std::memcpy(static_cast<void*>(&a), args, sizeof a);
  encode_packet(*a.a, w);
  w.put(a.b);
  // The transmitter here may look at its frame until its last byte has left, before the tail
  // reaches the far end.
  defer_release(a.a, a.b);
}

void decode_head(ByteReader& r, unsigned char* args) {
  HeadArgs a;
  a.a = rank_packet_pool().acquire();
  decode_packet(r, *a.a);
  a.b = r.get<Time>();
  std::memcpy(args, static_cast<const void*>(&a), sizeof a);
}

}  // namespace

void register_ethernet_wire_rank_events() {
  static const bool registered = [] {
    register_rank_event(event_type_of<&EthernetPort::head_arrives>(), kEthernetHeadArrives, {&encode_head, &decode_head});
    return true;
  }();
  (void)registered;
}

}  // namespace ibfsim
