// VL arbitration at an output port (IBA Vol1 7.6.9, rule R19). VL15 goes before everything. Data
// VLs are served from a high-priority and a low-priority table of (VL, weight) entries, weights
// in 64-byte units. Within a table the current entry keeps sending while its weight lasts (a
// packet that overruns the remaining weight is still completed); an entry whose VL has nothing
// ready, or whose weight is 0, is skipped. High priority wins, except that once
// LimitOfHighPriority x 4 KiB of high-priority bytes went out while a low-priority packet waited,
// one low-priority packet goes (limit 255: never; limit 0: after every high-priority packet).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace ibfsim {

constexpr std::uint8_t kVl15 = 15;
constexpr unsigned kMaxDataVls = 15;

struct VlArbEntry {
  std::uint8_t vl = 0;
  std::uint8_t weight = 0;  // 64-byte units; 0 = entry skipped
};

struct VlArbConfig {
  std::vector<VlArbEntry> high;  // up to 64 entries
  std::vector<VlArbEntry> low;   // up to 64 entries
  std::uint8_t high_limit = 0;   // LimitOfHighPriority; 255 = unlimited
};

// A default configuration: every operational data VL in the low table with weight 64 (4 KiB),
// no high-priority entries.
VlArbConfig default_vl_arbitration(unsigned op_vls);

class VlArbiter {
 public:
  VlArbiter() = default;
  explicit VlArbiter(VlArbConfig config);

  // `ready` has bit v set for every data VL whose head packet could go now (credits included);
  // `vl15_ready` for a management packet. Returns the VL to send, or -1 when nothing may go.
  // Does not change state: call sent() for the packet actually transmitted.
  int choose(std::uint16_t ready, bool vl15_ready);
  // Accounts a packet of `bytes` sent on `vl` (chosen by choose()).
  void sent(int vl, std::uint32_t bytes);

  std::uint8_t high_limit() const { return high_limit_; }

 private:
  static constexpr std::size_t kMaxEntries = 64;
  // Entries are held inline, next to the state: every packet sent looks at them.
  struct Table {
    std::int32_t remaining = 0;  // weight left in the current entry, 64-byte units
    std::uint16_t vls = 0;       // VLs with a weighted entry in this table
    std::uint8_t n = 0;          // entries in use
    std::uint8_t current = 0;
    std::array<VlArbEntry, kMaxEntries> entries{};
    void load(const std::vector<VlArbEntry>& config);
  };
  // Finds the entry to serve in `t` for the ready set, moving `current` as the arbiter would.
  static int pick(Table& t, std::uint16_t ready);

  Table high_, low_;
  std::uint8_t high_limit_ = 0;
  std::uint32_t high_bytes_ = 0;  // high-priority bytes sent while low-priority traffic waited
  bool last_from_high_ = false;
  bool low_waiting_ = false;
};

}  // namespace ibfsim
