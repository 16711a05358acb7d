// Result files appear complete or not at all: each is written under a temporary name next to its
// final path and renamed into place once fully written (rename is atomic within a file system), so
// an interrupted run never leaves a half-written result behind (docs/architecture.md, "Outputs").
// Every temporary is also known to core/temporary_files.h while it exists, so that a process ended
// by a signal removes it first, and a later run into the same folder removes those of a process
// that was killed outright (SIGKILL).
//
// The files are not fsync'ed: the guarantee covers an interrupted or crashed process, not a power
// failure, and fsync per result file would make a results folder slow to write on some file systems.
#pragma once
#include <string>
#include <string_view>

namespace ibfsim {

// The temporary name used for `path` by this process: path + ".tmp-<pid>". The pid keeps two runs
// writing the same results folder from clobbering each other's half-written files.
std::string atomic_temp_path(const std::string& path);

// Writes `contents` to atomic_temp_path(path), then renames it to `path` (replacing any old file).
// On failure removes the temporary file and throws std::runtime_error naming the path and the
// system's error text.
void write_file_atomically(const std::string& path, std::string_view contents);

// Name bookkeeping for a file that is written incrementally by someone else (a FILE*, libpcap):
// the writer opens temp_path(), and commit() renames it to path() once the writer has closed it.
// A guard destroyed without commit() removes the temporary file, so an exception or an abandoned
// writer leaves nothing behind. Moveable, not copyable.
class AtomicFileGuard {
 public:
  explicit AtomicFileGuard(std::string path);
  // With a temporary name of the caller's (a writer that appends its own extension); it should
  // still carry ".tmp-PID" so that remove_stale_temporaries (core/temporary_files.h) knows it.
  AtomicFileGuard(std::string path, std::string temp_path);
  AtomicFileGuard(AtomicFileGuard&& other) noexcept;
  AtomicFileGuard& operator=(AtomicFileGuard&& other) noexcept;
  AtomicFileGuard(const AtomicFileGuard&) = delete;
  AtomicFileGuard& operator=(const AtomicFileGuard&) = delete;
  ~AtomicFileGuard();

  const std::string& path() const { return path_; }            // final name
  const std::string& temp_path() const { return temp_path_; }  // where to write meanwhile
  bool committed() const { return committed_; }

  // Renames temp_path() to path(). Call only after the file is closed. Throws std::runtime_error
  // (naming both paths and the error) if the rename fails; the temporary is then removed.
  void commit();
  // Removes the temporary file now (no-op if committed or already discarded).
  void discard() noexcept;

 private:
  std::string path_;
  std::string temp_path_;
  bool committed_ = false;
  bool active_ = true;  // false once committed, discarded or moved from
  int slot_ = -1;       // in the table of temporaries a signal handler removes
};

}  // namespace ibfsim
