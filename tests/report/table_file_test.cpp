// A results folder's tables written line by line, plain or zstd-compressed: the compressed file
// decompresses (here, with the zstd command and with read_table_file) to exactly the plain file's
// bytes, the same lines give the same bytes, and a table is complete or absent, never left under
// its temporary name.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "scratch_dir.h"
#include "sim/core/error.h"
#include "sim/core/temporary_files.h"
#include "sim/report/table_file.h"

using namespace ibfsim;
using ibfsim::testing::ScratchDir;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A table of `rows` lines, several buffers' worth when large, written line by line.
std::string write_table(const std::string& path, bool compress, unsigned rows) {
  TableFile t(path, compress);
  std::string all = "node,port,tx_packets,busy_fraction\n";
  t.write(all);
  for (unsigned r = 0; r < rows; ++r) {
    const std::string line = fmt::format("sw{},{},{},{}\n", r / 36, r % 36 + 1, r * 7919ull % 1000003, r / 3.0);
    t.write(line);
    all += line;
  }
  CHECK(t.lines() == rows + 1);
  t.close();
  return all;
}

std::string zstd_command_output(const std::string& path) {
  std::string out;
  FILE* p = popen(("zstd -dcq '" + path + "'").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  CHECK(pclose(p) == 0);
  return out;
}

}  // namespace

TEST_CASE("table file: compressed decompresses to the plain table byte for byte", "[report][table_file]") {
  ScratchDir dir("table-file");
  for (unsigned rows : {0u, 3u, 100000u}) {  // empty, small, and about 4 MB: several buffers
    INFO(rows << " rows");
    const std::string text = write_table(dir.file("ports.csv"), false, rows);
    CHECK(write_table(dir.file("ports.csv.zst"), true, rows) == text);
    const std::string plain = slurp(dir.file("ports.csv")), packed = slurp(dir.file("ports.csv.zst"));
    CHECK(plain == text);
    CHECK(packed.compare(0, 4, "\x28\xb5\x2f\xfd") == 0);  // a zstd frame's magic number
    if (rows == 100000) CHECK(packed.size() < plain.size());
    CHECK(read_table_file(dir.file("ports.csv.zst")) == plain);
    CHECK(read_table_file(dir.file("ports.csv")) == plain);
    CHECK(zstd_command_output(dir.file("ports.csv.zst")) == plain);
    // The same lines give the same bytes.
    write_table(dir.file("again.csv.zst"), true, rows);
    CHECK(slurp(dir.file("again.csv.zst")) == packed);
  }
  CHECK(dir.entries() == std::vector<std::string>{"again.csv.zst", "ports.csv", "ports.csv.zst"});
  CHECK(table_file_name("ports", false) == "ports.csv");
  CHECK(table_file_name("ports", true) == "ports.csv.zst");
}

TEST_CASE("table file: written under its temporary name, which a signal's cleanup removes", "[report][table_file]") {
  ScratchDir dir("table-file-atomic");
  const std::string path = dir.file("port_vls.csv.zst");
  {
    TableFile t(path, true);
    t.write("node,port,vl\n");
    CHECK(dir.entries() == std::vector<std::string>{"port_vls.csv.zst.tmp-" + std::to_string(::getpid())});
    // What the handler of SIGINT, SIGTERM or SIGHUP does before the process ends (stop_signals.h).
    remove_registered_temporaries();
    CHECK(dir.entries().empty());
  }
  {
    TableFile t(path, false);
    t.write(std::string(3 << 20, 'x'));  // flushed to the temporary already
    // Abandoned (an exception while writing): nothing left.
  }
  CHECK(dir.entries().empty());
}

TEST_CASE("table file: errors name the file", "[report][table_file]") {
  ScratchDir dir("table-file-errors");
  CHECK_THROWS_WITH(TableFile(dir.file("no/such/ports.csv"), true),
                    Catch::Contains("cannot write '" + dir.file("no/such/ports.csv") + "': No such file or directory"));
  std::ofstream(dir.file("bad.csv.zst")) << "not zstd";
  CHECK_THROWS_AS(read_table_file(dir.file("bad.csv.zst")), InputError);
  CHECK_THROWS_WITH(read_table_file(dir.file("bad.csv.zst")), Catch::Contains("expected a zstd-compressed table"));
  // Cut short: the frame is not whole.
  write_table(dir.file("cut.csv.zst"), true, 1000);
  const std::string whole = slurp(dir.file("cut.csv.zst"));
  std::ofstream(dir.file("cut.csv.zst"), std::ios::binary) << whole.substr(0, whole.size() / 2);
  CHECK_THROWS_WITH(read_table_file(dir.file("cut.csv.zst")), Catch::Contains("truncated"));
  CHECK_THROWS_WITH(read_table_file(dir.file("missing.csv")), Catch::Contains("cannot read"));
}
