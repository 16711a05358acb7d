#include "sim/report/table_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include "sim/core/error.h"

namespace ibfsim {

namespace {

constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
constexpr int kZstdLevel = 3;  // zstd's default: fast, and CSV tables shrink about tenfold

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw OutputError("cannot write '" + path + "': " + why);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

struct TableFile::Zstd {
  ZSTD_CCtx* cctx = nullptr;
  ~Zstd() { ZSTD_freeCCtx(cctx); }
};

std::string table_file_name(const std::string& name, bool compress) { return name + (compress ? ".csv.zst" : ".csv"); }

TableFile::TableFile(std::string path, bool compress) : guard_(std::move(path)), compress_(compress) {
  fd_ = ::open(guard_.temp_path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) fail(guard_.path(), std::generic_category().message(errno));
  buffer_.reserve(kBufferBytes + 4096);
  if (!compress_) return;
  zstd_ = std::make_unique<Zstd>();
  zstd_->cctx = ZSTD_createCCtx();
  if (!zstd_->cctx) fail(guard_.path(), "zstd: out of memory");
  ZSTD_CCtx_setParameter(zstd_->cctx, ZSTD_c_compressionLevel, kZstdLevel);
  ZSTD_CCtx_setParameter(zstd_->cctx, ZSTD_c_checksumFlag, 1);
  compressed_.resize(ZSTD_CStreamOutSize());
}

TableFile::~TableFile() {
  if (fd_ >= 0) ::close(fd_);
  // The guard removes the temporary unless close() renamed it into place.
}

void TableFile::write(std::string_view text) {
  // A large text (a whole packet log) goes a buffer's worth at a time: the buffer never grows.
  while (!text.empty()) {
    const std::string_view part = text.substr(0, kBufferBytes);
    text.remove_prefix(part.size());
    buffer_.append(part.data(), part.size());
    lines_ += static_cast<std::uint64_t>(std::count(part.begin(), part.end(), '\n'));
    if (published_) published_->store(lines_, std::memory_order_relaxed);
    if (buffer_.size() >= kBufferBytes) flush(false);
  }
}

void TableFile::write_out(const char* p, std::size_t left) {
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(guard_.path(), std::generic_category().message(errno));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void TableFile::flush(bool last) {
  if (!compress_) {
    write_out(buffer_.data(), buffer_.size());
    buffer_.clear();
    return;
  }
  ZSTD_inBuffer in{buffer_.data(), buffer_.size(), 0};
  const ZSTD_EndDirective mode = last ? ZSTD_e_end : ZSTD_e_continue;
  for (;;) {
    ZSTD_outBuffer out{compressed_.data(), compressed_.size(), 0};
    const std::size_t remaining = ZSTD_compressStream2(zstd_->cctx, &out, &in, mode);
    if (ZSTD_isError(remaining)) fail(guard_.path(), std::string("zstd: ") + ZSTD_getErrorName(remaining));
    write_out(compressed_.data(), out.pos);
    // Done when the input is consumed and, at the end, the frame is flushed whole.
    if (last ? remaining == 0 : in.pos == in.size) break;
  }
  buffer_.clear();
}

void TableFile::close() {
  flush(true);
  const int fd = fd_;
  fd_ = -1;
  // close() can report a deferred write error (NFS, quota): the file is not complete then.
  if (::close(fd) != 0) fail(guard_.path(), std::generic_category().message(errno));
  guard_.commit();
}

std::string read_table_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read '" + path + "': " + std::generic_category().message(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string data = ss.str();
  if (!ends_with(path, ".zst")) return data;
  return decompress_table(data, path);
}

std::string decompress_table(std::string_view data, const std::string& what) {
  std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  if (!dctx) throw InputError("cannot read '" + what + "': expected memory for zstd, got none");
  std::string out;
  std::string chunk(ZSTD_DStreamOutSize(), '\0');
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  std::size_t last = 1;  // 0 once a frame has ended
  while (in.pos < in.size) {
    ZSTD_outBuffer o{chunk.data(), chunk.size(), 0};
    last = ZSTD_decompressStream(dctx.get(), &o, &in);
    if (ZSTD_isError(last))
      throw InputError("cannot read '" + what + "': expected a zstd-compressed table, got: " + ZSTD_getErrorName(last));
    out.append(chunk.data(), o.pos);
  }
  // What the decoder still holds once the input is consumed.
  while (last != 0) {
    ZSTD_outBuffer o{chunk.data(), chunk.size(), 0};
    const std::size_t r = ZSTD_decompressStream(dctx.get(), &o, &in);
    if (ZSTD_isError(r) || o.pos == 0) break;
    last = r;
    out.append(chunk.data(), o.pos);
  }
  if (last != 0) throw InputError("cannot read '" + what + "': expected a whole zstd frame, got a truncated one");
  return out;
}

}  // namespace ibfsim
