#include "sim/core/temporary_files.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cctype>
#include <cstring>
#include <filesystem>

namespace ibfsim {

namespace {

enum SlotState : int { kFree = 0, kClaimed = 1, kLive = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[kTemporaryPathMax];
};

Slot g_slots[kTemporarySlots];

}  // namespace

int register_temporary(const std::string& path) noexcept {
  if (path.size() >= kTemporaryPathMax) return -1;
  for (std::size_t i = 0; i < kTemporarySlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kLive, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void unregister_temporary(int slot) noexcept {
  if (slot < 0 || static_cast<std::size_t>(slot) >= kTemporarySlots) return;
  g_slots[slot].state.store(kFree, std::memory_order_release);
}

void remove_registered_temporaries() noexcept {
  for (Slot& s : g_slots)
    if (s.state.load(std::memory_order_acquire) == kLive) ::unlink(s.path);
}

long temporary_owner_pid(const std::string& name) {
  const auto at = name.rfind(".tmp-");
  if (at == std::string::npos || at == 0) return 0;
  std::size_t i = at + 5;
  long pid = 0;
  std::size_t digits = 0;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 10; ++i, ++digits)
    pid = pid * 10 + (name[i] - '0');
  if (digits == 0) return 0;
  if (i == name.size()) return pid;
  // One extension after the PID: letters and digits only ("waves.tmp-123.vcd").
  if (name[i] != '.' || i + 1 == name.size()) return 0;
  for (std::size_t j = i + 1; j < name.size(); ++j)
    if (!std::isalnum(static_cast<unsigned char>(name[j]))) return 0;
  return pid;
}

std::vector<std::string> remove_stale_temporaries(const std::string& dir, const std::string& prefix) {
  namespace fs = std::filesystem;
  std::vector<std::string> removed;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) return removed;
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (!prefix.empty() && name.rfind(prefix, 0) != 0) continue;
    const long pid = temporary_owner_pid(name);
    if (pid <= 0) continue;
    // A process that still runs (or runs as another user: EPERM) may be writing it right now.
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) continue;
    std::error_code rm;
    if (it->is_regular_file(rm) && fs::remove(it->path(), rm)) removed.push_back(name);
  }
  return removed;
}

}  // namespace ibfsim
