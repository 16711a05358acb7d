// A verbs flow's data check (verbs_flow.h): every message carries a pattern of its flow, side and
// index (message_pattern.h); arrivals must come in order (UC and UD may lose some, never reorder);
// at the end the target memory, receive buffers and guard pages must hold exactly what the last
// message kept in each slot left there, and nothing was written elsewhere.
#include <cstring>

#include "sim/workload/message_pattern.h"
#include "sim/workload/verbs_flow.h"

#include "sim/network/grh.h"

namespace ibfsim {

using namespace verbs;

namespace {

constexpr std::uint64_t kAtomicInitial = 0x0100000000000000ull;

}  // namespace

std::uint64_t VerbsFlow::atomic_initial() const { return data_check_ ? kAtomicInitial : 0; }

void VerbsFlow::fill_message(std::uint8_t* dst, std::uint64_t k, std::uint64_t idx, std::uint32_t len) const {
  fill_pattern(dst, k, idx, len);
}

bool VerbsFlow::check_message(const std::uint8_t* got, std::uint64_t k, std::uint64_t idx, std::uint32_t len) const {
  return pattern_matches(got, k, idx, len);
}

void VerbsFlow::check_arrival_order(std::uint64_t& expected, std::uint64_t idx) {
  // RC delivers every message in order; UC and UD may lose some (counted) but never reorder.
  if (idx == expected) {
    ++expected;
  } else if (idx > expected && spec_.type != IBV_QPT_RC) {
    expected = idx + 1;  // messages lost in between: counted at the end
  } else {
    ++out_of_order_;
    expected = std::max(expected, idx + 1);
  }
}

void VerbsFlow::check_memory_at_end(nlohmann::json& dc) const {
  std::uint64_t differing = 0;
  bool unchanged = true;
  const std::uint32_t msg = spec_.message_size;
  for (int i = 0; i < 2; ++i) {
    const Side& s = sides_[i];
    const std::uint64_t offset = i == 1 ? spec_.remote.offset : 0;
    if (!s.target_initial.empty()) {
      std::vector<std::uint8_t> want = s.target_initial;
      if (verb_is_atomic(spec_.verb)) {
        const std::uint64_t v = atomic_initial() + atomics_done_;
        std::memcpy(want.data(), &v, 8);
      } else if (spec_.verb != Verb::kRead) {
        for (std::size_t k = 0; k < target_last_[i].size(); ++k) {
          if (target_last_[i][k] < 0) continue;
          const std::uint64_t at = k * msg + offset;
          if (at + msg <= want.size())
            fill_message(want.data() + at, key(1 - i), static_cast<std::uint64_t>(target_last_[i][k]), msg);
        }
      }
      const std::uint8_t* got = s.hca->memory().bytes(s.target, want.size());
      for (std::size_t k = 0; k < want.size(); ++k) differing += got[k] != want[k];
      unchanged = unchanged && std::memcmp(got, s.target_initial.data(), want.size()) == 0;
    }
    if (!s.recv_initial.empty()) {
      std::vector<std::uint8_t> want = s.recv_initial;
      const std::uint32_t head = recv_head();
      const std::uint8_t* got = s.hca->memory().bytes(s.recv, want.size());
      // Across routers every UD message came with a GRH, which lands in the room ahead of the
      // payload: its GIDs must be the sender's and this port's (its HopLmt tells the routers crossed).
      const Side& sender = sides_[1 - i];
      const bool global = head > 0 && sender.peer_address && sender.peer_address->is_global;
      for (std::size_t k = 0; k < recv_last_[i].size(); ++k) {
        if (recv_last_[i][k] < 0) continue;
        std::uint8_t* slot = want.data() + k * recv_slot_bytes();
        fill_message(slot + head, key(1 - i), static_cast<std::uint64_t>(recv_last_[i][k]), msg);
        if (!global) continue;
        const Grh g = decode_grh(got + k * recv_slot_bytes());
        if (g.ipver != kGrhIpVer || g.sgid != sender.hca->port_grh_source(1).sgid ||
            g.dgid != s.hca->port_grh_source(1).sgid)
          differing += head;
        std::memcpy(slot, got + k * recv_slot_bytes(), head);
      }
      for (std::size_t k = 0; k < want.size(); ++k) differing += got[k] != want[k];
      unchanged = unchanged && std::memcmp(got, s.recv_initial.data(), want.size()) == 0;
    }
  }
  dc["target_bytes_differing"] = differing;
  dc["target_unchanged"] = unchanged;
}

}  // namespace ibfsim
