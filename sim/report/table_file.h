// A table of a results folder (ports.csv, links.csv, ...) written as it is made, line by line:
// under its temporary name (atomic_file.h), through a buffer of about a megabyte, and, with
// `outputs.compress`, compressed with zstd into NAME.csv.zst. Memory stays one buffer whatever the
// table's size, so a fabric of tens of thousands of ports writes its tables without holding them.
//
// The compressed file is one zstd frame (level 3, a content checksum, one thread): the same lines
// give the same bytes, and `zstd -d` (or any zstd reader) gives back exactly the uncompressed
// table. The file is renamed into place by close(); a writer destroyed without it (an exception, a
// signal) removes its temporary, so a table is complete or absent.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sim/report/atomic_file.h"

namespace ibfsim {

// The file name of table `name` ("ports") as written: "ports.csv", or "ports.csv.zst" compressed.
std::string table_file_name(const std::string& name, bool compress);

class TableFile {
 public:
  // Opens `path` (the final name: NAME.csv or NAME.csv.zst; compressed when `compress`) for
  // writing. Throws OutputError when it cannot be created.
  TableFile(std::string path, bool compress);
  ~TableFile();
  TableFile(const TableFile&) = delete;
  TableFile& operator=(const TableFile&) = delete;

  // Appends text; a line ends with '\n'. Lines are counted (lines()).
  void write(std::string_view text);
  std::uint64_t lines() const { return lines_; }
  // Where a progress display may read the lines written so far (from another thread); null: none.
  void publish_lines(std::atomic<std::uint64_t>* counter) { published_ = counter; }

  // Writes what is buffered, ends the zstd frame and renames the file into place. Throws
  // OutputError naming the file and the reason (disk full, ...); the temporary is then removed.
  void close();
  const std::string& path() const { return guard_.path(); }

 private:
  void flush(bool last);
  void write_out(const char* data, std::size_t size);

  AtomicFileGuard guard_;
  int fd_ = -1;
  bool compress_ = false;
  std::string buffer_;
  std::string compressed_;
  struct Zstd;
  std::unique_ptr<Zstd> zstd_;
  std::uint64_t lines_ = 0;
  std::atomic<std::uint64_t>* published_ = nullptr;
};

// The whole text of a table file: read as it is, or decompressed when its name ends in ".zst".
// Throws InputError naming the file when it cannot be read or is no zstd frame.
std::string read_table_file(const std::string& path);
// zstd-compressed bytes (one frame or several) decompressed; InputError naming `what` when they are
// not whole zstd frames.
std::string decompress_table(std::string_view data, const std::string& what);

}  // namespace ibfsim
