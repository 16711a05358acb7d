#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "sim/core/error.h"
#include "sim/fabric/ibnetdiscover_format.h"
#include "sim/fabric/ibsim_format.h"
#include "sim/fabric/topology_generators.h"
#include "sim/fabric/topology_loader.h"
#include "tests/support/run_command.h"

using namespace ibfsim;

namespace {

const std::string kExamples = std::string(IBFSIM_SOURCE_DIR) + "/topologies/examples/";
const std::string kDebianExamples = "/usr/share/doc/ibsim-utils/net-examples/";

// Hand-written ibsim style: one switch, two HCAs (one with a w= option), no GUID lines.
const std::string kBase =
    "Switch\t8 \"sw\"\n"      // 1
    "[1]\t\"a\"[1]\n"         // 2
    "[2]\t\"b\"[2]\tw=2\n"    // 3
    "\n"                      // 4
    "Hca\t2 \"a\"\n"          // 5
    "[1]\t\"sw\"[1]\n"        // 6
    "\n"                      // 7
    "Hca\t2 \"b\"\n"          // 8
    "[2]\t\"sw\"[2]\n";       // 9

std::string base_with(int line, const std::string& text) {
  std::string out;
  std::size_t start = 0;
  for (int n = 1; start < kBase.size(); ++n) {
    const std::size_t end = kBase.find('\n', start);
    out += (n == line ? text : kBase.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return out;
}

void check_rejected(const std::string& name, const std::string& text, const std::string& message) {
  const std::string dir = test::scratch_dir("ibsim_" + name);
  const std::string path = dir + "/fabric.net";
  std::ofstream(path, std::ios::binary) << text;
  const test::CommandResult r = test::run_ibfsim("topo " + path);
  CHECK(r.output == "error: " + path + message + "\n");
  CHECK(r.exit_code == 2);
}

// Every run of blanks as one space, so that column alignment does not matter.
std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s) {
    const char d = c == '\t' ? ' ' : c;
    if (d == ' ' && !out.empty() && out.back() == ' ') continue;
    out += d;
  }
  return out;
}

}  // namespace

TEST_CASE("ibsim import: leaf_spine example, names from ids, GUIDs from ibsim's counters", "[fabric][ibsim]") {
  TopologyFormat f = TopologyFormat::kYaml;
  const Topology t = load_topology_file(kExamples + "leaf_spine.ibsim", &f);
  CHECK(f == TopologyFormat::kIbsim);
  REQUIRE(t.nodes.size() == 8);
  REQUIRE(t.cables.size() == 8);
  const char* names[] = {"spine1", "spine2", "leaf1", "leaf2", "host1", "host2", "host3", "host4"};
  for (std::size_t i = 0; i < 8; ++i) CHECK(t.nodes[i].name == names[i]);
  // switchguid= sets the first switch, later switches count up by one; caguid= the first HCA,
  // later HCAs count up by ports + 1 (ibsim reserves a GUID per port).
  CHECK(t.nodes[0].guid == 0x0002c90200400000ull);
  CHECK(t.nodes[3].guid == 0x0002c90200400003ull);
  CHECK(t.nodes[4].guid == 0x0002c90200500000ull);
  CHECK(t.nodes[5].guid == 0x0002c90200500003ull);
  CHECK(t.nodes[7].guid == 0x0002c90200500009ull);
  CHECK(t.nodes[2].num_ports == 8);
  CHECK(t.nodes[4].num_ports == 2);
  for (const TopoCable& c : t.cables) {
    CHECK(c.rate.name() == "4x EDR");  // w=2 enables 4x; the speed is the default
    CHECK(c.length_mm == 2000);
  }
}

TEST_CASE("ibsim import: without GUID lines, GUIDs are what ibsim itself assigns", "[fabric][ibsim]") {
  const Topology t = parse_ibsim(kBase, "t.net");
  REQUIRE(t.nodes.size() == 3);
  CHECK(t.nodes[0].guid == 0x200000);  // ibsim's first switch GUID
  CHECK(t.nodes[1].guid == 0x100000);  // first HCA
  CHECK(t.nodes[2].guid == 0x100003);  // 2 ports + 1 later
  CHECK(t.cables[1].rate.name() == "4x EDR");
}

TEST_CASE("ibsim round trip: export(import(x)) == export(import(export(import(x))))", "[fabric][ibsim]") {
  const std::string first = write_ibsim(load_topology_file(kExamples + "leaf_spine.ibsim"));
  CHECK(write_ibsim(parse_ibsim(first, "first.net")) == first);
  const std::string expected_start =
      std::string("# ibsim net file written by ibfsim ") + IBFSIM_VERSION_STRING +
      ": 4 switches, 4 HCAs, 8 cables.\n"
      "# Run: ibsim -s FILE\n"
      "# switchguid=/caguid= set the next node's GUID; w=, s=, e= a port's enabled widths and speeds;\n"
      "# each port line's comment gives the link's rate (lid N WIDTHxSPEED, as ibnetdiscover writes it).\n"
      "\n"
      "switchguid=0x2c90200400000\n"
      "Switch\t8 \"spine1\"\t# \"spine1\" enhanced port 0 lid 9 lmc 0\n"
      "[1]\t\"leaf1\"[3]\tw=2\t# \"leaf1\" lid 11 4xEDR\n"
      "[2]\t\"leaf2\"[3]\tw=2\t# \"leaf2\" lid 12 4xEDR\n";
  CHECK(first.substr(0, expected_start.size()) == expected_start);
  const std::string host4 =
      "\ncaguid=0x2c90200500009\n"
      "Hca\t2 \"host4\"\t# \"host4\"\n"
      "[1]\t\"leaf2\"[2]\t# lid 7 lmc 0 \"leaf2\" lid 12 4xEDR\n";
  REQUIRE(first.size() >= host4.size());
  CHECK(first.substr(first.size() - host4.size()) == host4);
}

TEST_CASE("ibsim import: every net example Debian's ibsim-utils ships", "[fabric][ibsim]") {
  struct Example {
    const char* file;
    std::size_t nodes, cables;
  };
  for (const Example& e : {Example{"net", 4, 4}, Example{"net.1", 3, 2}, Example{"net.2sw2path", 4, 4},
                           Example{"net.2sw2path4hca", 6, 6}, Example{"net.2sw2path4hca2port", 4, 6}}) {
    INFO(e.file << " (install ibsim-utils: scripts/bootstrap.sh does)");
    TopologyFormat f = TopologyFormat::kYaml;
    const Topology t = load_topology_file(kDebianExamples + e.file, &f);
    CHECK(f == TopologyFormat::kIbsim);
    CHECK(t.nodes.size() == e.nodes);
    CHECK(t.cables.size() == e.cables);
    // And each survives the round trip.
    const std::string first = write_ibsim(t);
    CHECK(write_ibsim(parse_ibsim(first, "x.net")) == first);
  }
}

TEST_CASE("ibsim import: w=, s=, e= are the ports' enabled sets: the link runs at the best both enable",
          "[fabric][ibsim]") {
  auto rate_of = [](const std::string& a_opts, const std::string& b_opts) {
    const std::string text = "Switch\t8 \"sw\"\n[1]\t\"a\"[1]\t" + a_opts + "\n\nHca\t1 \"a\"\n[1]\t\"sw\"[1]\t" +
                             b_opts + "\n";
    return parse_ibsim(text, "t.net").cables.at(0).rate.name();
  };
  CHECK(rate_of("", "") == "4x EDR");
  CHECK(rate_of("w=8", "") == "12x EDR");
  CHECK(rate_of("w=11", "w=3") == "4x EDR");  // 1x|4x|12x and 1x|4x
  CHECK(rate_of("w=1 s=7", "s=3") == "1x DDR");
  CHECK(rate_of("s=0", "") == "4x QDR");  // ibsim: 0 means QDR
  CHECK(rate_of("e=3 s=7", "e=15") == "4x EDR");
  CHECK(rate_of("w=2 s=4", "# \"sw\" lid 1 4xQDR") == "4x QDR");  // a stated rate
  CHECK_THROWS_WITH(rate_of("w=2 s=4", "# \"sw\" lid 1 4xHDR"),
                    "t.net:2:1: expected a cable speed enabled at both ends, got HDR, not enabled at sw/1 (enabled: "
                    "QDR)");

  // The sets themselves, in PortInfo's encodings, and back out through an export.
  const Topology t = parse_ibsim("Switch\t8 \"sw\"\n[1]\t\"a\"[1]\tw=3 s=7 e=2\n[2]\t\"a\"[2]\n\n"
                                 "Hca\t2 \"a\"\n[1]\t\"sw\"[1]\n[2]\t\"sw\"[2]\te=4\n",
                                 "t.net");
  CHECK(t.nodes[0].enabled_widths(1) == 3);
  CHECK(t.nodes[0].enabled_speeds(1) == (0x07 | 0x20));
  CHECK(t.nodes[0].enabled_widths(2) == kAllWidths);
  CHECK(t.nodes[0].enabled_speeds(2) == kAllSpeeds);
  CHECK(t.nodes[1].enabled_speeds(2) == 0x40);
  CHECK(t.cables[0].rate.name() == "4x EDR");
  CHECK(t.cables[1].rate.name() == "4x HDR");
  const std::string net = write_ibsim(t);
  CHECK(net.find("[1]\t\"a\"[1]\tw=3 s=7 e=2\t# \"a\" lid 1 4xEDR\n") != std::string::npos);
  CHECK(net.find("[2]\t\"sw\"[2]\te=4\t# lid 2 lmc 0 \"sw\" lid 3 4xHDR\n") != std::string::npos);
  CHECK(write_ibsim(parse_ibsim(net, "again.net")) == net);
}

TEST_CASE("Debian's OFED ibsim loads an exported two-level fat tree", "[fabric][ibsim]") {
  REQUIRE(test::run_command("command -v ibsim").exit_code == 0);  // ibsim-utils: scripts/bootstrap.sh
  const Topology t = generate_leaf_spine(4, 2, 4, TopologyDefaults{});
  const std::string dir = test::scratch_dir("ibsim_live");
  const std::string net = dir + "/fat_tree.net";
  const std::string log = dir + "/ibsim.log";
  std::ofstream(net) << write_ibsim(t);

  // ibsim reads console commands on stdin: give it a pipe and ask it to dump the fabric.
  int to_ibsim[2];
  REQUIRE(pipe(to_ibsim) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(to_ibsim[0], 0);
    const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(out, 2);
    close(to_ibsim[1]);
    // A private socket name, so that parallel runs and other ibsims do not collide.
    setenv("IBSIM_SOCKNAME", ("ibfsim-test-" + std::to_string(getpid())).c_str(), 1);
    execlp("ibsim", "ibsim", "-s", net.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(to_ibsim[0]);
  const std::string cmd = "Dump\n";
  CHECK(write(to_ibsim[1], cmd.data(), cmd.size()) == static_cast<ssize_t>(cmd.size()));
  std::string text;
  const std::string done = fmt::format("#  dumped {} nodes", t.nodes.size());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  int status = 0;
  bool exited = false;
  while (std::chrono::steady_clock::now() < deadline) {
    text = test::read_file(log);
    if (text.find(done) != std::string::npos) break;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!exited) {
    kill(pid, SIGTERM);
    waitpid(pid, &status, 0);
  }
  close(to_ibsim[1]);
  text = test::read_file(log);
  INFO(text);
  REQUIRE_FALSE(exited);  // it was still running when stopped
  CHECK(text.find(fmt::format("{}: parsed {} lines", net, 4 + 3 * t.nodes.size() + 2 * t.cables.size())) !=
        std::string::npos);
  CHECK(text.find("Network simulator ready.") != std::string::npos);
  CHECK(text.find(done) != std::string::npos);
  CHECK(text.find("ibwarn") == std::string::npos);
  CHECK(text.find("ibpanic") == std::string::npos);
  // Every node with its GUID, every cable end with its peer, all up at 4x EDR (ibsim: "4x 25G").
  const std::string dump = squeeze(text);
  for (const TopoNode& n : t.nodes) {
    CHECK(dump.find(fmt::format("{} {} \"{}\" nodeguid {:x} ", n.type == NodeType::kSwitch ? "Switch" : "Ca",
                                n.num_ports, n.name, n.guid)) != std::string::npos);
  }
  for (const TopoCable& c : t.cables) {
    for (std::size_t end : {c.node_a, c.node_b}) {
      const unsigned port = end == c.node_a ? c.port_a : c.port_b;
      const PortRef peer = c.far_end(end);
      const std::string line = fmt::format("[{}] \"{}\"[{}] ", port, t.nodes[peer.node].name, peer.port);
      const std::size_t at = dump.find(line);
      REQUIRE(at != std::string::npos);
      const std::string rest = dump.substr(at, dump.find('\n', at) - at);
      CHECK_THAT(rest, Catch::Matches(".* 4x 25G Init/LinkUp"));
    }
  }
}

// ---- bad input particular to ibsim net files ----

TEST_CASE("ibsim bad input: an alias line", "[fabric][ibsim]") {
  check_rejected("alias", base_with(3, "@2\t\"b-port\""),
                 ":3:1: expected a port line starting with '[', got an ibsim alias line starting with '@' (not "
                 "supported)");
}

TEST_CASE("ibsim bad input: an ibsim directive", "[fabric][ibsim]") {
  check_rejected("include", base_with(4, "include \"more.net\""),
                 ":4:1: expected a Switch or Ca record, a port line, a GUID line (switchguid=, caguid=) or a "
                 "comment, got 'include'");
}

TEST_CASE("ibsim bad input: an unknown port option", "[fabric][ibsim]") {
  check_rejected("option", base_with(3, "[2]\t\"b\"[2]\tv=4"),
                 ":3:12: expected a port option w=, s= or e= with a number, or a comment starting with '#', got "
                 "'v=4'");
}

TEST_CASE("ibsim bad input: a width mask out of range", "[fabric][ibsim]") {
  check_rejected("width_mask", base_with(3, "[2]\t\"b\"[2]\tw=32"),
                 ":3:12: expected an enabled-width mask w= in 1..31, got 'w=32'");
}

TEST_CASE("ibsim bad input: two ends without a width in common", "[fabric][ibsim]") {
  check_rejected("no_common_width", base_with(9, "[2]\t\"sw\"[2]\tw=1"),
                 ":9:13: expected an enabled width in common with the other end (line 3), got none in common");
}

TEST_CASE("ibsim bad input: a name too long for ibsim's node ids", "[fabric][ibsim]") {
  const std::string name(65, 'n');
  std::string text = kBase;
  for (std::size_t at; (at = text.find("\"a\"")) != std::string::npos;) text.replace(at, 3, "\"" + name + "\"");
  const std::string dir = test::scratch_dir("ibsim_long_name");
  const std::string path = dir + "/fabric.net";
  std::ofstream(path) << text;
  const test::CommandResult r = test::run_ibfsim("topo " + path + " --ibsim " + dir + "/out.net");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::EndsWith("error: " + path + ":5:1: expected node names of at most 64 characters for "
                                       "ibsim, got '" + name + "' (65)\n"));
  CHECK(test::run_command("test -e " + dir + "/out.net").exit_code != 0);
}
