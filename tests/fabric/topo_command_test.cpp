// `ibfsim topo`: the summary it prints, the files it writes, its exit codes; and the figures of
// the summary (topology_summary.h) checked against brute force on small fabrics.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <string>

#include "sim/fabric/topology_summary.h"
#include "sim/fabric/topology_yaml.h"
#include "tests/support/run_command.h"

using namespace ibfsim;

namespace {

const std::string kSource = std::string(IBFSIM_SOURCE_DIR) + "/";

// A fabric built in code: `switches` switches of `ports` ports, then HCAs.
struct Builder {
  Topology t;
  std::vector<unsigned> next_port;
  std::size_t add(NodeType type, unsigned ports) {
    TopoNode n;
    n.name = (type == NodeType::kSwitch ? "s" : "h") + std::to_string(t.nodes.size());
    n.type = type;
    n.num_ports = ports;
    n.guid = default_guid(type, t.nodes.size());
    n.rx_buffer_credits = 1;
    t.nodes.push_back(n);
    next_port.push_back(1);
    return t.nodes.size() - 1;
  }
  void cable(std::size_t a, std::size_t b) {
    TopoCable c;
    c.node_a = a;
    c.port_a = next_port[a]++;
    c.node_b = b;
    c.port_b = next_port[b]++;
    c.length_mm = 2000;
    t.cables.push_back(c);
  }
  // Each switch gets `hosts` single-ported HCAs.
  Topology done(unsigned hosts_per_switch) {
    const std::size_t switches = t.nodes.size();
    for (std::size_t s = 0; s < switches; ++s)
      for (unsigned h = 0; h < hosts_per_switch; ++h) cable(add(NodeType::kHca, 1), s);
    validate_topology(t);
    return t;
  }
};

// The exact bisection for fabrics whose hosts each have one cable to a switch: every split of the
// switches, the hosts then placed as cheaply as possible (each host away from its switch costs 1).
std::size_t brute_force_bisection(const Topology& t) {
  const std::vector<std::size_t> sw = t.switches();
  REQUIRE(sw.size() <= 16);
  std::vector<std::size_t> index(t.nodes.size(), 0);
  for (std::size_t i = 0; i < sw.size(); ++i) index[sw[i]] = i;
  const std::size_t hosts = t.hcas().size();
  std::size_t best = SIZE_MAX;
  for (std::uint32_t mask = 0; mask < (1u << sw.size()); ++mask) {
    std::size_t cut = 0, on_a = 0;
    for (const TopoCable& c : t.cables) {
      const bool a_sw = t.nodes[c.node_a].type == NodeType::kSwitch, b_sw = t.nodes[c.node_b].type == NodeType::kSwitch;
      if (a_sw && b_sw) {
        cut += ((mask >> index[c.node_a]) & 1) != ((mask >> index[c.node_b]) & 1);
      } else {
        on_a += (mask >> index[a_sw ? c.node_a : c.node_b]) & 1;
      }
    }
    const std::size_t half = hosts / 2;
    best = std::min(best, cut + (on_a > half ? on_a - half : half - on_a));
  }
  return best;
}

// Leaves with `hosts` HCAs each, `spines` spines, `m` cables between every leaf and spine.
Topology leaf_spine(unsigned leaves, unsigned spines, unsigned hosts, unsigned m) {
  Builder b;
  for (unsigned i = 0; i < leaves; ++i) b.add(NodeType::kSwitch, 64);
  for (unsigned i = 0; i < spines; ++i) b.add(NodeType::kSwitch, 64);
  for (unsigned l = 0; l < leaves; ++l)
    for (unsigned s = 0; s < spines; ++s)
      for (unsigned k = 0; k < m; ++k) b.cable(l, leaves + s);
  const std::size_t switches = b.t.nodes.size();
  for (std::size_t l = 0; l < leaves; ++l)
    for (unsigned h = 0; h < hosts; ++h) b.cable(b.add(NodeType::kHca, 1), l);
  (void)switches;
  validate_topology(b.t);
  return b.t;
}

std::string topo_output(const std::string& args) { return test::run_ibfsim("topo " + args).output; }

}  // namespace

TEST_CASE("ibfsim topo prints the summary of quickstart.yaml", "[fabric][topo]") {
  const test::CommandResult r = test::run_ibfsim("topo " + kSource + "topologies/quickstart.yaml");
  CHECK(r.exit_code == 0);
  CHECK(r.output == "topology: " + kSource +
                        "topologies/quickstart.yaml (YAML)\n"
                        "hosts: 8 HCAs\n"
                        "switches: 1\n"
                        "cables: 8 (8 to HCAs, 0 between switches)\n"
                        "link rates: 8 x 4x EDR\n"
                        "cable lengths: 8 x 2m\n"
                        "radix use:\n"
                        "  36-port switches: 1, ports used 8/36 (22%)\n"
                        "diameter: 1 switch crossed, 0 switch-to-switch hops (between h1 and h2)\n"
                        "bisection: 4 cables, 400.0 Gb/s, 1.00 of full bisection (exact: fat tree of one or two "
                        "levels)\n"
                        "warnings: none\n");
}

TEST_CASE("ibfsim topo on leaf_spine_128: diameter 3, full bisection of 64 cables", "[fabric][topo]") {
  const std::string out = topo_output(kSource + "topologies/leaf_spine_128.yaml");
  CHECK_THAT(out, Catch::Contains("hosts: 128 HCAs\nswitches: 24\ncables: 256 (128 to HCAs, 128 between switches)\n"));
  CHECK_THAT(out, Catch::Contains("  16-port switches: 24, ports used 384/384 (100%)\n"));
  CHECK_THAT(out, Catch::Contains("diameter: 3 switches crossed, 2 switch-to-switch hops (between h1 and h9)\n"));
  CHECK_THAT(out, Catch::Contains("bisection: 64 cables, 6400.0 Gb/s, 1.00 of full bisection (exact: fat tree of one "
                                  "or two levels)\n"));
}

TEST_CASE("ibfsim topo on the ibnetdiscover example: names from descriptions, a 2:1 oversubscription",
          "[fabric][topo]") {
  const std::string file = kSource + "topologies/examples/small_cluster.ibnetdiscover";
  CHECK(topo_output(file) ==
        "topology: " + file +
            " (ibnetdiscover)\n"
            "hosts: 8 HCAs\n"
            "switches: 2\n"
            "cables: 10 (8 to HCAs, 2 between switches)\n"
            "link rates: 10 x 4x EDR\n"
            "cable lengths: 10 x 2m\n"
            "radix use:\n"
            "  36-port switches: 2, ports used 12/72 (17%)\n"
            "diameter: 2 switches crossed, 1 switch-to-switch hop (between node01_HCA-1 and node05_HCA-1)\n"
            "bisection: at most 2 cables, 200.0 Gb/s, 0.50 of full bisection (heuristic: breadth-first split and "
            "Kernighan-Lin)\n"
            "warnings:\n"
            "  - 2 switches have more host bandwidth than switch-link bandwidth (up to 2.00:1)\n");
}

TEST_CASE("ibfsim topo writes DOT, ibnetdiscover and ibsim files, and converting them back is stable",
          "[fabric][topo]") {
  const std::string dir = test::scratch_dir("topo_convert");
  const test::CommandResult r =
      test::run_ibfsim("topo " + kSource + "topologies/two_switches.yaml --dot " + dir + "/f.dot --ibnetdiscover " +
                       dir + "/f.ibnd --ibsim " + dir + "/f.net");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::EndsWith("wrote " + dir + "/f.dot (Graphviz DOT)\nwrote " + dir +
                                       "/f.ibnd (ibnetdiscover)\nwrote " + dir + "/f.net (ibsim net file)\n"));
  CHECK_THAT(test::read_file(dir + "/f.dot"), Catch::StartsWith("// Written by ibfsim"));
  // ibnetdiscover -> ibnetdiscover and ibsim -> ibsim through the command.
  REQUIRE(test::run_ibfsim("topo " + dir + "/f.ibnd --ibnetdiscover " + dir + "/g.ibnd").exit_code == 0);
  CHECK(test::read_file(dir + "/g.ibnd") == test::read_file(dir + "/f.ibnd"));
  REQUIRE(test::run_ibfsim("topo " + dir + "/f.net --ibsim " + dir + "/g.net").exit_code == 0);
  CHECK(test::read_file(dir + "/g.net") == test::read_file(dir + "/f.net"));
  // The summary of a converted file equals the original's but for what the formats do not hold
  // (cable lengths) and the names the ibnetdiscover reader makes.
  CHECK_THAT(topo_output(dir + "/f.net"), Catch::Contains("cable lengths: 10 x 2m\n"));
  CHECK_THAT(topo_output(dir + "/f.net"), Catch::Contains("diameter: 2 switches crossed, 1 switch-to-switch hop (between h1 and h5)\n"));
  CHECK(test::run_command("ls " + dir + " | grep -c tmp").output == "0\n");  // no temporary files left
}

TEST_CASE("ibfsim topo warns about uncabled HCAs, a split fabric and mixed rates", "[fabric][topo]") {
  const std::string dir = test::scratch_dir("topo_warnings");
  std::ofstream(dir + "/t.yaml") << "nodes:\n"
                                    "  - {name: s1, type: switch}\n"
                                    "  - {name: s2, type: switch}\n"
                                    "  - {name: a, type: hca}\n"
                                    "  - {name: b, type: hca}\n"
                                    "  - {name: c, type: hca}\n"
                                    "cables:\n"
                                    "  - {from: a/1, to: s1/1}\n"
                                    "  - {from: b/1, to: s2/1, speed: HDR}\n";
  const test::CommandResult r = test::run_ibfsim("topo " + dir + "/t.yaml");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("hosts: 3 HCAs (2 with a cable)\n"));
  CHECK_THAT(r.output, Catch::Contains("diameter: none (fewer than two hosts that reach each other)\n"));
  CHECK_THAT(r.output, Catch::Contains("bisection: at most 0 cables, 0.0 Gb/s"));
  CHECK_THAT(r.output, Catch::Contains("\nwarnings:\n  - 1 HCA without a cable: c\n  - "));
  CHECK_THAT(r.output, Catch::Contains("the fabric is not connected"));
  CHECK_THAT(r.output, Catch::Contains("  - cables run at 2 different rates; a path is as fast as its slowest cable\n"));
}

TEST_CASE("ibfsim topo: bad YAML exits 2 naming file, line and column", "[fabric][topo]") {
  const std::string dir = test::scratch_dir("topo_bad_yaml");
  std::ofstream(dir + "/t.yaml") << "nodes:\n  - {name: s1, type: switch, prots: 8}\n";
  const test::CommandResult r = test::run_ibfsim("topo " + dir + "/t.yaml");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::StartsWith("error: " + dir + "/t.yaml:2:30: expected one of the keys"));
}

TEST_CASE("ibfsim topo: an output it cannot write exits 2 and writes no other file", "[fabric][topo]") {
  const std::string dir = test::scratch_dir("topo_unwritable");
  const test::CommandResult r = test::run_ibfsim("topo " + kSource + "topologies/quickstart.yaml --dot " + dir +
                                                 "/f.dot --ibsim " + dir + "/no/such/dir/f.net");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::EndsWith("warnings: none\nerror: cannot write the ibsim net file to '" + dir +
                                       "/no/such/dir/f.net': there is no folder '" + dir + "/no/such/dir'\n"));
  CHECK(test::run_command("ls -A " + dir).output.empty());
}

TEST_CASE("ibfsim topo refuses to write an Ethernet fabric as ibnetdiscover or ibsim, naming the cable or switch",
          "[fabric][topo]") {
  const std::string dir = test::scratch_dir("topo_ethernet");
  std::ofstream(dir + "/t.yaml") << "nodes:\n"
                                    "  - {name: s1, type: switch, ports: 4}\n"
                                    "  - {name: h1, type: hca}\n"
                                    "  - {name: h2, type: hca}\n"
                                    "cables:\n"
                                    "  - {from: h1/1, to: s1/1}\n"
                                    "  - {from: h2/1, to: s1/2, speed: 100GbE}\n";
  test::CommandResult r = test::run_ibfsim("topo " + dir + "/t.yaml --yaml " + dir + "/out.yaml --ibnetdiscover " +
                                           dir + "/out.ibnd");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::EndsWith("error: " + dir + "/t.yaml:7:5: --ibnetdiscover writes ibnetdiscover output, "
                                       "which describes InfiniBand fabrics only, but this cable is 100GbE (write this "
                                       "topology with --yaml or --dot)\n"));
  CHECK(test::run_command("ls -A " + dir).output == "t.yaml\n");  // nothing written, not even the YAML
  std::ofstream(dir + "/k.yaml") << "nodes:\n"
                                    "  - {name: s1, type: switch, ports: 4, kind: ethernet}\n"
                                    "  - {name: h1, type: hca}\n"
                                    "cables:\n"
                                    "  - {from: h1/1, to: s1/1}\n";
  r = test::run_ibfsim("topo " + dir + "/k.yaml --ibsim " + dir + "/out.net");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::EndsWith("error: " + dir + "/k.yaml:2:46: --ibsim writes an ibsim net file, which "
                                       "describes InfiniBand fabrics only, but switch s1 is of kind ethernet (write this "
                                       "topology with --yaml or --dot)\n"));
  CHECK(test::run_command("ls -A " + dir).output == "k.yaml\nt.yaml\n");
}

TEST_CASE("ibfsim topo without a file exits 2", "[fabric][topo]") {
  const test::CommandResult r = test::run_ibfsim("topo");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("FILE is required"));
}

TEST_CASE("bisection of two-level fat trees equals brute force, also uneven and with parallel cables",
          "[fabric][topo]") {
  for (unsigned leaves = 1; leaves <= 4; ++leaves) {
    for (unsigned spines = 0; spines <= 3; ++spines) {
      if (spines == 0 && leaves > 1) continue;
      for (unsigned hosts = 1; hosts <= 4; ++hosts) {
        for (unsigned m = 1; m <= 2; ++m) {
          if (leaves * hosts < 2 || (spines == 0 && m > 1)) continue;
          INFO(leaves << " leaves, " << spines << " spines, " << hosts << " hosts per leaf, " << m << " cables per pair");
          const Topology t = leaf_spine(leaves, spines, hosts, m);
          const TopologySummary s = summarize_topology(t);
          CHECK(s.bisection.method == BisectionMethod::kFatTreeExact);
          CHECK(s.bisection.cables == brute_force_bisection(t));
        }
      }
    }
  }
}

TEST_CASE("bisection heuristic: never below brute force, exact on rings, hypercubes and meshes", "[fabric][topo]") {
  auto ring = [](unsigned n, unsigned hosts) {
    Builder b;
    for (unsigned i = 0; i < n; ++i) b.add(NodeType::kSwitch, 16);
    for (unsigned i = 0; i < n; ++i) b.cable(i, (i + 1) % n);
    return b.done(hosts);
  };
  auto hypercube = [](unsigned d, unsigned hosts) {
    Builder b;
    for (unsigned i = 0; i < (1u << d); ++i) b.add(NodeType::kSwitch, 16);
    for (unsigned i = 0; i < (1u << d); ++i)
      for (unsigned k = 0; k < d; ++k)
        if (i < (i ^ (1u << k))) b.cable(i, i ^ (1u << k));
    return b.done(hosts);
  };
  auto mesh = [](unsigned x, unsigned y, unsigned hosts) {
    Builder b;
    for (unsigned i = 0; i < x * y; ++i) b.add(NodeType::kSwitch, 16);
    for (unsigned i = 0; i < x; ++i)
      for (unsigned j = 0; j < y; ++j) {
        if (i + 1 < x) b.cable(i * y + j, (i + 1) * y + j);
        if (j + 1 < y) b.cable(i * y + j, i * y + j + 1);
      }
    return b.done(hosts);
  };
  struct Case {
    const char* name;
    Topology t;
    std::size_t exact;
  };
  const Case cases[] = {
      {"ring of 8, 2 hosts each", ring(8, 2), 2},   {"ring of 6, 3 hosts each", ring(6, 3), 2},
      {"4-cube, 2 hosts each", hypercube(4, 2), 8}, {"3-cube, 1 host each", hypercube(3, 1), 4},
      {"4x4 mesh, 1 host each", mesh(4, 4, 1), 4}, {"3x4 mesh, 2 hosts each", mesh(3, 4, 2), 3},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    REQUIRE(brute_force_bisection(c.t) == c.exact);
    const TopologySummary s = summarize_topology(c.t);
    CHECK(s.bisection.method == BisectionMethod::kHeuristic);
    CHECK(s.bisection.cables == c.exact);
  }
}

TEST_CASE("diameter: switches crossed between the farthest hosts, through switches only", "[fabric][topo]") {
  // A chain s0 - s1 - s2 - s3 with a host on each end switch and a dual-homed host on s1 and s3.
  Builder b;
  for (int i = 0; i < 4; ++i) b.add(NodeType::kSwitch, 8);
  for (int i = 0; i < 3; ++i) b.cable(i, i + 1);
  const std::size_t h0 = b.add(NodeType::kHca, 1), h3 = b.add(NodeType::kHca, 1), dual = b.add(NodeType::kHca, 2);
  b.cable(h0, 0);
  b.cable(h3, 3);
  b.cable(dual, 1);
  b.cable(dual, 3);
  validate_topology(b.t);
  const TopologySummary s = summarize_topology(b.t);
  REQUIRE(s.diameter);
  CHECK(s.diameter->switches == 4);  // h0 to h3: s0 s1 s2 s3
  CHECK(std::minmax(s.diameter->host_a, s.diameter->host_b) == std::minmax(h0, h3));
  CHECK(s.hosts == 3);
  CHECK(s.radix.size() == 1);
  CHECK(s.radix[0].ports_used == 10);
  CHECK(s.radix[0].ports_total == 32);
}
