// A calendar of future events (event.h), earliest first; equal times run in the order they were
// scheduled. Pure data structure: the SystemC process that wakes for the earliest is CalendarProcess.
//
// It is a timing wheel: 4096 buckets of 2^20 fs (about 1.05 ns) cover the next ~4.3 us, where
// nearly every event of a fabric falls (packet times, switch latencies, credit returns). A push
// into the wheel is O(1); a bucket is sorted once when it becomes current. Events further out
// wait in a binary heap and move into the wheel as time approaches them.
//
// A bucket is a chain of chunks from one pool shared by the whole wheel, not a vector of its own:
// a vector keeps the room of the most events its bucket ever held, and as bursts (a fabric's
// ports ending packets on the same clock edge) wander through the 4096 buckets, that room grew
// without bound in practice (issue 16: 25 MB after 3 ms of a saturated 128-host permutation, for
// ~600 pending events). A chunk holds kChunkEvents events in one 512-byte block, so that draining
// a bucket reads contiguous memory rather than one scattered slot per event (at thousands of
// hosts nearly every such read missed the caches). The pool holds at most as many chunks as
// events were ever pending in the wheel at once, and the current bucket is sorted in one shared
// vector.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/event.h"
#include "sim/core/time.h"

namespace ibfsim {

class EventCalendar {
 public:
  // The top bit of an order: clear for early events, which run before the ordinary ones.
  static constexpr std::uint64_t kOrdinary = std::uint64_t{1} << 63;

  EventCalendar();

  // `e.at` must not be earlier than the time of the last event popped; it may be earlier than
  // top(): the wheel then moves its window back. The calendar sets e.order (scheduling order).
  // An `early` event runs before every ordinary event of its instant (in scheduling order among
  // early ones): for what must be in place before anything at that instant looks at it.
  void push(const Event& e, bool early = false) {
    push_keyed(e, early ? next_seq_++ : (next_seq_++ | kOrdinary));
  }
  // The same with the order among events of the same instant given by the caller (`order`
  // replaces e.order; smaller first): how a CalendarProcess keeps the model's own tie-break.
  void push_keyed(const Event& e, std::uint64_t order) {
    const std::uint64_t bucket = e.at >> kBucketShift;
    // The common case, inline: a bucket of the wheel that is not being drained.
    if (bucket >= cur_ && bucket < cur_ + kBuckets && !(bucket == cur_ && loaded_)) {
      append(bucket, e).order = order;
      ++in_wheel_;
      ++size_;
      return;
    }
    push_slow(e, order);
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // Event slots the wheel's chunks hold, pending or free (what bounds its memory, with the current
  // bucket's sorted copy): kChunkEvents times the most chunks ever in use at once.
  std::size_t wheel_slots() const { return chunks_.size() * kChunkEvents; }
  // Events per chunk of a bucket's chain: as many as fit in 512 bytes with the chain's link.
  static constexpr std::uint32_t kChunkEvents = (512 - 2 * sizeof(std::uint32_t)) / sizeof(Event);
  // The earliest event; the calendar must not be empty.
  const Event& top();
  Event pop();

 private:
  static constexpr unsigned kBucketShift = 20;
  static constexpr std::uint64_t kBuckets = 4096;
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return a.at != b.at ? a.at > b.at : a.order > b.order; }
  };
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  struct alignas(64) Chunk {
    Event events[kChunkEvents];
    std::uint32_t count = 0;     // events held, in push order (unsorted)
    std::uint32_t next = kNone;  // the next chunk of its bucket, or of the free list
  };
  struct Bucket {
    std::uint32_t head = kNone, tail = kNone;  // its chunks in push order
  };
  // A slot at the end of `bucket`'s chain, holding `e`.
  Event& append(std::uint64_t bucket, const Event& e) {
    Bucket& b = wheel_[bucket & (kBuckets - 1)];
    if (b.tail == kNone || chunks_[b.tail].count == kChunkEvents) {
      std::uint32_t c = free_;
      if (c != kNone) {
        free_ = chunks_[c].next;
        chunks_[c].next = kNone;
      } else {
        c = static_cast<std::uint32_t>(chunks_.size());
        chunks_.emplace_back();
      }
      if (b.tail == kNone) b.head = c;
      else chunks_[b.tail].next = c;
      b.tail = c;
    }
    Chunk& t = chunks_[b.tail];
    Event& slot = t.events[t.count++];
    slot = e;
    return slot;
  }
  // Hands `bucket`'s chunks back to the free list, calling f(event) on each of its events in push
  // order first.
  template <class F>
  void drain_bucket(Bucket& b, F&& f) {
    drain_chunks(b, [&f](const Event* first, std::uint32_t n) {
      for (std::uint32_t i = 0; i < n; ++i) f(first[i]);
    });
  }
  // The same, calling f(first, count) once per chunk.
  template <class F>
  void drain_chunks(Bucket& b, F&& f) {
    for (std::uint32_t c = b.head; c != kNone;) {
      Chunk& k = chunks_[c];
      f(static_cast<const Event*>(k.events), k.count);
      const std::uint32_t next = k.next;
      k.count = 0;
      k.next = free_;
      free_ = c;
      c = next;
    }
    b.head = b.tail = kNone;
  }
  void push_slow(const Event& e, std::uint64_t order);
  void advance();  // makes cur_ the first non-empty bucket, pulling from far_ as needed
  void insert_into_wheel(const Event& a);
  void load_current();  // moves bucket cur_'s chain into current_, sorted
  void rewind_to(std::uint64_t bucket);

  std::vector<Bucket> wheel_;
  std::vector<Chunk> chunks_;  // every bucket's events; the free chunks chained from free_
  std::uint32_t free_ = kNone;
  // Bucket cur_ once it is being drained (loaded_): its events sorted, those from read_ on pending.
  std::vector<Event> current_;
  std::size_t read_ = 0;
  bool loaded_ = false;
  std::uint64_t cur_ = 0;  // absolute bucket number (time >> kBucketShift) of the wheel's start
  std::vector<Event> far_;  // heap of events at or beyond cur_ + kBuckets
  std::size_t size_ = 0;
  std::size_t in_wheel_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t floor_ = 0;  // bucket of the last event popped: nothing may be pushed before it
};

}  // namespace ibfsim
