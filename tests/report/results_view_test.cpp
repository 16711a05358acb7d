// A results folder read back (results_view.h): the tables, plain or compressed, give back the
// members results.json once held, in that shape, and selectors find figures in them.
#include <catch2/catch.hpp>

#include <fstream>

#include "scratch_dir.h"
#include "sim/core/error.h"
#include "sim/report/results_view.h"
#include "sim/report/table_file.h"

using namespace ibfsim;
using ibfsim::testing::ScratchDir;

namespace {

void table(const ScratchDir& dir, const std::string& name, const std::string& text, bool compress = false) {
  TableFile t(dir.file(table_file_name(name, compress)), compress);
  t.write(text);
  t.close();
}

// A folder as a run with a measurement window, a fault, M_Key protection, a rogue_smp attack and
// congestion control per SL writes it; port_vls.csv and links.csv compressed.
void make_folder(const ScratchDir& dir) {
  std::ofstream(dir.file("results.json")) << R"({"load": {"accepted": 0.5},
    "congestion_control": {"totals": {"fecn_marked": 3}},
    "faults": [{"link": "sw1/2", "state": "down", "at_ns": 10.0}],
    "subnet_manager": {"mode": "in_band", "m_key": {"protect_bits": 1, "violations_total": 8}},
    "attacks": [{"name": "rogue", "kind": "rogue_smp"}, {"name": "forged", "kind": "forged_slid"}]})";
  table(dir, "ports",
        "node,port,peer,rate,state,tx_packets,run_busy_fraction,rcv_errors,phy_error,vcrc_error,ebp,tx_ebp\n"
        "sw1,1,h1/1,4x EDR,Active,10,0.25,3,1,2,0,0\n"
        "h1,1,sw1/1,4x EDR,Active,7,0.125,0,0,0,0,0\n"
        "\"sw,2\",1,\"h,2/1\",4x EDR,Down,0,0,0,0,0,0,0\n");
  table(dir, "port_vls", "node,port,vl,tx_packets,credit_stall_ns\nsw1,1,0,6,1.5\nsw1,1,1,4,0\nh1,1,0,7,0\n", true);
  table(dir, "discards", "node,port,reason,packets\nsw1,1,link_down,2\nsw1,1,unknown_dlid,1\n");
  table(dir, "port_utilization", "node,port,peer,busy_fraction\nsw1,1,h1/1,0.958\nh1,1,sw1/1,0.1\n");
  table(dir, "credit_stall", "node,port,vl,credit_stall_ns,credit_stall_fraction\nsw1,1,0,100,0.001\nsw1,1,1,0,0.000000\n");
  table(dir, "links",
        "a,b,rate,trained,lane_reversed,training_ns,phy_mode,fec,up_ns,active_ns,down_ns,retrained_up_ns,"
        "retrained_active_ns,bits_flipped\n"
        "h1/1,sw1/1,4x EDR,4x EDR,false,18104.32,timing,,18104.32,20000,,,,\n"
        "h2/1,sw1/2,4x HDR,4x HDR,true,1000,bit_exact,\"RS(544,514)\",1000,,10 30.5,40,,7\n", true);
  table(dir, "cc_switch_ports", "node,port,fecn_marked\nsw1,2,3\n");
  table(dir, "cc_qps", "hca,qpn,cnp_received,ccti\nh1,256,5,\n");
  table(dir, "fault_destinations",
        "fault,link,node,last_delivery_before_ns,first_delivery_after_ns,gap_ns\n0,sw1/2,h2,,50,\n");
  table(dir, "m_key_violations", "node,violations\nsw1,8\n");
  table(dir, "attack_targets", "attack,switch,path,smps_processed,hijack_in_place\nrogue,sw1,1 35,4,false\n");
}

}  // namespace

TEST_CASE("results view: the tables give back results.json's members in their shape", "[report][results_view]") {
  ScratchDir dir("results-view");
  make_folder(dir);
  const std::string folder = dir.file("");
  CHECK(find_table(folder, "port_vls") == dir.file("port_vls.csv.zst"));
  CHECK(find_table(folder, "ports") == dir.file("ports.csv"));
  CHECK_FALSE(find_table(folder, "hca_model"));
  const nlohmann::json j = results_with_tables(folder);
  CHECK(j["load"]["accepted"] == 0.5);
  REQUIRE(j["ports"].size() == 3);
  CHECK(j["ports"][0] == nlohmann::json::parse(R"({"node": "sw1", "port": 1, "peer": "h1/1", "rate": "4x EDR",
      "state": "Active", "tx_packets": 10, "run_busy_fraction": 0.25, "tx_ebp": 0,
      "rcv_errors": {"phy_error": 1, "vcrc_error": 2, "ebp": 0},
      "vls": [{"vl": 0, "tx_packets": 6, "credit_stall_ns": 1.5}, {"vl": 1, "tx_packets": 4, "credit_stall_ns": 0}],
      "discards": {"link_down": 2, "unknown_dlid": 1},
      "window": {"busy_fraction": 0.958, "credit_stall_ns": [100, 0]}})"));
  CHECK(j["ports"][1]["window"] == nlohmann::json::parse(R"({"busy_fraction": 0.1})"));
  CHECK(j["ports"][1]["discards"] == nlohmann::json::object());
  CHECK(j["ports"][2]["node"] == "sw,2");  // quoted in the table
  CHECK_FALSE(j["ports"][2].contains("window"));
  CHECK(j["links"][0] == nlohmann::json::parse(R"({"a": "h1/1", "b": "sw1/1", "rate": "4x EDR", "trained": "4x EDR",
      "lane_reversed": false, "training_ns": 18104.32, "phy_mode": "timing", "up_ns": 18104.32, "active_ns": 20000})"));
  CHECK(j["links"][1] == nlohmann::json::parse(R"j({"a": "h2/1", "b": "sw1/2", "rate": "4x HDR", "trained": "4x HDR",
      "lane_reversed": true, "training_ns": 1000, "phy_mode": "bit_exact", "fec": "RS(544,514)", "up_ns": 1000,
      "active_ns": null, "down_ns": [10, 30.5], "retrained_up_ns": [40], "retrained_active_ns": [], "bits_flipped": 7})j"));
  CHECK(j["congestion_control"] == nlohmann::json::parse(R"({"totals": {"fecn_marked": 3},
      "switch_ports": [{"node": "sw1", "port": 2, "fecn_marked": 3}], "qps": [{"hca": "h1", "qpn": 256, "cnp_received": 5}]})"));
  CHECK(j["faults"][0]["destinations"] ==
        nlohmann::json::parse(R"([{"node": "h2", "last_delivery_before_ns": null, "first_delivery_after_ns": 50}])"));
  CHECK(j["subnet_manager"]["m_key"]["violations"] == nlohmann::json::parse(R"({"sw1": 8})"));
  CHECK(j["attacks"][0]["targets"] ==
        nlohmann::json::parse(R"([{"switch": "sw1", "path": [1, 35], "smps_processed": 4, "hijack_in_place": false}])"));
  CHECK_FALSE(j["attacks"][1].contains("targets"));
  CHECK_FALSE(j.contains("hca_model"));
}

TEST_CASE("results view: selectors read results.json first, then the tables", "[report][results_view]") {
  ScratchDir dir("results-view-select");
  make_folder(dir);
  const std::string folder = dir.file("");
  const nlohmann::json results = read_results_json(folder);
  auto pick = [&](const std::string& s) { return select_in_results(folder, results, parse_json_selector(s, "test")); };
  CHECK(pick("load.accepted") == 0.5);
  CHECK(pick("ports[node=sw1,port=1].window.busy_fraction") == 0.958);
  CHECK(pick("ports[node=sw1,port=1].window.credit_stall_ns[0]") == 100);
  CHECK(pick("ports[node=sw1,port=1].vls[1].tx_packets") == 4);
  CHECK(pick("ports[node=sw1,port=1].discards.link_down") == 2);
  CHECK(pick("ports[node=sw1,port=1].rcv_errors.vcrc_error") == 2);
  CHECK(pick("ports[node=h1].tx_packets") == 7);
  CHECK(pick("ports[peer=h1/1].tx_packets") == 10);
  CHECK_FALSE(pick("ports[node=h9,port=1].tx_packets"));
  CHECK(pick("links[a=h2/1].down_ns[1]") == 30.5);
  CHECK(pick("congestion_control.totals.fecn_marked") == 3);
  CHECK(pick("congestion_control.switch_ports[node=sw1,port=2].fecn_marked") == 3);
  CHECK(pick("faults[0].destinations[node=h2].first_delivery_after_ns") == 50);
  CHECK(pick("subnet_manager.m_key.violations.sw1") == 8);
  CHECK(pick("attacks[name=rogue].targets[switch=sw1].smps_processed") == 4);
  // Any table by its name, one object per line.
  CHECK(pick("port_vls[node=sw1,port=1,vl=0].credit_stall_ns") == 1.5);
  CHECK_FALSE(pick("nothing[a=1].b"));
}

TEST_CASE("results view: a folder without results.json or with a broken table is bad input", "[report][results_view]") {
  ScratchDir dir("results-view-bad");
  CHECK_THROWS_AS(read_results_json(dir.file("")), InputError);
  std::ofstream(dir.file("results.json")) << "{}";
  std::ofstream(dir.file("ports.csv")) << "node,port\nsw1\n";
  CHECK_THROWS_WITH(results_with_tables(dir.file("")), Catch::Contains("ports.csv:2: expected 2 cells"));
}
