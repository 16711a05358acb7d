// `connect: cm` (docs/scenario.md, "Connection management"): a verbs flow resolves its path with a
// PathRecord query to the SA, then connects with REQ, REP, RTU through the HCAs' CM agents; the
// set-up time is computed by hand from the MADs' time on the wire, the SA's latency and the CM
// processing time; the QPs walk RESET -> INIT -> RTR -> RTS as the exchange says; a busy server
// answers MRA and, past cm.max_connections, REJ.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

const std::string kTopo = std::string(IBFSIM_SOURCE_DIR) + "/topologies/quickstart.yaml";

nlohmann::json run_cm_scenario(const std::string& name, const std::string& text, CommandResult* out = nullptr) {
  const std::string dir = scratch_dir(name);
  std::ofstream(dir + "/s.yaml") << "topology: " << kTopo << "\nseed: 1\n" << text;
  const CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  if (out) *out = r;
  return nlohmann::json::parse(read_file(dir + "/out/results.json"));
}

const nlohmann::json& flow(const nlohmann::json& r, const std::string& name) {
  for (const auto& f : r["flows"])
    if (f["name"] == name) return f;
  throw std::runtime_error("no flow " + name);
}

}  // namespace

TEST_CASE("connect: cm: PathRecord, REQ, REP, RTU, the set-up time by hand (4x EDR), then the WRITEs",
          "[scenarios][cm]") {
  const std::string dir = scratch_dir("rdma_cm_one");
  std::ofstream(dir + "/s.yaml")
      << "topology: " << kTopo << "\nseed: 1\n"
      << "workload:\n"
         "  - {name: c1, transport: rc, verb: write, from: h2, to: h3, message_size: 4096, iterations: 4, "
         "tx_depth: 1, connect: cm}\n";
  const CommandResult run = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json r = nlohmann::json::parse(read_file(dir + "/out/results.json"));
  const auto& f = flow(r, "c1");
  const auto& c = f["connection"];
  // By hand (tests/scenarios/zero_load_latency_test.cpp has the rules). 4x EDR: an edge is 2.56 ns
  // and carries 32 bytes. Every MAD is a 290-byte GMP (LRH 8 + BTH 12 + DETH 8 + MAD 256 + ICRC 4 +
  // VCRC 2) + 2 delimiters = 292 slots = 10 edges; a 2 m cable, 10 ns, 4 edges. From an HCA to
  // another through sw1 (100 ns) a MAD started on edge e: its LRH is in at sw1 at e + 4 + 1, its
  // tail at e + 4 + 10; sw1 starts it out on the first edge >= (e + 5) x 2.56 + 100 ns (e + 45;
  // the tail rule asks only e + 44); its tail is in at e + 45 + 4 + 10 = e + 59 edges (151.04 ns).
  // The fabric is up on an edge (T0 = 122,841.6 ns = edge 47,985), where the flow starts:
  //   T0 + 59 edges          the PathRecord query is at h1 (the SM's SA); 2,000 ns later
  //   (edge 59 + 781.25 ->)  the answer leaves on edge 841, and is in at h2 at edge 900 = T0 + 2,304 ns
  //   + 1,000 ns             h2's CM has built the REQ: it leaves on edge ceil(1,290.625) = 1,291
  //   edge 1,350 (3,456 ns)  the REQ is in at h3; + 1,000 ns: h3's QP to INIT and RTR, the REP
  //                          leaves on edge ceil(1,740.625) = 1,741 (RTR at T0 + 4,456 ns)
  //   edge 1,800 (4,608 ns)  the REP is in at h2; + 1,000 ns: h2's QP to RTR and RTS, the RTU
  //                          leaves and the first WRITE is posted: T0 + 5,608 ns
  //   edge 2,250 (5,760 ns)  the RTU is in at h3; + 1,000 ns: h3's QP to RTS, T0 + 6,760 ns.
  const double t0 = 122841.6;
  CHECK(r["phases"]["fabric_up_ns"].get<double>() == Approx(t0).margin(1e-6));
  CHECK(c["outcome"] == "established");
  CHECK(c["requested_ns"].get<double>() == Approx(t0).margin(1e-6));
  CHECK(c["path_query_ns"].get<double>() == Approx(2304).margin(1e-6));
  CHECK(c["setup_ns"].get<double>() == Approx(5608).margin(1e-6));
  CHECK(c["passive_setup_ns"].get<double>() == Approx(6760).margin(1e-6));
  CHECK(c["to_rtr_ns"].get<double>() == Approx(t0 + 4456).margin(1e-6));
  CHECK(c["from_rtr_ns"].get<double>() == Approx(t0 + 5608).margin(1e-6));
  CHECK(c["from_rts_ns"].get<double>() == Approx(t0 + 5608).margin(1e-6));
  CHECK(c["to_rts_ns"].get<double>() == Approx(t0 + 6760).margin(1e-6));
  CHECK(c["retries"] == 0);
  CHECK(c["mras_received"] == 0);
  CHECK(c["reject_reason"].is_null());
  CHECK(c["service_id"] == "0x0000000001064853");  // RDMA_PS_TCP, port 18515 + 0
  // The first WRITE is posted when h2's QP reaches RTS, and all complete.
  CHECK(f["first_post_ns"].get<double>() == Approx(t0 + 5608).margin(1e-6));
  CHECK(f["messages_completed"] == 4);
  // Then h2 disconnects (cm.disconnect): at its last completion its QP goes to ERR and the DREQ
  // leaves on the next edge; as the REQ did, it is in at h3 59 edges later, taken up 1,000 ns
  // after that (h3's QP to ERR, the DREP out on the next edge), and the DREP is in at h2 59 edges
  // later, taken up 1,000 ns after that.
  const double edge = 2.56;
  const double dreq = c["disconnect_requested_ns"];
  const double to_disc = std::ceil(dreq / edge - 1e-9) * edge + 59 * edge + 1000;
  const double from_disc = std::ceil(to_disc / edge - 1e-9) * edge + 59 * edge + 1000;
  CHECK(dreq == Approx(f["last_completion_ns"].get<double>()).margin(1e-6));
  CHECK(c["to_disconnected_ns"].get<double>() == Approx(to_disc).margin(1e-6));
  CHECK(c["from_disconnected_ns"].get<double>() == Approx(from_disc).margin(1e-6));
  CHECK(f["from_side"]["qp_state"] == "ERR");
  CHECK(f["to_side"]["qp_state"] == "ERR");
  // The counters: one PathRecord query and answer at the SA; one REQ, REP, RTU.
  const auto& cm = r["connection_management"];
  CHECK(cm["sa"]["requests"]["path_record"] == 1);
  CHECK(cm["sa"]["answers"]["path_record"] == 1);
  CHECK(cm["sa"]["busy"] == 0);
  for (const char* m : {"req", "rep", "rtu", "dreq", "drep"}) {
    CHECK(cm["cm"]["sent"][m] == 1);
    CHECK(cm["cm"]["received"][m] == 1);
  }
  CHECK(cm["cm"]["sent"]["mra"] == 0);
  CHECK(cm["cm"]["sent"]["rej"] == 0);
  CHECK(cm["connections"]["established"] == 1);
  CHECK(cm["all_connected_ns"].get<double>() == Approx(5608).margin(1e-6));
  // The per-flow and per-agent tables.
  CHECK(read_file(dir + "/out/cm_connections.csv") ==
        "flow,from,to,outcome,requested_ns,path_query_ns,setup_ns,passive_setup_ns,reject_reason\n"
        "c1,h2,h3,established,122841.600,2304.000,5608.000,6760.000,\n");
  const std::string agents = read_file(dir + "/out/cm_agents.csv");
  CHECK(agents.find("\nh2,1,0,0,0,0,0,0,1,1,0,") != std::string::npos);  // REQ sent, REP received, RTU sent
  CHECK(agents.find("\nh3,0,1,0,0,0,0,1,0,0,1,") != std::string::npos);  // REQ received, REP sent, RTU received
  CHECK(run.output.find("connect: cm, established; path query 2.304 us, set-up 5.608 us (passive 6.760 us)") !=
        std::string::npos);
}

TEST_CASE("connect: cm: the QPs go to RTR and RTS in the spec's order, and a ping-pong server answers only in RTS",
          "[scenarios][cm]") {
  const nlohmann::json r = run_cm_scenario(
      "rdma_cm_order",
      "workload:\n"
      "  - {name: pp, transport: rc, verb: send, test: lat, from: h2, to: h3, iterations: 4, connect: cm}\n");
  const auto& f = flow(r, "pp");
  const auto& c = f["connection"];
  REQUIRE(c["outcome"] == "established");
  // Passive RTR (sends REP) < active RTR = active RTS (on the REP) < passive RTS (on the RTU).
  const double to_rtr = c["to_rtr_ns"], from_rtr = c["from_rtr_ns"], from_rts = c["from_rts_ns"], to_rts = c["to_rts_ns"];
  CHECK(to_rtr < from_rtr);
  CHECK(from_rtr == from_rts);
  CHECK(from_rts < to_rts);
  // The ping arrives at h3 (in RTR) before the RTU has been taken up: h3 answers once in RTS.
  CHECK(f["first_post_ns"].get<double>() == Approx(from_rts).margin(1e-6));
  CHECK(f["messages_completed"] == 4);
  CHECK(f["to_side"]["send_completions"]["IBV_WC_SUCCESS"] == 4);
  CHECK(f["to_side"]["qp_state"] == "ERR");  // disconnected (cm.disconnect): the DREQ took it to ERR
}

TEST_CASE("connect: cm: bad input is a located error (exit 2)", "[scenarios][cm][input]") {
  const std::string dir = scratch_dir("rdma_cm_bad");
  const std::string flow_rc = "workload: [{name: a, transport: rc, verb: write, from: h2, to: h3, connect: cm}]\n";
  const std::pair<std::string, std::string> cases[] = {
      {"workload: [{name: a, transport: ud, verb: send, from: h2, to: h3, connect: cm}]\n",
       ":3:76: expected static on a UD flow"},
      {"workload: [{name: a, transport: rc, verb: write, from: h2, to: h3, connect: tcp}]\n", ":3:77: expected static or cm"},
      {flow_rc + "subnet_manager: static\n", ":3:77: expected static with subnet_manager: static"},
      {flow_rc + "cm: {processing: 0us}\n", ":4:18: expected a processing time longer than 0"},
      {flow_rc + "cm: {max_retries: 16}\n", ":4:19: expected an integer in 0..15, got '16'"},
      {flow_rc + "cm: {mrq: true}\n", ":4:6: expected one of the keys"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    const std::string path = dir + "/bad.yaml";
    std::ofstream(path) << "topology: " << kTopo << "\nseed: 1\n" << text;
    const CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(path + message) != std::string::npos);
  }
  // From the SM's host: its PathRecord query would have to leave the node and come back.
  const std::string path = dir + "/sm_host.yaml";
  std::ofstream(path) << "topology: " << kTopo << "\nseed: 1\n"
                      << "workload: [{name: a, transport: rc, verb: write, from: h1, to: h3, connect: cm}]\n";
  const CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("expected connect: cm from an HCA other than the subnet manager's host h1") != std::string::npos);
}

// scenarios/rdma_cm.yaml: 32 clients at one server; its figures, and its capture decoded by tshark.
// With the MRA every client waits without resending: one REQ per client; the server accepts 24
// (cm.max_connections) and rejects the other 8 with reason No QP available (1).
TEST_CASE("scenarios/rdma_cm.yaml: 32 clients, 24 established, 8 REJ, 28 MRA, and tshark decodes every SA and CM MAD",
          "[scenarios][cm][capture]") {
  const std::string dir = scratch_dir("rdma_cm_32");
  const CommandResult run = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/rdma_cm.yaml -o " +
                                       dir + "/out --set outputs.pcap=true");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json r = nlohmann::json::parse(read_file(dir + "/out/results.json"));
  const auto& cm = r["connection_management"];
  CHECK(cm["connections"]["established"] == 24);
  CHECK(cm["connections"]["rejected"] == 8);
  CHECK(cm["sa"]["requests"]["path_record"] == 32);
  CHECK(cm["sa"]["answers"]["path_record"] == 32);
  CHECK(cm["cm"]["sent"]["req"] == 32);
  CHECK(cm["cm"]["sent"]["rep"] == 24);
  CHECK(cm["cm"]["sent"]["rtu"] == 24);
  CHECK(cm["cm"]["sent"]["rej"] == 8);
  CHECK(cm["cm"]["sent"]["mra"] == 28);
  CHECK(cm["all_connected_ns"].get<double>() == Approx(167839.04).margin(1e-6));
  CHECK(cm["cm"]["sent"]["dreq"] == 0);  // cm.disconnect: false
  // The SRQ: 24 clients x 8 SENDs taken; 64 posted at the start and 184 given back before the run
  // ended (the last 8 were still waiting their 50 us); the limit event once; one SEND RNR NAKed.
  CHECK(read_file(dir + "/out/shared_receive_queues.csv") ==
        "hca,max_wr,limit,buffer_bytes,qps,posted,taken,held_at_end,limit_events,limit_reached_ns\n"
        "h2,64,16,4096,32,248,192,56,1,2545338.215\n");
  std::uint64_t rnr = 0;
  for (const auto& f : r["flows"]) rnr += f["rnr_naks"].get<std::uint64_t>();
  CHECK(rnr == 1);
  if (!std::filesystem::exists("/usr/bin/tshark")) {
    WARN("tshark is not installed: the capture is not decoded");
    return;
  }
  // Each MAD is captured on every link it crosses; the distinct (class, method, attribute,
  // transaction) tuples are the MADs sent.
  const std::string tshark = "/usr/bin/tshark -n -r " + dir +
                             "/out/trace.pcap -T fields -E separator=';' -e _ws.malformed -e infiniband.mad.mgmtclass"
                             " -e infiniband.mad.method -e infiniband.mad.attributeid -e infiniband.mad.transactionid"
                             " -e infiniband.cm.rej.reason";
  const CommandResult ts = run_command("(" + tshark + " 2>/dev/null)");
  REQUIRE(ts.exit_code == 0);
  std::istringstream in(ts.output);
  std::string line;
  std::size_t malformed = 0;
  std::set<std::string> mads;
  std::map<std::string, std::size_t> by_kind;  // class/method/attribute -> distinct MADs
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ';')) f.push_back(cell);
    f.resize(6);
    if (!f[0].empty()) ++malformed;
    if (f[1] != "0x03" && f[1] != "0x07") continue;  // SA and CM only
    if (f[5] != "") CHECK(f[5] == "0x0001");         // every REJ: No QP available
    const std::string kind = f[1] + "/" + f[2] + "/" + f[3];
    if (mads.insert(kind + "/" + f[4]).second) ++by_kind[kind];
  }
  CHECK(malformed == 0);
  CHECK(by_kind["0x03/0x01/0x0035"] == 32);  // SA Get PathRecord
  CHECK(by_kind["0x03/0x81/0x0035"] == 32);  // its GetResp
  CHECK(by_kind["0x07/0x03/0x0010"] == 32);  // CM Send REQ
  CHECK(by_kind["0x07/0x03/0x0013"] == 24);  // REP
  CHECK(by_kind["0x07/0x03/0x0014"] == 24);  // RTU
  CHECK(by_kind["0x07/0x03/0x0012"] == 8);   // REJ
  CHECK(by_kind["0x07/0x03/0x0011"] == 28);  // MRA
}
