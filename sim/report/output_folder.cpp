#include "sim/report/output_folder.h"

#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "sim/core/error.h"
#include "sim/core/temporary_files.h"

namespace fs = std::filesystem;

namespace ibfsim {

namespace {

const char* kind_of(const fs::file_status& st) {
  switch (st.type()) {
    case fs::file_type::regular: return "a regular file";
    case fs::file_type::directory: return "a folder";
    case fs::file_type::symlink: return "a symbolic link";
    case fs::file_type::block: return "a block device";
    case fs::file_type::character: return "a character device";
    case fs::file_type::fifo: return "a named pipe";
    case fs::file_type::socket: return "a socket";
    default: return "something that is not a folder";
  }
}

}  // namespace

void prepare_output_folder(const std::string& dir, const std::string& flag) {
  const std::string what = flag + " " + dir;
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) throw InputError(what + ": expected a folder for the results, got " + kind_of(st));
  } else {
    // Find the first part of the path that is in the way, for a message about it rather than the
    // library's "filesystem error: cannot create directories".
    fs::create_directories(dir, ec);
    if (ec) {
      for (fs::path p = fs::path(dir).parent_path(); !p.empty(); p = p.parent_path()) {
        std::error_code e2;
        const fs::file_status pst = fs::status(p, e2);
        if (fs::exists(pst) && !fs::is_directory(pst))
          throw InputError(what + ": expected a folder for the results that can be created, got " + p.string() +
                           ", " + kind_of(pst) + ", in its path");
        if (fs::exists(pst) || p == p.parent_path()) break;
      }
      throw InputError(what + ": expected a folder for the results that can be created, got: " + ec.message());
    }
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw InputError(what + ": expected a folder for the results that ibfsim can write, got: " +
                     std::generic_category().message(errno));
}

EarlierOutputs clear_earlier_outputs(const std::string& dir, const std::string& marker,
                                     const std::vector<std::string>& outputs) {
  EarlierOutputs e;
  e.temporaries = remove_stale_temporaries(dir);
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / marker, ec)) return e;
  for (const std::string& name : outputs) {
    const fs::path p = fs::path(dir) / name;
    const fs::file_status st = fs::symlink_status(p, ec);
    if (!fs::exists(st)) continue;
    if (fs::is_directory(st)) {
      fs::remove_all(p, ec);
    } else {
      fs::remove(p, ec);
    }
    if (ec)
      throw InputError(p.string() + ": expected to remove this file of an earlier run before writing new results, got: " +
                       ec.message());
    e.removed.push_back(name);
  }
  return e;
}

}  // namespace ibfsim
