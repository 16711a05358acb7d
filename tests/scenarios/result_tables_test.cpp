// Results at any size: results.json keeps the run's and the fabric's figures and an index of the
// tables; every port, VL, link, ... is a line of a CSV table, plain or zstd-compressed
// (outputs.compress) to the same bytes.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "sim/report/csv_text.h"
#include "sim/report/table_file.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

// A collective and load-driven traffic on the 16-host fat tree, with the packet log: every kind of
// table a run writes without congestion control, faults or attacks.
const char* kScenario = R"(fat_tree_16.yaml
seed: 4
workload:
  - {name: allreduce, pattern: ring_allreduce, transport: rc, verb: write, message_size: 65536, iterations: 2}
  - {name: background, pattern: uniform, transport: ud_send, message_size: 2048, load: 0.3, sl: 1}
phases: {warmup: 2us, measure: 20us, drain: 50us, limit: 2ms}
outputs: {packet_log: true}
)";

std::string zstd_d(const std::string& path) {
  return run_command("zstd -dcq '" + path + "'").output;
}

}  // namespace

TEST_CASE("results.json holds no table, only their index, and the tables hold every port, VL and link",
          "[scenarios][result_tables]") {
  run_scenario_text("tables_plain", kScenario);
  const std::string out = std::string(IBFSIM_TEST_OUT_DIR) + "/tables_plain/out";
  const nlohmann::json raw = nlohmann::json::parse(read_file(out + "/results.json"));
  for (const char* gone : {"ports", "links", "hca_model"}) CHECK_FALSE(raw.contains(gone));
  // 16 hosts, 8 switches, 32 cables: 64 connected ports, 8 data VLs each by default (port_vls.csv).
  CHECK(raw["topology"]["cables"] == 32);
  const nlohmann::json& t = raw["tables"];
  CHECK(t["ports"] == nlohmann::json({{"file", "ports.csv"}, {"rows", 64}}));
  CHECK(t["links"] == nlohmann::json({{"file", "links.csv"}, {"rows", 32}}));
  CHECK(t["port_utilization"]["rows"] == 64);
  CHECK(t["classes"]["rows"] == 3);  // two classes and `all`
  CHECK(t["fct"]["rows"] == 2);      // the collective's two iterations
  CHECK(t["packets"]["rows"] == raw["packets"]["injected"]);
  for (const auto& [name, entry] : t.items()) {
    INFO(name);
    const CsvTable table = parse_csv(read_file(out + "/" + entry["file"].get<std::string>()), name);
    CHECK(table.rows.size() == entry["rows"].get<std::size_t>());
  }
  // Each table once, as the index says: no table beside it that the index leaves out.
  for (const auto& e : std::filesystem::directory_iterator(out)) {
    const std::string f = e.path().filename().string();
    if (f.size() > 4 && f.compare(f.size() - 4, 4, ".csv") == 0) CHECK((t.contains(f.substr(0, f.size() - 4))));
  }
  // Small: the run's figures, not the fabric's elements (the tables are several times larger).
  CHECK(read_file(out + "/results.json").size() < 16 * 1024);
  CHECK(read_file(out + "/port_vls.csv").size() > read_file(out + "/results.json").size());
  // The ports' packet counts in ports.csv add up to the run's: a packet crossing a link is sent by
  // one port and received by the other, and each crossing is one of the run's packet hops.
  const CsvTable ports = parse_csv(read_file(out + "/ports.csv"), "ports.csv");
  std::uint64_t tx = 0, rx = 0, vl15_tx = 0, vl15_rx = 0;
  for (const auto& row : ports.rows) {
    tx += std::stoull(row[*ports.column("tx_packets")]);
    rx += std::stoull(row[*ports.column("rx_packets")]);
    vl15_tx += std::stoull(row[*ports.column("vl15_tx_packets")]);
    vl15_rx += std::stoull(row[*ports.column("vl15_rx_packets")]);
  }
  CHECK(tx == rx);            // nothing lost on a wire
  CHECK(vl15_tx == vl15_rx);  // the SMPs too
  CHECK(tx == raw["simulation"]["packet_hops"].get<std::uint64_t>());
  CHECK(vl15_tx > 0);

  // report.html draws each port with the tables' figures: its window's busy fraction, its worst VL's
  // credit stall over the window, its packets and discards.
  const std::string html = read_file(out + "/report.html");
  const CsvTable util = parse_csv(read_file(out + "/port_utilization.csv"), "port_utilization.csv");
  const CsvTable stall = parse_csv(read_file(out + "/credit_stall.csv"), "credit_stall.csv");
  const double window_ns = raw["phases"]["measure_ns"];
  REQUIRE(util.rows.size() == ports.rows.size());
  for (std::size_t i = 0; i < ports.rows.size(); ++i) {
    const auto& row = ports.rows[i];
    const std::string key = row[0] + "/" + row[1];
    INFO(key);
    REQUIRE(util.rows[i][0] + "/" + util.rows[i][1] == key);
    const double busy = std::stod(util.rows[i][3]);
    double worst = 0;
    for (const auto& s : stall.rows)
      if (s[0] + "/" + s[1] == key) worst = std::max(worst, std::stod(s[3]) / window_ns);
    const std::string half = fmt::format(
        "data-u=\"{:.6f}\" data-s=\"{:.6f}\" data-f=\"0\" data-info=\"{} -&gt; {}: utilisation {:.1f}%, credit stall "
        "{:.1f}%, FECN marked 0, {} packets sent, {} received, 0 discarded\"",
        busy, worst, key, row[*ports.column("peer")], 100 * busy, 100 * worst, row[*ports.column("tx_packets")],
        row[*ports.column("rx_packets")]);
    CHECK(html.find(half) != std::string::npos);
  }
}

TEST_CASE("outputs.compress: every table as .csv.zst, decompressing to the plain run's bytes",
          "[scenarios][result_tables]") {
  run_scenario_text("tables_cmp_plain", kScenario);
  run_scenario_text("tables_cmp_zst", kScenario, "--set outputs.compress=true");
  const std::string plain = std::string(IBFSIM_TEST_OUT_DIR) + "/tables_cmp_plain/out";
  const std::string packed = std::string(IBFSIM_TEST_OUT_DIR) + "/tables_cmp_zst/out";
  nlohmann::json a = nlohmann::json::parse(read_file(plain + "/results.json"));
  nlohmann::json b = nlohmann::json::parse(read_file(packed + "/results.json"));
  REQUIRE(a["tables"].size() == 9);  // 5 of ports, links, classes, packets, fct
  REQUIRE(b["tables"].size() == a["tables"].size());
  for (const auto& [name, entry] : a["tables"].items()) {
    INFO(name);
    const std::string file = entry["file"];
    CHECK(b["tables"][name]["file"] == file + ".zst");
    CHECK(b["tables"][name]["rows"] == entry["rows"]);
    CHECK_FALSE(std::filesystem::exists(packed + "/" + file));
    const std::string original = read_file(plain + "/" + file);
    REQUIRE(original.size() > 0);
    CHECK(read_file(packed + "/" + file + ".zst").compare(0, 4, "\x28\xb5\x2f\xfd") == 0);
    CHECK(zstd_d(packed + "/" + file + ".zst") == original);
    CHECK(read_table_file(packed + "/" + file + ".zst") == original);
  }
  // Apart from the tables' names (and the scenario file's place), the same results.
  for (const char* k : {"tables", "scenario"}) a.erase(k), b.erase(k);
  CHECK(a == b);
  // report.html links the compressed files.
  CHECK(read_file(packed + "/report.html").find("<a href=\"ports.csv.zst\">ports.csv.zst</a>") != std::string::npos);
  // The view reads either alike.
  CHECK(results_and_tables(plain)["ports"] == results_and_tables(packed)["ports"]);
}

TEST_CASE("outputs.compress takes true or false, and anything else is bad input naming the place", "[scenarios][result_tables]") {
  const std::string dir = scratch_dir("tables_bad_compress");
  std::FILE* f = std::fopen((dir + "/s.yaml").c_str(), "w");
  REQUIRE(f != nullptr);
  std::fputs(("topology: " + std::string(IBFSIM_SOURCE_DIR) + "/topologies/quickstart.yaml\noutputs:\n  compress: zstd\n").c_str(), f);
  std::fclose(f);
  CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + dir + "/s.yaml:3:13: expected true or false, got 'zstd'\n");
  CHECK_FALSE(std::filesystem::exists(dir + "/out/results.json"));
  r = run_ibfsim("run " + data_path("small_uniform.yaml") + " -o " + dir + "/out --set outputs.compres=true");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("compres") != std::string::npos);
}
