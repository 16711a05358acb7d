#include "sim/core/packet.h"

#include "sim/core/error.h"

namespace ibfsim {

void Packet::write_frame(std::vector<std::uint8_t>& out) const {
  out.clear();
  out.reserve(wire_bytes());
  out.insert(out.end(), header.begin(), header.begin() + header_len);
  if (payload.empty()) out.insert(out.end(), payload_len, 0);
  else out.insert(out.end(), payload.begin(), payload.end());
  out.insert(out.end(), pad_len, 0);
  if (has_icrc) out.insert(out.end(), icrc.begin(), icrc.end());
  if (framing == Framing::kInfiniBand) {
    out.insert(out.end(), vcrc.begin(), vcrc.end());
  } else {
    out.insert(out.end(), eth_pad_len, 0);
    out.insert(out.end(), fcs.begin(), fcs.end());
  }
}

Packet* PacketPool::acquire() {
  ++live_;
  if (free_.empty()) return made_.emplace_back(std::make_unique<Packet>()).get();
  Packet* p = free_.back();
  free_.pop_back();
  return p;
}

void PacketPool::release(Packet* p) {
  IBFSIM_CHECK(live_ > 0, "packet released twice");
  --live_;
  p->payload.clear();
  p->header_len = 0;
  p->payload_len = 0;
  p->pad_len = 0;
  p->has_icrc = true;
  p->measured = false;
  p->may_be_corrupted = false;
  p->received_frame.clear();
  p->end_pending = false;
  p->tail_check = false;
  p->management = false;
  p->framing = Framing::kInfiniBand;
  p->eth_pad_len = 0;
  free_.push_back(p);
}

}  // namespace ibfsim
