#include "sim/core/packet.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/core/rank_exchange.h"
#include "sim/core/partition_slot.h"

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

PacketPool::Slot& PacketPool::mine() {
  const unsigned s = partition_slot;
  return slots_[s < slots_.size() ? s : 0];
}

Packet* PacketPool::acquire() {
  Slot& s = mine();
  ++s.live;
  if (s.free.empty()) return s.made.emplace_back(std::make_unique<Packet>()).get();
  Packet* p = s.free.back();
  s.free.pop_back();
  return p;
}

void PacketPool::release(Packet* p) {
  Slot& s = mine();
  // With partitions a slot may free more than it made; the total is checked in live().
  IBFSIM_CHECK(slots_.size() > 1 || s.live > 0, "packet released twice");
  --s.live;
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
  s.free.push_back(p);
}

std::int64_t PacketPool::local_live() const {
  std::int64_t n = 0;
  for (const Slot& s : slots_) n += s.live;
  return n;
}

std::size_t PacketPool::live() const {
  const std::int64_t n = local_live() + others_live_;
  IBFSIM_CHECK(n >= 0, "packet released twice");
  return static_cast<std::size_t>(n);
}

void PacketPool::gather_ranks() {
  const std::int64_t mine = local_live() - rank_base_;
  std::vector<std::uint64_t> all{static_cast<std::uint64_t>(mine)};
  ranks::sum(all);
  others_live_ = static_cast<std::int64_t>(all[0]) - mine;
}

void PacketPool::set_partitions(unsigned parts) {
  if (slots_.size() < std::size_t{parts} + 1) slots_.resize(std::size_t{parts} + 1);
}

void PacketPool::balance() {
  // A slot whose list grew past 2 * kKeep gives all but kKeep to slot 0; a slot below kKeep / 4
  // takes up to kKeep back. A steady flow from one partition to another thus costs a move of a
  // few hundred pointers now and then, not an allocation per packet.
  constexpr std::size_t kKeep = 256;
  if (slots_.size() <= 1) return;
  std::vector<Packet*>& spare = slots_[0].free;
  for (std::size_t k = 1; k < slots_.size(); ++k) {
    std::vector<Packet*>& f = slots_[k].free;
    if (f.size() > 2 * kKeep) {
      spare.insert(spare.end(), f.begin() + kKeep, f.end());
      f.resize(kKeep);
    }
  }
  for (std::size_t k = 1; k < slots_.size() && !spare.empty(); ++k) {
    std::vector<Packet*>& f = slots_[k].free;
    if (f.size() >= kKeep / 4) continue;
    const std::size_t n = std::min(spare.size(), kKeep - f.size());
    f.insert(f.end(), spare.end() - static_cast<std::ptrdiff_t>(n), spare.end());
    spare.resize(spare.size() - n);
  }
}

}  // namespace ibfsim
