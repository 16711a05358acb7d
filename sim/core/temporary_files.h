// The temporary files a process is writing right now (report/atomic_file.h names them
// FINAL.tmp-PID), known by name so that a signal handler can remove them before the process dies:
// a process ended by a signal leaves no temporary file behind (docs/architecture.md, "Outputs").
//
// The table has a fixed number of slots, each a path of at most kTemporaryPathMax bytes, claimed
// and released with atomics: registering allocates nothing the handler could see half-built, and
// the removal below uses only unlink(2).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace ibfsim {

inline constexpr std::size_t kTemporarySlots = 64;
inline constexpr std::size_t kTemporaryPathMax = 4096;

// Records `path` as a temporary being written; returns its slot, or -1 when every slot is taken or
// the path is too long (the file is then only removed by the usual guards and by a later run's
// remove_stale_temporaries).
int register_temporary(const std::string& path) noexcept;
// Forgets a slot (after the file was renamed into place or removed). -1 is a no-op.
void unregister_temporary(int slot) noexcept;
// Removes every registered temporary now. Async-signal-safe.
void remove_registered_temporaries() noexcept;

// The PID in a temporary's name: NAME.tmp-PID, optionally followed by one extension
// (SystemC's VCD writer appends ".vcd"). 0 if `file_name` is not such a name.
long temporary_owner_pid(const std::string& file_name);

// Removes the temporaries in `dir` (not its subfolders) left by processes that no longer run
// (killed with SIGKILL, or by a crash); with `prefix`, only files whose names start with it.
// Returns the names removed. Errors (a folder that cannot be listed) are ignored: this is cleanup.
std::vector<std::string> remove_stale_temporaries(const std::string& dir, const std::string& prefix = "");

}  // namespace ibfsim
