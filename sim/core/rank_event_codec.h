// Events that cross between ranks, as bytes (rank_exchange.h; docs/architecture.md, "Ranks").
//
// Every rank builds the same fabric in the same order, so a block that receives events from
// another partition (a link port, the far end of a wire) is known to every rank by the order it
// was registered in (add_rank_target), and an event's kind by the number its layer registered
// it under (register_rank_event). Arguments that point to something (a packet, a tail verdict)
// are written by value by the kind's codec: the receiving rank builds its own copy, and the
// sending rank lets go of its own once nothing there needs it any more (defer_release).
//
// Only the kinds of event that cross a partition boundary need a codec: today the three a Wire
// schedules on its far port (head_arrives, verdict_arrives, flow_control_arrives). Any other
// kind crossing ranks is an invariant failure naming it, never a silent loss.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/event.h"
#include "sim/core/packet.h"

namespace ibfsim {

// Appends plain values to a byte buffer (in this machine's byte order: every rank runs the same
// build on the same kind of machine).
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "plain values only");
    const auto* b = reinterpret_cast<const std::uint8_t*>(&v);
    out_.insert(out_.end(), b, b + sizeof(T));
  }
  void bytes(const std::vector<std::uint8_t>& v) {
    put(static_cast<std::uint64_t>(v.size()));
    out_.insert(out_.end(), v.begin(), v.end());
  }

 private:
  std::vector<std::uint8_t>& out_;
};

// Reads them back; running past the end is an invariant failure.
class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : p_(data), end_(data + size) {}
  explicit ByteReader(const std::vector<std::uint8_t>& v) : ByteReader(v.data(), v.size()) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>, "plain values only");
    IBFSIM_CHECK(static_cast<std::size_t>(end_ - p_) >= sizeof(T), "an event from another rank is cut short");
    T v;
    std::memcpy(static_cast<void*>(&v), p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  std::vector<std::uint8_t> bytes() {
    const auto n = get<std::uint64_t>();
    IBFSIM_CHECK(static_cast<std::uint64_t>(end_ - p_) >= n, "an event from another rank is cut short");
    std::vector<std::uint8_t> v(p_, p_ + n);
    p_ += n;
    return v;
  }
  bool done() const { return p_ == end_; }

 private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

// A packet by value: its wire bytes and its bookkeeping, everything a receiver may read.
void encode_packet(const Packet& p, ByteWriter& w);
void decode_packet(ByteReader& r, Packet& p);

// How one kind of event's arguments cross: `encode` writes them (and lets go of what they own
// on this rank), `decode` rebuilds them on the receiving rank.
struct RankEventCodec {
  void (*encode)(const unsigned char* args, ByteWriter& w) = nullptr;
  void (*decode)(ByteReader& r, unsigned char* args) = nullptr;
};

// Registers the kind `type` under `id` (unique, the same on every rank); again with the same
// pair is harmless.
void register_rank_event(const EventType* type, std::uint16_t id, RankEventCodec codec);
template <auto Method>
const EventType* event_type_of() {
  return &event_detail::Binding<Method>::type;
}

// A block that may receive events from another partition; numbered in registration order.
void add_rank_target(void* target);
void remove_rank_target(void* target);

// One event with its order key, as bytes; and back (its target and type on this rank).
void encode_rank_event(const Event& e, std::uint64_t order, ByteWriter& w);
std::pair<Event, std::uint64_t> decode_rank_event(ByteReader& r);

// Where packets that arrive from another rank come from, and where those that left go back to
// (the fabric's pool; set when the fabric is split).
void set_rank_packet_pool(PacketPool* pool);
PacketPool& rank_packet_pool();
// Packet `p` went to another rank; this rank's copy goes back to the pool once every event
// here before `after` has run (release_deferred).
void defer_release(Packet* p, Time after);
// Releases the packets deferred to before `now` (everything, with kTimeNever).
void release_deferred(Time now);

}  // namespace ibfsim
