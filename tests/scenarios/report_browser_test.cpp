// report.html in a real browser: headless Chromium (Debian's chromium) loads the report of
// scenarios/cc_victim.yaml and of a small sweep from disk, and the DOM it ends with is read back:
// the page's script ran without an error, the numbers are results.json's, every link leads to a
// file that is there, the picture and the hottest-ports table point at the congested spine port,
// and the sweep's points link to their own reports.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

struct Page {
  std::string dom;     // the DOM after the page's scripts ran (chromium --dump-dom)
  std::string log;     // chromium's stderr, console messages included
};

// Loads `file` (with `fragment`) in headless Chromium; `profile`: a folder of its own.
Page load(const std::string& file, const std::string& fragment, const std::string& profile) {
  const std::string out = profile + "/dom.html", err = profile + "/chromium.log";
  const std::string cmd = "timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run "
                          "--disable-background-networking --host-resolver-rules='MAP * ~NOTFOUND' "
                          "--enable-logging=stderr --v=0 --user-data-dir='" + profile + "/profile' "
                          "--virtual-time-budget=5000 --dump-dom 'file://" + file + fragment + "' > '" + out +
                          "' 2> '" + err + "'";
  const CommandResult r = run_command(cmd);
  INFO(read_file(err).substr(0, 3000));
  REQUIRE(r.exit_code == 0);
  return {read_file(out), read_file(err)};
}

void check_no_script_errors(const Page& p) {
  CHECK(p.dom.find("data-script-errors=\"") == std::string::npos);  // the attribute, not the script that sets it
  CHECK(p.dom.find("data-ready=\"1\"") != std::string::npos);
  CHECK(p.log.find("Uncaught") == std::string::npos);
  CHECK(p.log.find(":CONSOLE") == std::string::npos);  // nothing logged to the console at all
}

// Every href of the page that is not an anchor or a data URI names a file next to the page.
std::size_t check_links(const std::string& dom, const std::filesystem::path& dir) {
  std::size_t n = 0;
  static const std::regex href("href=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), href); it != std::sregex_iterator(); ++it) {
    const std::string target = (*it)[1];
    if (target[0] == '#' || target.rfind("data:", 0) == 0) continue;
    INFO(target);
    CHECK(target.find("//") == std::string::npos);
    CHECK(std::filesystem::exists(dir / target));
    ++n;
  }
  return n;
}

// The rows of the hottest-ports table in the order the page shows them (visible rows only).
std::vector<std::string> visible_hot_rows(const std::string& dom) {
  std::vector<std::string> keys;
  static const std::regex row("<tr data-key=\"([^\"]+)\"([^>]*)>");
  const std::size_t body = dom.find("id=\"hot-body\"");
  for (auto it = std::sregex_iterator(dom.begin() + static_cast<long>(body), dom.end(), row); it != std::sregex_iterator(); ++it)
    if ((*it)[2].str().find("display: none") == std::string::npos && (*it)[2].str().find("display:none") == std::string::npos)
      keys.push_back((*it)[1]);
  return keys;
}

std::string gbps(double v) { return fmt::format("{:.2f}", v); }

}  // namespace

TEST_CASE("report.html of cc_victim in headless Chromium: no script errors, results.json's numbers, working links, "
          "the congestion at spine/5",
          "[scenarios][report][browser]") {
  REQUIRE(run_command("command -v chromium").exit_code == 0);  // scripts/bootstrap.sh installs it
  const std::string dir = std::filesystem::absolute(scratch_dir("report_browser")).string();
  const std::string out = dir + "/run";
  const CommandResult r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/cc_victim.yaml -o " + out);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("report: " + out + "/report.html") != std::string::npos);
  const auto results = nlohmann::json::parse(read_file(out + "/results.json"));

  const Page page = load(out + "/report.html", "", dir);
  check_no_script_errors(page);
  CHECK(page.dom.find("data-metric=\"util\"") != std::string::npos);
  // The numbers are results.json's.
  const auto& pk = results["packets"];
  CHECK(page.dom.find(fmt::format("{} created, {} delivered, {} dropped", pk["created"].get<int>(), pk["delivered"].get<int>(),
                                  pk["dropped_total"].get<int>())) != std::string::npos);
  for (const auto& f : results["flows"]) {
    INFO(f["name"]);
    CHECK(page.dom.find(gbps(f["throughput"]["accepted_payload_gbps"].get<double>())) != std::string::npos);
  }
  CHECK(page.dom.find(fmt::format("{} FECN marked", results["congestion_control"]["totals"]["fecn_marked"].get<int>())) !=
        std::string::npos);
  // Every link leads to a file of the folder; every result file is linked.
  CHECK(check_links(page.dom, out) >= 8);
  for (const char* f : {"results.json", "ports.csv", "port_utilization.csv", "time_series.csv", "time_series.svg"})
    CHECK(page.dom.find(std::string("href=\"") + f + "\"") != std::string::npos);
  // The time series is embedded.
  CHECK(page.dom.find("src=\"data:image/svg+xml;base64,") != std::string::npos);
  // Where the congestion is: the two ports on the way to the hot host, spine/5 (to its leaf) and
  // leaf5/1, are the busiest, and spine/5 is the most FECN-marked port; its half of the link is
  // drawn in the hottest colour.
  const std::vector<std::string> by_util = visible_hot_rows(page.dom);
  REQUIRE(by_util.size() == 20);
  CHECK(std::set<std::string>(by_util.begin(), by_util.begin() + 2) == std::set<std::string>{"spine/5", "leaf5/1"});
  const Page fecn = load(out + "/report.html", "#metric=fecn", dir);
  check_no_script_errors(fecn);
  CHECK(fecn.dom.find("data-metric=\"fecn\"") != std::string::npos);
  CHECK(visible_hot_rows(fecn.dom).front() == "spine/5");
  const std::regex hottest(R"(<line class="half"[^>]*stroke="#a50026"[^>]*data-info="spine/5 -&gt; leaf5/3)");
  CHECK(std::regex_search(fecn.dom, hottest));  // the script coloured it: the most marked port is the darkest
}

TEST_CASE("a sweep's report.html in headless Chromium: every point linked to its own report, which loads too",
          "[scenarios][report][browser]") {
  REQUIRE(run_command("command -v chromium").exit_code == 0);
  const std::string dir = std::filesystem::absolute(scratch_dir("sweep_report_browser")).string();
  const CommandResult r = run_ibfsim("sweep " + data_path("sweep_uniform.yaml") + " --set workload.load=0.2,0.6,1.0 -j 2 -o " +
                                     dir + "/sweep");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const Page page = load(dir + "/sweep/report.html", "", dir);
  check_no_script_errors(page);
  CHECK(check_links(page.dom, dir + "/sweep") >= 3 * 4);
  for (const char* p : {"points/p0000/report.html", "points/p0001/report.html", "points/p0002/report.html"})
    CHECK(page.dom.find(std::string("href=\"") + p + "\"") != std::string::npos);
  for (const char* plot : {"latency.svg", "throughput.svg"}) CHECK(page.dom.find(std::string("href=\"") + plot + "\"") != std::string::npos);
  const Page point = load(dir + "/sweep/points/p0001/report.html", "", dir);
  check_no_script_errors(point);
  CHECK(check_links(point.dom, dir + "/sweep/points/p0001") >= 4);
}
