// scenarios/ib_vs_roce.yaml: one file, both fabrics, one table. The sweep the file's comment gives
// (fabric x congestion_control.enabled) runs the four points and writes one curve.csv; its victim,
// culprit and pause-frame columns are asserted exactly (the runs are deterministic), as are the
// warnings for the keys of the other fabric.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

// The last `n` comma-separated fields of `line`.
std::string tail_fields(const std::string& line, int n) {
  std::size_t pos = line.size();
  for (int i = 0; i < n; ++i) pos = line.rfind(',', pos - 1);
  return line.substr(pos + 1);
}

}  // namespace

TEST_CASE("ib_vs_roce: the incast with a victim on InfiniBand and RoCE, without and with CC, in one table",
          "[scenarios][roce]") {
  const std::string dir = scratch_dir("ib_vs_roce");
  const CommandResult r = run_ibfsim(
      "sweep " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/ib_vs_roce.yaml -o " + dir +
      " --set fabric=infiniband,roce --set congestion_control.enabled=false,true"
      " --metric 'victim:Gb/s=flows[name=victim].bandwidth_gbps' --metric 'c1:Gb/s=flows[name=c1].bandwidth_gbps'"
      " --metric 'pause_frames:frames=ethernet.pause_frames_sent'");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::istringstream in(read_file(dir + "/curve.csv"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 5);
  CHECK(tail_fields(lines[0], 3) == "victim,c1,pause_frames");
  CHECK(lines[1].rfind("0,infiniband,false,ok,", 0) == 0);
  // victim, c1 (Gb/s of payload), PFC frames (none on InfiniBand: an empty cell).
  CHECK(tail_fields(lines[1], 3) == "24.7711,24.7727,");   // IB, credits alone: the victim at c1's pace
  CHECK(tail_fields(lines[2], 3) == "49.6073,23.3775,");   // IB with A10: 67 % of the fair share
  CHECK(tail_fields(lines[3], 3) == "34.149,21.9838,444");  // RoCE, PFC alone: 46 %
  CHECK(tail_fields(lines[4], 3) == "78.8439,13.8005,0");   // RoCE with DCQCN: 107 %
  const nlohmann::json ib = nlohmann::json::parse(read_file(dir + "/points/p0000/results.json"));
  CHECK(ib["warnings"] == nlohmann::json::array({"roce: is ignored with fabric: infiniband"}));
  const nlohmann::json roce = nlohmann::json::parse(read_file(dir + "/points/p0003/results.json"));
  REQUIRE(roce["warnings"].size() == 3);
  CHECK(roce["warnings"][0].get<std::string>().rfind("congestion_control.switch is InfiniBand's (Annex A10) and ignored "
                                                     "with fabric: roce", 0) == 0);
}
