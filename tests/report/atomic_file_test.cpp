#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scratch_dir.h"
#include "sim/report/atomic_file.h"

using namespace ibfsim;
using ibfsim::testing::ScratchDir;

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("atomic write replaces the file and leaves no temporary", "[report]") {
  ScratchDir dir("atomic-write");
  const std::string path = dir.file("out.csv");
  write_file_atomically(path, "old contents that are longer\n");
  write_file_atomically(path, std::string_view("a,b\n1,2\n\0x", 10));
  CHECK(slurp(path) == std::string("a,b\n1,2\n\0x", 10));
  CHECK(dir.entries() == std::vector<std::string>{"out.csv"});
  CHECK(atomic_temp_path(path) == path + ".tmp-" + std::to_string(::getpid()));
}

TEST_CASE("atomic write failure names the path and leaves nothing", "[report]") {
  ScratchDir dir("atomic-fail");
  const std::string path = dir.file("missing-dir/out.json");
  try {
    write_file_atomically(path, "x");
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains(path));
    CHECK_THAT(what, Catch::Contains("No such file or directory"));
  }
  CHECK(dir.entries().empty());
}

TEST_CASE("an uncommitted AtomicFileGuard removes its temporary", "[report]") {
  ScratchDir dir("atomic-guard");
  const std::string path = dir.file("trace.pcap");
  {
    AtomicFileGuard guard(path);
    std::ofstream(guard.temp_path()) << "partial";
    CHECK(dir.entries().size() == 1);
  }
  CHECK(dir.entries().empty());
  {
    AtomicFileGuard guard(path);
    std::ofstream(guard.temp_path()) << "complete";
    AtomicFileGuard moved(std::move(guard));  // the moved-from guard must not delete anything
    moved.commit();
    CHECK(moved.committed());
  }
  CHECK(dir.entries() == std::vector<std::string>{"trace.pcap"});
  CHECK(slurp(path) == "complete");
}
