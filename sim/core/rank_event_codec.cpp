#include "sim/core/rank_event_codec.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace ibfsim {

namespace {

struct Kind {
  const EventType* type = nullptr;
  RankEventCodec codec;
};

struct Registry {
  std::unordered_map<const EventType*, std::uint16_t> id_of;
  std::vector<Kind> kinds;  // [id]
  std::vector<void*> targets;
  std::unordered_map<const void*, std::uint32_t> target_index;
  PacketPool* pool = nullptr;
  std::vector<std::pair<Time, Packet*>> deferred;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void encode_packet(const Packet& p, ByteWriter& w) {
  w.put(p.header_len);
  w.put(p.pad_len);
  w.put(p.has_icrc);
  w.put(p.payload_len);
  w.put(p.link_seq);
  w.put(p.link_epoch);
  w.put(p.end_pending);
  w.put(p.tail_check);
  w.put(p.may_be_corrupted);
  w.put(p.vcrc);
  w.put(p.header);
  w.put(p.icrc);
  w.put(p.fcs);
  w.put(p.framing);
  w.put(p.eth_pad_len);
  w.bytes(p.payload);
  w.put(p.id);
  w.put(p.created);
  w.put(p.injected);
  w.put(p.src_node);
  w.put(p.measured);
  w.put(p.flow);
  w.bytes(p.received_frame);
  w.put(p.src_qp);
  w.put(p.management);
}

void decode_packet(ByteReader& r, Packet& p) {
  p.header_len = r.get<decltype(p.header_len)>();
  p.pad_len = r.get<decltype(p.pad_len)>();
  p.has_icrc = r.get<bool>();
  p.payload_len = r.get<decltype(p.payload_len)>();
  p.link_seq = r.get<decltype(p.link_seq)>();
  p.link_epoch = r.get<decltype(p.link_epoch)>();
  p.end_pending = r.get<bool>();
  p.tail_check = r.get<bool>();
  p.may_be_corrupted = r.get<bool>();
  p.vcrc = r.get<decltype(p.vcrc)>();
  p.header = r.get<decltype(p.header)>();
  p.icrc = r.get<decltype(p.icrc)>();
  p.fcs = r.get<decltype(p.fcs)>();
  p.framing = r.get<Framing>();
  p.eth_pad_len = r.get<decltype(p.eth_pad_len)>();
  p.payload = r.bytes();
  p.id = r.get<decltype(p.id)>();
  p.created = r.get<Time>();
  p.injected = r.get<Time>();
  p.src_node = r.get<decltype(p.src_node)>();
  p.measured = r.get<bool>();
  p.flow = r.get<decltype(p.flow)>();
  p.received_frame = r.bytes();
  p.src_qp = r.get<decltype(p.src_qp)>();
  p.management = r.get<bool>();
}

void register_rank_event(const EventType* type, std::uint16_t id, RankEventCodec codec) {
  Registry& reg = registry();
  auto it = reg.id_of.find(type);
  if (it != reg.id_of.end()) {
    IBFSIM_CHECK(it->second == id, std::string("event ") + type->name() + " registered under two numbers");
    return;
  }
  if (reg.kinds.size() <= id) reg.kinds.resize(std::size_t{id} + 1);
  IBFSIM_CHECK(reg.kinds[id].type == nullptr, "two kinds of event share a number across ranks");
  reg.kinds[id] = Kind{type, codec};
  reg.id_of.emplace(type, id);
}

void add_rank_target(void* target) {
  Registry& reg = registry();
  reg.target_index[target] = static_cast<std::uint32_t>(reg.targets.size());
  reg.targets.push_back(target);
}

void remove_rank_target(void* target) {
  Registry& reg = registry();
  auto it = reg.target_index.find(target);
  if (it == reg.target_index.end()) return;
  reg.targets[it->second] = nullptr;  // the numbers of later targets stay
  reg.target_index.erase(it);
}

void encode_rank_event(const Event& e, std::uint64_t order, ByteWriter& w) {
  Registry& reg = registry();
  auto kind = reg.id_of.find(e.type);
  IBFSIM_CHECK(kind != reg.id_of.end(), std::string("event ") + e.name() +
                                            " crosses between MPI ranks but has no codec (rank_event_codec.h)");
  auto target = reg.target_index.find(e.target);
  IBFSIM_CHECK(target != reg.target_index.end(),
               std::string("event ") + e.name() + " crosses between MPI ranks to a block no rank registered");
  w.put(e.at);
  w.put(order);
  w.put(kind->second);
  w.put(target->second);
  w.put(e.module);
  w.put(e.global);
  reg.kinds[kind->second].codec.encode(e.args, w);
}

std::pair<Event, std::uint64_t> decode_rank_event(ByteReader& r) {
  Registry& reg = registry();
  Event e;
  e.at = r.get<Time>();
  const auto order = r.get<std::uint64_t>();
  const auto id = r.get<std::uint16_t>();
  const auto target = r.get<std::uint32_t>();
  IBFSIM_CHECK(id < reg.kinds.size() && reg.kinds[id].type, "an event from another rank of an unknown kind");
  IBFSIM_CHECK(target < reg.targets.size() && reg.targets[target],
               "an event from another rank for a block this rank does not have");
  e.type = reg.kinds[id].type;
  e.target = reg.targets[target];
  e.module = r.get<std::uint32_t>();
  e.global = r.get<bool>();
  e.order = order;
  reg.kinds[id].codec.decode(r, e.args);
  return {e, order};
}

void set_rank_packet_pool(PacketPool* pool) { registry().pool = pool; }

PacketPool& rank_packet_pool() {
  IBFSIM_CHECK(registry().pool, "packets cross between ranks only in a fabric split among them");
  return *registry().pool;
}

void defer_release(Packet* p, Time after) { registry().deferred.emplace_back(after, p); }

void release_deferred(Time now) {
  auto& d = registry().deferred;
  auto keep = std::stable_partition(d.begin(), d.end(), [now](const auto& x) { return x.first >= now; });
  for (auto it = keep; it != d.end(); ++it) rank_packet_pool().release(it->second);
  d.erase(keep, d.end());
}

}  // namespace ibfsim
