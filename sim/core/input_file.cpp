#include "sim/core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sim/core/error.h"

namespace ibfsim {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "something that is not a file";
}

std::string size_text(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 30) && bytes % (std::size_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

std::string read_input_file(const std::string& path, const std::string& what, std::size_t max_bytes) {
  auto fail = [&](const std::string& got) -> std::string {
    throw InputError(path + ": expected " + what + ", got " + got);
  };
  // Opened without blocking: opening a FIFO with no writer would wait forever. O_NONBLOCK is
  // cleared once the type is known.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    if (err == EISDIR) return fail("a folder");
    if (err == ENOENT) return fail("no such file");
    return fail(std::string("a file it cannot read: ") + std::strerror(err));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(std::string("a file it cannot read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) return fail(kind_of(st.st_mode));
  if (S_ISREG(st.st_mode) && static_cast<unsigned long long>(st.st_size) > max_bytes)
    return fail("a file larger than " + size_text(max_bytes));
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  std::string text;
  if (S_ISREG(st.st_mode)) text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EISDIR) return fail("a folder");
      return fail(std::string("a file it cannot read: ") + std::strerror(errno));
    }
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes)
      return fail(S_ISFIFO(st.st_mode) ? "a pipe with more than " + size_text(max_bytes) : "a file larger than " + size_text(max_bytes));
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

}  // namespace ibfsim
