#include <catch2/catch.hpp>

#include "sim/core/stats_registry.h"
#include "sim/report/stat_tables.h"

using namespace ibfsim;

namespace {

struct Port {
  std::string peer;
  std::uint64_t tx = 0, err_a = 0, err_b = 0;
  double busy = 0;
  std::vector<std::uint64_t> vl_tx, drops;  // per VL; per reason
  std::optional<double> window;             // absent: no measurement window
};
using PortVl = std::pair<const Port*, std::size_t>;
const char* const kReasons[] = {"no_qp", "link_down"};

// Ports with VLs, discards by reason and windowed stalls, in the CSV tables and, for the JSON
// shapes, in a results.json output (kResultsTop stands for any).
StatsRegistry registry(const std::vector<Port>& ports) {
  StatsRegistry reg;
  auto p = reg.add_kind<const Port*>("ports", {"node", "port"});
  p.attribute("peer", kPortsCsv | kResultsTop | kPortUtilizationCsv, [](const Port* x) { return x->peer; })
      .counter("tx_packets", "packets", kPortsCsv | kResultsTop, [](const Port* x) { return x->tx; })
      .figure("busy_fraction", "fraction", Merge::kSame, kPortsCsv | kResultsTop, [](const Port* x) { return x->busy; }, 6)
      .counter("rcv_errors", "packets", kPortsCsv, [](const Port* x) { return x->err_a + x->err_b; })
      .counter("rcv_errors.a", "packets", kResultsTop, [](const Port* x) { return x->err_a; })
      .counter("rcv_errors.b", "packets", kResultsTop, [](const Port* x) { return x->err_b; })
      .figure("window.busy_fraction", "fraction", Merge::kSame, kPortUtilizationCsv | kResultsTop,
              [](const Port* x) { return x->window; }, 6);
  auto vls = reg.add_kind<PortVl>("vls", {"vl"}, Nesting::kObjects, p.index());
  vls.counter("tx_packets", "packets", kPortVlsCsv | kResultsTop, [](const PortVl& v) { return v.first->vl_tx[v.second]; });
  auto drops = reg.add_kind<PortVl>("discards", {"reason"}, Nesting::kMap, p.index());
  drops.counter("packets", "packets", kDiscardsCsv | kResultsTop, [](const PortVl& v) {
    const std::uint64_t n = v.first->drops[v.second];
    return n ? std::optional<std::uint64_t>(n) : std::nullopt;
  });
  auto stalls = reg.add_kind<PortVl>("window.credit_stall_ns", {"vl"}, Nesting::kList, p.index());
  stalls.figure("credit_stall_ns", "ns", Merge::kSum, kCreditStallCsv | kResultsTop, [](const PortVl& v) {
    return v.first->window ? std::optional<double>(1.5 * static_cast<double>(v.second)) : std::nullopt;
  }, 3);
  for (std::size_t i = 0; i < ports.size(); ++i) {
    const std::size_t row = p.add(&ports[i], kNoStatParent, "sw", i + 1);
    for (std::size_t v = 0; v < ports[i].vl_tx.size(); ++v) vls.add({&ports[i], v}, row, v);
    for (std::size_t r = 0; r < ports[i].drops.size(); ++r) drops.add({&ports[i], r}, row, kReasons[r]);
    for (std::size_t v = 0; v < ports[i].vl_tx.size(); ++v) stalls.add({&ports[i], v}, row, v);
  }
  return reg;
}

std::vector<Port> two_ports(bool window) {
  std::vector<Port> ports(2);
  ports[0] = Port{"h1/1", 5, 1, 2, 0.25, {3, 2}, {0, 4}, std::nullopt};
  ports[1] = Port{"h2/1", 6, 0, 0, 1.0 / 3, {6, 0}, {0, 0}, std::nullopt};
  if (window) ports[0].window = 0.5, ports[1].window = 0.125;
  return ports;
}

}  // namespace

TEST_CASE("CSV tables: keys of the kind and its parents, then the columns of the output", "[report][stat_tables]") {
  const std::vector<Port> ports = two_ports(true);
  const StatsSnapshot s = registry(ports).snapshot();
  CHECK(stats_csv(s, kPortsCsv) ==
        "node,port,peer,tx_packets,busy_fraction,rcv_errors\n"
        "sw,1,h1/1,5,0.250000,3\n"
        "sw,2,h2/1,6,0.333333,0\n");
  CHECK(stats_csv(s, kPortVlsCsv) == "node,port,vl,tx_packets\nsw,1,0,3\nsw,1,1,2\nsw,2,0,6\nsw,2,1,0\n");
  // Rows whose figures are all absent are left out; the header stays.
  CHECK(stats_csv(s, kDiscardsCsv) == "node,port,reason,packets\nsw,1,link_down,4\n");
  CHECK(stats_csv(s, kPortUtilizationCsv) == "node,port,peer,busy_fraction\nsw,1,h1/1,0.500000\nsw,2,h2/1,0.125000\n");
  CHECK(stats_csv(s, kCreditStallCsv) == "node,port,vl,credit_stall_ns\nsw,1,0,0.000\nsw,1,1,1.500\nsw,2,0,0.000\nsw,2,1,1.500\n");

  const std::vector<Port> no_window = two_ports(false);
  const StatsSnapshot n = registry(no_window).snapshot();
  CHECK(stats_csv(n, kPortUtilizationCsv) == "node,port,peer,busy_fraction\n");  // attributes alone show no row
  CHECK(stats_csv(n, kCreditStallCsv) == "node,port,vl,credit_stall_ns\n");
  CHECK_THROWS(stats_csv(n, kClassesCsv));  // nothing registered for it
  CHECK_FALSE(has_stats_output(n.kinds, kClassesCsv));
  CHECK(has_stats_output(n.kinds, kCreditStallCsv));
  CHECK(stats_csv_rows(n, kCreditStallCsv) == 0);
  CHECK(stats_csv_rows(s, kPortVlsCsv) == 4);
  CHECK(stats_csv_rows(s, kDiscardsCsv) == 1);
}

TEST_CASE("CSV tables are written line by line, text quoted when it holds a comma, lists in one cell",
          "[report][stat_tables]") {
  StatsRegistry reg;
  struct Link {
    std::string a;
    std::vector<double> downs;
  };
  const std::vector<Link> links = {{"sw,1/1", {1.5, 20}}, {"say \"hi\"/2", {}}};
  auto k = reg.add_kind<const Link*>("links", {"a"});
  k.figure("down_ns", "ns", Merge::kSame, kLinksCsv, [](const Link* l) { return l->downs; })
      .counter("n", "packets", kLinksCsv, [](const Link* l) { return l->downs.size(); });
  for (const Link& l : links) k.add(&l, kNoStatParent, l.a);
  const StatsSnapshot s = reg.snapshot();
  std::vector<std::string> lines;
  const std::uint64_t rows = write_stats_csv(s, kLinksCsv, [&](std::string_view line) { lines.emplace_back(line); });
  CHECK(rows == 2);
  CHECK(lines == std::vector<std::string>{"a,down_ns,n\n", "\"sw,1/1\",1.5 20,2\n", "\"say \"\"hi\"\"/2\",,0\n"});
  CHECK(stats_csv(s, kLinksCsv) == lines[0] + lines[1] + lines[2]);
}

TEST_CASE("results.json rows: keys, figures at dotted paths, nested objects, maps and lists", "[report][stat_tables]") {
  const std::vector<Port> ports = two_ports(true);
  const nlohmann::json j = stats_json_array(registry(ports).snapshot(), kResultsTop);
  const nlohmann::json expected = nlohmann::json::parse(R"([
    {"node": "sw", "port": 1, "peer": "h1/1", "tx_packets": 5, "busy_fraction": 0.25, "rcv_errors": {"a": 1, "b": 2},
     "window": {"busy_fraction": 0.5, "credit_stall_ns": [0.0, 1.5]},
     "vls": [{"vl": 0, "tx_packets": 3}, {"vl": 1, "tx_packets": 2}], "discards": {"link_down": 4}},
    {"node": "sw", "port": 2, "peer": "h2/1", "tx_packets": 6, "busy_fraction": 0.3333333333333333,
     "rcv_errors": {"a": 0, "b": 0}, "window": {"busy_fraction": 0.125, "credit_stall_ns": [0.0, 1.5]},
     "vls": [{"vl": 0, "tx_packets": 6}, {"vl": 1, "tx_packets": 0}], "discards": {}}
  ])");
  CHECK(j == expected);
  CHECK(j[0]["port"].is_number_unsigned());  // counts stay integers, figures reals
  CHECK(j[0]["window"]["credit_stall_ns"][0].is_number_float());

  // No window: its figures and its list are left out, an empty map stays.
  const std::vector<Port> no_window = two_ports(false);
  const nlohmann::json n = stats_json_array(registry(no_window).snapshot(), kResultsTop);
  CHECK_FALSE(n[0].contains("window"));
  CHECK(n[1]["discards"] == nlohmann::json::object());
}

TEST_CASE("results.json objects: the figures of the fabric as a whole go into a given object", "[report][stat_tables]") {
  StatsRegistry reg;
  struct Ledger {
    std::uint64_t created = 10, delivered = 9;
  } ledger;
  reg.add_kind<const Ledger*>("fabric", {})
      .counter("packets.created", "packets", kResultsTop, [](const Ledger* l) { return l->created; })
      .counter("packets.delivered", "packets", kResultsTop, [](const Ledger* l) { return l->delivered; })
      .counter("totals.created", "packets", kResultsCongestionControl, [](const Ledger* l) { return l->created; })
      .add(&ledger, kNoStatParent);
  nlohmann::json j = {{"seed", 1}, {"packets", {{"dropped", 1}}}};
  add_stats_json(reg.snapshot(), kResultsTop, j);
  CHECK(j == nlohmann::json::parse(R"({"seed": 1, "packets": {"dropped": 1, "created": 10, "delivered": 9}})"));
}

TEST_CASE("CSV tables read from the registry row by row equal those of a snapshot", "[report][stat_tables]") {
  const std::vector<Port> ports = two_ports(true);
  const StatsRegistry reg = registry(ports);
  const StatsSnapshot s = reg.snapshot();
  for (StatOutput out : {kPortsCsv, kPortVlsCsv, kDiscardsCsv, kPortUtilizationCsv, kCreditStallCsv}) {
    std::string text;
    const std::uint64_t rows = write_stats_csv(reg, out, [&](std::string_view line) { text.append(line); });
    CHECK(text == stats_csv(s, out));
    CHECK(rows == stats_csv_rows(s, out));
  }
}
