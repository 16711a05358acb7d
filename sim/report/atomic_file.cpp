#include "sim/report/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "sim/core/error.h"
#include "sim/core/temporary_files.h"

namespace ibfsim {

namespace {

[[noreturn]] void throw_errno(const std::string& what, const std::string& path, int err) {
  // generic_category().message is the thread-safe spelling of strerror.
  throw OutputError("cannot " + what + " '" + path + "': " +
                           std::generic_category().message(err));
}

}  // namespace

std::string atomic_temp_path(const std::string& path) {
  return path + ".tmp-" + std::to_string(static_cast<long long>(::getpid()));
}

void write_file_atomically(const std::string& path, std::string_view contents) {
  AtomicFileGuard guard(path);
  const int fd = ::open(guard.temp_path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw_errno("write", path, errno);
  const char* p = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw_errno("write", path, err);  // the guard removes the temporary
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  // close() can report a deferred write error (NFS, quota): the file is not complete then.
  if (::close(fd) != 0) throw_errno("write", path, errno);
  guard.commit();
}

AtomicFileGuard::AtomicFileGuard(std::string path)
    : path_(std::move(path)), temp_path_(atomic_temp_path(path_)), slot_(register_temporary(temp_path_)) {}

AtomicFileGuard::AtomicFileGuard(std::string path, std::string temp_path)
    : path_(std::move(path)), temp_path_(std::move(temp_path)), slot_(register_temporary(temp_path_)) {}

AtomicFileGuard::AtomicFileGuard(AtomicFileGuard&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      committed_(other.committed_),
      active_(other.active_),
      slot_(other.slot_) {
  other.active_ = false;
  other.slot_ = -1;
}

AtomicFileGuard& AtomicFileGuard::operator=(AtomicFileGuard&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    temp_path_ = std::move(other.temp_path_);
    committed_ = other.committed_;
    active_ = other.active_;
    slot_ = other.slot_;
    other.active_ = false;
    other.slot_ = -1;
  }
  return *this;
}

AtomicFileGuard::~AtomicFileGuard() { discard(); }

void AtomicFileGuard::commit() {
  if (!active_) throw std::logic_error("AtomicFileGuard::commit on an inactive guard for '" + path_ + "'");
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    discard();
    throw_errno("rename '" + temp_path_ + "' to", path_, err);
  }
  committed_ = true;
  active_ = false;
  unregister_temporary(slot_);
  slot_ = -1;
}

void AtomicFileGuard::discard() noexcept {
  if (!active_) return;
  std::remove(temp_path_.c_str());  // may not exist yet: nothing to report
  active_ = false;
  unregister_temporary(slot_);
  slot_ = -1;
}

}  // namespace ibfsim
