#include "sim/link/wire_rank_codec.h"

#include <cstring>

#include "sim/core/rank_event_codec.h"
#include "sim/link/link_port.h"
#include "sim/link/wire.h"

namespace ibfsim {

namespace {

// Numbers of the kinds, the same on every rank.
enum : std::uint16_t { kHeadArrives = 1, kVerdictArrives = 2, kFlowControlArrives = 3 };

template <class Pack>
Pack unpack(const unsigned char* args) {
  Pack p;
  std::memcpy(static_cast<void*>(&p), args, sizeof(Pack));
  return p;
}
template <class Pack>
void pack(const Pack& p, unsigned char* args) {
  std::memcpy(args, static_cast<const void*>(&p), sizeof(Pack));
}

using HeadArgs = event_detail::Args<Packet*, Time>;
using VerdictArgs = event_detail::Args<TailVerdict*>;
using FlowControlArgs = event_detail::Args<FlowControlArrival>;

void encode_head(const unsigned char* args, ByteWriter& w) {
  const auto a = unpack<HeadArgs>(args);
  encode_packet(*a.a, w);
  w.put(a.b);
  // The transmitter here may still look at its packet until its last edge has left, which is
  // before the tail reaches the far end.
  defer_release(a.a, a.b);
}
void decode_head(ByteReader& r, unsigned char* args) {
  HeadArgs a;
  a.a = rank_packet_pool().acquire();
  decode_packet(r, *a.a);
  a.b = r.get<Time>();
  pack(a, args);
}

void encode_verdict(const unsigned char* args, ByteWriter& w) {
  const auto a = unpack<VerdictArgs>(args);
  const TailVerdict* v = a.a;
  w.put(v->seq);
  w.put(v->reason.has_value());
  w.put(v->reason.value_or(DropReason::kCount));
  w.bytes(v->bytes);
  delete v;  // the far port owns it; here nothing else does
}
void decode_verdict(ByteReader& r, unsigned char* args) {
  auto* v = new TailVerdict;
  v->seq = r.get<std::uint64_t>();
  const bool has_reason = r.get<bool>();
  const auto reason = r.get<DropReason>();
  if (has_reason) v->reason = reason;
  v->bytes = r.bytes();
  pack(VerdictArgs{v}, args);
}

void encode_flow_control(const unsigned char* args, ByteWriter& w) { w.put(unpack<FlowControlArgs>(args).a); }
void decode_flow_control(ByteReader& r, unsigned char* args) {
  pack(FlowControlArgs{r.get<FlowControlArrival>()}, args);
}

}  // namespace

void register_wire_rank_events() {
  static const bool registered = [] {
    register_rank_event(event_type_of<&LinkPort::head_arrives>(), kHeadArrives, {&encode_head, &decode_head});
    register_rank_event(event_type_of<&LinkPort::verdict_arrives>(), kVerdictArrives,
                        {&encode_verdict, &decode_verdict});
    register_rank_event(event_type_of<&LinkPort::flow_control_arrives>(), kFlowControlArrives,
                        {&encode_flow_control, &decode_flow_control});
    return true;
  }();
  (void)registered;
}

}  // namespace ibfsim
