// The table of temporaries a signal handler removes, the stale-temporary sweep of a results
// folder, and reading input files whole (core/temporary_files.h, core/input_file.h).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/core/error.h"
#include "sim/core/input_file.h"
#include "sim/core/temporary_files.h"

using namespace ibfsim;
namespace fs = std::filesystem;

namespace {
fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::path(IBFSIM_TEST_OUT_DIR) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
}  // namespace

TEST_CASE("temporary_owner_pid reads NAME.tmp-PID and NAME.tmp-PID.EXT only", "[core][temporary]") {
  CHECK(temporary_owner_pid("results.json.tmp-1234") == 1234);
  CHECK(temporary_owner_pid("waves.tmp-77.vcd") == 77);
  CHECK(temporary_owner_pid("results.json") == 0);
  CHECK(temporary_owner_pid("a.tmp-") == 0);
  CHECK(temporary_owner_pid("a.tmp-12x") == 0);
  CHECK(temporary_owner_pid("a.tmp-12.v-d") == 0);
  CHECK(temporary_owner_pid(".tmp-12") == 0);
}

TEST_CASE("registered temporaries are removed all at once, released ones are not", "[core][temporary]") {
  const fs::path d = fresh_dir("temporaries_registry");
  std::ofstream(d / "a.tmp-1") << "a";
  std::ofstream(d / "b.tmp-1") << "b";
  const int a = register_temporary((d / "a.tmp-1").string());
  const int b = register_temporary((d / "b.tmp-1").string());
  REQUIRE(a >= 0);
  REQUIRE(b >= 0);
  unregister_temporary(b);
  remove_registered_temporaries();
  CHECK_FALSE(fs::exists(d / "a.tmp-1"));
  CHECK(fs::exists(d / "b.tmp-1"));
  unregister_temporary(a);
  CHECK(register_temporary(std::string(kTemporaryPathMax, 'x')) == -1);
}

TEST_CASE("remove_stale_temporaries removes only what dead processes left", "[core][temporary]") {
  const fs::path d = fresh_dir("temporaries_stale");
  // A PID far above pid_max (4194304 at most on Linux) belongs to no process.
  const std::string dead = "results.json.tmp-999999999";
  const std::string mine = "ports.csv.tmp-" + std::to_string(getpid());
  for (const std::string& f : {dead, mine, std::string("notes.txt"), std::string("x.tmp-999999999.vcd")})
    std::ofstream(d / f) << "x";
  auto removed = remove_stale_temporaries(d.string());
  std::sort(removed.begin(), removed.end());
  CHECK(removed == std::vector<std::string>{dead, "x.tmp-999999999.vcd"});
  CHECK(fs::exists(d / mine));
  CHECK(fs::exists(d / "notes.txt"));
}

TEST_CASE("read_input_file reads files and pipes, and names what is not a file", "[core][input]") {
  const fs::path d = fresh_dir("input_file");
  std::ofstream(d / "f.txt") << "hello";
  CHECK(read_input_file((d / "f.txt").string(), "a test file") == "hello");
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message([&] { read_input_file(d.string(), "a test file"); }) == d.string() + ": expected a test file, got a folder");
  CHECK(message([&] { read_input_file("/dev/zero", "a test file"); }) ==
        "/dev/zero: expected a test file, got a character device");
  CHECK(message([&] { read_input_file((d / "none").string(), "a test file"); }) ==
        (d / "none").string() + ": expected a test file, got no such file");
  CHECK(message([&] { read_input_file((d / "f.txt").string(), "a test file", 3); }) ==
        (d / "f.txt").string() + ": expected a test file, got a file larger than 3 bytes");
  // A named pipe with no writer reads as empty instead of blocking.
  REQUIRE(mkfifo((d / "fifo").c_str(), 0600) == 0);
  CHECK(read_input_file((d / "fifo").string(), "a test file").empty());
}
