// report.html without a browser: the layout of the fabric picture (layered for trees, a grid for
// meshes, tori and hypercubes, hosts grouped when many), and the page's text: the summary's
// numbers, every link half with its port's figures, the hottest ports in order, the result files
// and plots, points of a sweep linked to their reports, and nothing fetched from the network.
#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "sim/core/stats_registry.h"
#include "sim/report/run_report.h"
#include "sim/report/sweep_report.h"

using namespace ibfsim;

namespace {

// h1..h4 on leaf1 and leaf2 (two each), both leaves cabled to spine1 and spine2.
ReportFabric leaf_spine(std::size_t hosts_per_leaf = 2) {
  ReportFabric f;
  const std::size_t hosts = 2 * hosts_per_leaf;
  for (std::size_t i = 0; i < hosts; ++i) f.nodes.push_back({"h" + std::to_string(i + 1), false});
  for (const char* s : {"leaf1", "leaf2", "spine1", "spine2"}) f.nodes.push_back({s, true});
  for (std::size_t i = 0; i < hosts; ++i)
    f.links.push_back({i, hosts + i / hosts_per_leaf, 1, static_cast<unsigned>(i % hosts_per_leaf + 1)});
  for (std::size_t l = 0; l < 2; ++l)
    for (std::size_t s = 0; s < 2; ++s)
      f.links.push_back({hosts + l, hosts + 2 + s, static_cast<unsigned>(hosts_per_leaf + 1 + s), static_cast<unsigned>(l + 1)});
  return f;
}

nlohmann::json results() {
  return nlohmann::json::parse(R"({
    "ibfsim_version": "0.1.0", "scenario": "scenarios/test.yaml", "seed": 7, "partial": false,
    "topology": {"hcas": 4, "switches": 4, "cables": 8, "file": "t.yaml"},
    "subnet_manager": {"mode": "in_band", "host": "h1", "routing": "minhop", "bring_up_ns": 123456.0, "bring_up_smps": 99},
    "phases": {"start_ns": 123456.0, "end_ns": 400000.0, "measure_ns": 200000.0},
    "packets": {"created": 1000, "delivered": 990, "dropped_total": 10},
    "message_latency": {"count": 500, "mean_ns": 1234.0, "p99_ns": 5678.0, "max_ns": 9999.0},
    "load": {"offered": 0.5, "accepted": 0.4975, "offered_payload_gbps": 200.0, "accepted_payload_gbps": 199.0},
    "saturation": {"saturated": true, "reason": "42 measured messages not delivered"},
    "flows": [{"name": "victim", "sl": 0, "throughput": {"offered_payload_gbps": 49.23, "accepted_payload_gbps": 50.41},
               "latency": {"mean_ns": 17784.7, "p99_ns": 64165.7}}],
    "congestion_control": {"totals": {"fecn_marked": 5436, "cnp_sent": 5197, "becn_received": 0, "cnp_received": 5195}}
    })");
}

// The statistics of three ports as a run registers them (link/port_statistics.cpp,
// workload/port_window_statistics.cpp, network/switch_statistics.cpp), for report_ports.
struct TestPort {
  std::string node;
  unsigned port;
  std::string peer;
  std::uint64_t tx, rx;
  double busy;
  std::vector<double> window_stall_ns;
  std::vector<std::uint64_t> discards;  // per reason
  std::optional<std::uint64_t> fecn;    // a switch port that met congestion
};
StatsSnapshot port_statistics(const std::vector<TestPort>& tp, bool window) {
  StatsRegistry reg;
  using P = const TestPort*;
  using PV = std::pair<const TestPort*, std::size_t>;
  auto ports = reg.add_kind<P>("ports", {"node", "port"});
  ports.attribute("peer", kPortsCsv, [](P p) { return p->peer; })
      .attribute("state", kPortsCsv, [](P) { return "Active"; })
      .counter("tx_packets", "packets", kPortsCsv, [](P p) { return p->tx; })
      .counter("rx_packets", "packets", kPortsCsv, [](P p) { return p->rx; })
      .figure("run_busy_fraction", "fraction", Merge::kSame, kPortsCsv, [](P p) { return p->busy / 2; });
  auto vls = reg.add_kind<PV>("vls", {"vl"}, Nesting::kObjects, ports.index());
  vls.figure("credit_stall_ns", "ns", Merge::kSum, kPortVlsCsv, [](const PV& v) { return 2 * v.first->window_stall_ns[v.second]; });
  auto drops = reg.add_kind<PV>("discards", {"reason"}, Nesting::kMap, ports.index());
  drops.counter("packets", "packets", kDiscardsCsv, [](const PV& v) { return v.first->discards[v.second]; });
  if (window) ports.figure("window.busy_fraction", "fraction", Merge::kSame, kPortUtilizationCsv, [](P p) { return p->busy; });
  auto stalls = reg.add_kind<PV>("window.credit_stall_ns", {"vl"}, Nesting::kList, ports.index());
  stalls.figure("credit_stall_ns", "ns", Merge::kSum, kCreditStallCsv, [](const PV& v) { return v.first->window_stall_ns[v.second]; });
  auto marks = reg.add_kind<P>("switch_ports", {"node", "port"});
  marks.counter("fecn_marked", "packets", kCcSwitchPortsCsv, [](P p) { return p->fecn; });
  for (const TestPort& p : tp) {
    const std::size_t row = ports.add(&p, kNoStatParent, p.node, p.port);
    for (std::size_t v = 0; v < p.window_stall_ns.size(); ++v) {
      vls.add({&p, v}, row, v);
      if (window) stalls.add({&p, v}, row, v);
    }
    for (std::size_t r = 0; r < p.discards.size(); ++r) drops.add({&p, r}, row, r == 0 ? "unknown_dlid" : "link_down");
    if (p.fecn) marks.add(&p, kNoStatParent, p.node, p.port);
  }
  return reg.snapshot();
}

std::vector<TestPort> three_ports() {
  return {{"spine1", 2, "leaf2/4", 9000, 10, 0.958, {0.0, 1000.0}, {0, 0}, 4226},
          {"leaf1", 3, "spine1/1", 5000, 10, 0.5, {150000.0}, {3, 0}, std::nullopt},
          {"h1", 1, "leaf1/1", 100, 10, 0.25, {0.0}, {}, std::nullopt}};
}

// The run's results.json's phases: a 200 us window in a 400 us run.
ReportPorts ports(bool window = true) { return report_ports(port_statistics(three_ports(), window), 200000.0, 400000.0); }

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

void check_self_contained(const std::string& html) {
  // Nothing is fetched: no src or href to another site, no external stylesheet or script.
  CHECK_FALSE(std::regex_search(html, std::regex(R"((src|href)\s*=\s*["']?(https?:)?//)")));
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("<script src") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("</html>") != std::string::npos);
}

}  // namespace

TEST_CASE("report ports: each port's figures from the run's statistics, over the window or the whole run",
          "[report][html]") {
  const ReportPorts w = ports(true);
  CHECK(w.windowed);
  REQUIRE(w.ports.size() == 3);
  const ReportPort& spine = w.ports[0];
  CHECK(spine.key() == "spine1/2");
  CHECK(spine.peer == "leaf2/4");
  CHECK(spine.state == "Active");
  CHECK(spine.util == 0.958);
  CHECK(spine.stall == 1000.0 / 200000.0);  // its worst VL over the window
  CHECK(spine.fecn == 4226);
  CHECK(spine.tx_packets == 9000);
  CHECK(w.ports[1].stall == 0.75);
  CHECK(w.ports[1].discards == 3);
  CHECK(w.ports[1].fecn == 0);
  // Without a measurement window: the whole run's busy fraction and stall (over 400 us).
  const ReportPorts r = ports(false);
  CHECK_FALSE(r.windowed);
  CHECK(r.ports[0].util == 0.958 / 2);
  CHECK(r.ports[1].stall == 2 * 150000.0 / 400000.0);
}

TEST_CASE("report: the hottest ports' table holds the first 20 by each figure", "[report][html]") {
  ReportPorts many;
  for (unsigned i = 0; i < 50; ++i) {
    ReportPort p;
    p.node = "sw";
    p.port = i + 1;
    p.util = i / 100.0;                       // the busiest: ports 31..50
    p.stall = i < 10 ? 0.5 + i / 100.0 : 0;   // the most stalled: ports 1..10, then ties at 0 by name
    p.fecn = i == 20 ? 7 : 0;                 // port 21 marked
    many.ports.push_back(p);
  }
  const std::vector<const ReportPort*> rows = hot_port_candidates(many);
  std::set<unsigned> chosen;
  for (const ReportPort* p : rows) chosen.insert(p->port);
  // Utilisation: 31..50. Stall: 1..10, then 10 of the ties at 0 by name: sw/11 .. sw/20. FECN: 21,
  // then 19 of the ties by name: sw/1, sw/10 .. sw/19, sw/2, sw/20, sw/22 .. sw/27. Left out: 28..30.
  std::set<unsigned> expected;
  for (unsigned p = 1; p <= 50; ++p)
    if (p < 28 || p > 30) expected.insert(p);
  CHECK(chosen == expected);
  CHECK(rows.size() == 47);
  // In the order of utilisation, busiest first.
  for (std::size_t i = 1; i < rows.size(); ++i) CHECK(rows[i - 1]->util >= rows[i]->util);
}

TEST_CASE("report layout: a tree in layers, hosts at the bottom, grouped when many", "[report][html]") {
  const ReportFabric f = leaf_spine();
  const ReportLayout l = report_layout(f);
  CHECK(l.kind == ReportLayout::Kind::kLayered);
  CHECK_FALSE(l.hosts_grouped);
  CHECK(l.level == std::vector<int>{0, 0, 0, 0, 1, 1, 2, 2});
  // Bottom to top: hosts below leaves below spines (SVG y grows downwards).
  CHECK(l.y[0] > l.y[4]);
  CHECK(l.y[4] > l.y[6]);
  // Hosts under their leaf: h1, h2 left of h3, h4 as leaf1 is left of leaf2.
  CHECK(l.x[4] < l.x[5]);
  CHECK(l.x[1] < l.x[2]);
  // Many hosts: one box per leaf, each host drawn at its box.
  const ReportFabric big = leaf_spine(40);
  const ReportLayout g = report_layout(big);
  CHECK(g.hosts_grouped);
  CHECK(g.group[0] == 80);  // leaf1
  CHECK(g.group[79] == 81);
  CHECK(g.x[0] == g.x[39]);
  CHECK(g.x[0] < g.x[40]);
  CHECK(g.width < 40 * 80);  // as wide as the groups and switches need, not the hosts
}

TEST_CASE("report layout: meshes, tori and hypercubes on a grid by their switches' names", "[report][html]") {
  ReportFabric t;
  for (int x = 0; x < 3; ++x)
    for (int y = 0; y < 2; ++y) t.nodes.push_back({"sw" + std::to_string(x) + "_" + std::to_string(y), true});
  t.nodes.push_back({"h1", false});
  t.links.push_back({6, 0, 1, 1});
  t.links.push_back({0, 2, 3, 4});
  const ReportLayout l = report_layout(t);
  CHECK(l.kind == ReportLayout::Kind::kGrid);
  CHECK(l.hosts_grouped);
  CHECK(l.x[0] == l.x[1]);  // sw0_0 and sw0_1: same x
  CHECK(l.y[0] < l.y[1]);
  CHECK(l.x[0] < l.x[2]);   // sw1_0 to the right
  CHECK(l.group[6] == 0);
  ReportFabric h;
  for (const char* n : {"sw00", "sw01", "sw10", "sw11"}) h.nodes.push_back({n, true});
  CHECK(report_layout(h).kind == ReportLayout::Kind::kGrid);
  h.nodes[3].name = "core";
  CHECK(report_layout(h).kind == ReportLayout::Kind::kLayered);
}

TEST_CASE("run report: summary numbers, link halves with their ports' figures, hottest ports, files, plots",
          "[report][html]") {
  const std::string html = run_report_html(results(), ports(), leaf_spine(),
                                           {{"Time series", "time_series.svg", "<svg>x</svg>"}},
                                           {"results.json", "ports.csv", "time_series.svg"});
  check_self_contained(html);
  // The summary repeats results.json's figures.
  for (const char* text : {"scenarios/test.yaml", "1000 created, 990 delivered, 10 dropped", "mean 1.234 us",
                           "offered 0.5000, accepted 0.4975", "SATURATED", "42 measured messages not delivered",
                           "5436 FECN marked", "victim", "50.41", "49.23", "123.5 us (subnet manager on h1, minhop routing, 99 SMPs)"})
    CHECK(html.find(text) != std::string::npos);
  // Every cable is two halves (8 cables, no grouping at 4 hosts), each with its port's figures.
  CHECK(count(html, "class=\"half\"") == 16);
  CHECK(html.find("data-u=\"0.958000\" data-s=\"0.005000\" data-f=\"4226\"") != std::string::npos);
  CHECK(html.find("spine1/2 -&gt; leaf2/4: utilisation 95.8%, credit stall 0.5%, FECN marked 4226") != std::string::npos);
  // The hottest ports, busiest first; the selector for the three figures.
  const std::size_t spine = html.find("<tr data-key=\"spine1/2\""), leaf = html.find("<tr data-key=\"leaf1/3\""),
                    host = html.find("<tr data-key=\"h1/1\"");
  CHECK(spine < leaf);
  CHECK(leaf < host);
  CHECK(html.find("<td>75.0%</td>") != std::string::npos);  // leaf1/3: 150 us of stall in a 200 us window
  for (const char* v : {"value=\"util\"", "value=\"stall\"", "value=\"fecn\""}) CHECK(html.find(v) != std::string::npos);
  // Files linked; the plot embedded as a data URI.
  CHECK(html.find("<a href=\"results.json\">results.json</a>") != std::string::npos);
  CHECK(html.find("src=\"data:image/svg+xml;base64," + base64("<svg>x</svg>") + "\"") != std::string::npos);
  // The script that colours and marks the page ready.
  CHECK(html.find("data-ready") != std::string::npos);
}

TEST_CASE("sweep report: every point linked to its own report, in the curves and the table", "[report][html]") {
  auto point = [](double offered, double accepted, double mean) {
    nlohmann::json j;
    j["partial"] = false;
    j["load"] = {{"offered", offered}, {"accepted", accepted}, {"offered_payload_gbps", 1}, {"accepted_payload_gbps", 1}};
    j["message_latency"] = {{"count", 10}, {"mean_ns", mean}, {"p99_ns", 2 * mean}};
    j["saturation"] = {{"saturated", false}};
    return j;
  };
  const Curve c = build_curve({"workload.load"}, {{"0.2"}, {"0.6"}, {"1.0"}},
                              {point(0.2, 0.2, 500), point(0.6, 0.6, 800), point(1.0, 0.7, 9000)}, SaturationCriteria{});
  const std::string html =
      sweep_report_html(c, "uniform", {"points/p0000", "points/p0001", "points/p0002"}, {}, {"curve.csv", "sweep.json"});
  check_self_contained(html);
  for (const char* p : {"points/p0000/report.html", "points/p0001/report.html", "points/p0002/report.html"}) {
    INFO(p);
    // In the latency chart (mean and p99), the throughput chart and the table.
    CHECK(count(html, std::string("href=\"") + p + "\"") >= 4);
  }
  CHECK(html.find("id=\"latency-chart\"") != std::string::npos);
  CHECK(html.find("id=\"throughput-chart\"") != std::string::npos);
  CHECK(html.find("saturation 1") != std::string::npos);  // the saturation mark at offered 1.0
  CHECK(html.find("<a href=\"curve.csv\">curve.csv</a>") != std::string::npos);
}

TEST_CASE("html escape and base64", "[report][html]") {
  CHECK(html_escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  CHECK(base64("") == "");
  CHECK(base64("f") == "Zg==");
  CHECK(base64("fo") == "Zm8=");
  CHECK(base64("foo") == "Zm9v");
  CHECK(base64("foobar") == "Zm9vYmFy");
}
