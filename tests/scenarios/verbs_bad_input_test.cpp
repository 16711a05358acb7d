// Bad verbs-flow and hca_model settings stop the run before simulation with exit code 2 and a
// message naming file:line:col and what was expected.
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {
// Writes a scenario on the two-host topology with `body` after the topology line, runs it and
// returns what ibfsim printed; the exit code must be 2.
std::string rejected(const std::string& name, const std::string& body, std::string* path_out = nullptr) {
  const std::string dir = scratch_dir("verbs_bad_" + name);
  const std::string path = dir + "/bad.yaml";
  std::ofstream(path) << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/two_hosts.yaml\n" << body;
  CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  if (path_out) *path_out = path;
  return r.output;
}
const std::string kFlow = "workload:\n  - {transport: rc, from: h1, to: h2, ";
}  // namespace

TEST_CASE("verbs flow: unknown verb, a verb the transport lacks, and an unknown key are located errors", "[scenarios][input]") {
  std::string path;
  std::string out = rejected("verb", kFlow + "verb: writ}\n", &path);
  CHECK(out.find(path + ":3:45: expected send, send_imm, write, write_imm, read, cmp_swap or fetch_add, got 'writ'") !=
        std::string::npos);
  out = rejected("ud_write", "workload:\n  - {transport: ud, from: h1, to: h2, verb: write}\n", &path);
  CHECK(out.find(path + ":3:45: expected send or send_imm on a UD flow") != std::string::npos);
  out = rejected("uc_read", "workload:\n  - {transport: uc, from: h1, to: h2, verb: read}\n", &path);
  CHECK(out.find(path + ":3:45: expected send, send_imm, write or write_imm on a UC flow") != std::string::npos);
  out = rejected("key", kFlow + "verb: write, load: 0.5}\n", &path);
  CHECK(out.find(path + ":3:52: expected one of the keys") != std::string::npos);
  CHECK(out.find("'load'") != std::string::npos);
  out = rejected("transport", "workload:\n  - {transport: rdma, from: h1, to: h2}\n", &path);
  CHECK(out.find(path + ":3:17: expected a transport: ud_send (the UD traffic generator), rc, uc or ud") != std::string::npos);
}

TEST_CASE("verbs flow: hosts, sizes, depths and iterations out of what they document are errors", "[scenarios][input]") {
  std::string path;
  std::string out = rejected("same_host", "workload:\n  - {transport: rc, from: h1, to: h1, verb: write}\n", &path);
  CHECK(out.find(path + ":3:35: expected an HCA other than 'from', got 'h1'") != std::string::npos);
  out = rejected("no_host", "workload:\n  - {transport: rc, from: sw1, to: h2, verb: write}\n", &path);
  CHECK(out.find(path + ":3:27: expected the name of an HCA") != std::string::npos);
  out = rejected("ud_size", "workload:\n  - {transport: ud, from: h1, to: h2, verb: send, message_size: 5000}\n", &path);
  CHECK(out.find(path + ":3:65: expected an integer in 0..4096, got '5000'") != std::string::npos);
  out = rejected("atomic_size", kFlow + "verb: fetch_add, message_size: 16}\n", &path);
  CHECK(out.find(path + ":3:70: expected 8 (an atomic operates on 8 bytes)") != std::string::npos);
  out = rejected("lat_depth", kFlow + "verb: write, test: lat, tx_depth: 4}\n", &path);
  CHECK(out.find(path + ":3:73: expected 1 for a latency test") != std::string::npos);
  out = rejected("both", kFlow + "verb: write, iterations: 10, duration: 1ms}\n", &path);
  CHECK(out.find(path + ":3:78: expected either iterations or duration, not both") != std::string::npos);
  out = rejected("checked", kFlow + "verb: write, tx_depth: 8192}\noutputs: {data_check: true}\n", &path);
  CHECK(out.find("expected tx_depth x message_size of at most 256 MiB with outputs.data_check") != std::string::npos);
  CHECK(out.find(path + ":3:5:") != std::string::npos);
  out = rejected("recv_delay", kFlow + "verb: write, recv_post_delay: 1us}\n", &path);
  CHECK(out.find(path + ":3:69: expected no recv_post_delay") != std::string::npos);
}

TEST_CASE("verbs flow: remote and qp settings are checked", "[scenarios][input]") {
  std::string path;
  std::string out = rejected("access", kFlow + "verb: write, remote: {access: [remote_write]}}\n", &path);
  CHECK(out.find(path + ":3:69: expected local_write with remote_write or remote_atomic") != std::string::npos);
  out = rejected("rkey_send", kFlow + "verb: send, remote: {rkey: wrong}}\n", &path);
  CHECK(out.find(path + ":3:66: expected no rkey: a SEND names no remote memory") != std::string::npos);
  out = rejected("mtu", kFlow + "verb: write, qp: {mtu: 1500}}\n", &path);
  CHECK(out.find(path + ":3:62: expected an IB MTU: 256, 512, 1024, 2048 or 4096, got '1500'") != std::string::npos);
  out = rejected("rnr_retry", kFlow + "verb: write, qp: {rnr_retry: 8}}\n", &path);
  CHECK(out.find(path + ":3:68: expected an integer in 0..7, got '8'") != std::string::npos);
  out = rejected("pkey_index", kFlow + "verb: write, qp: {pkey_index: 1}}\n", &path);
  CHECK(out.find(path + ":3:69: expected an index into the P_Key table of h1, which has 1 entry, got '1'") != std::string::npos);
}

TEST_CASE("hca_model: ranges, PCIe widths and per-HCA names are checked", "[scenarios][input]") {
  std::string path;
  std::string out = rejected("pcie_gen", "hca_model: {pcie_gen: 6}\n", &path);
  CHECK(out.find(path + ":2:23: expected an integer in 1..5, got '6'") != std::string::npos);
  out = rejected("pcie_width", "hca_model: {pcie_width: 12}\n", &path);
  CHECK(out.find(path + ":2:25: expected a PCIe link width: 1, 2, 4, 8 or 16, got '12'") != std::string::npos);
  out = rejected("mps", "hca_model: {pcie_max_payload: 300}\n", &path);
  CHECK(out.find(path + ":2:31: expected a PCIe Max_Payload_Size") != std::string::npos);
  out = rejected("per_hca", "hca_model:\n  per_hca:\n    sw1: {doorbell_to_wire: 1us}\n", &path);
  CHECK(out.find(path + ":4:5: expected the name of an HCA of the topology, got 'sw1'") != std::string::npos);
  out = rejected("dtw", "hca_model: {doorbell_to_wire: 250}\n", &path);
  CHECK(out.find(path + ":2:31:") != std::string::npos);
  out = rejected("limit", "phases: {limit: 0us}\n", &path);
  CHECK(out.find(path + ":2:17: expected a time limit longer than 0") != std::string::npos);
}

TEST_CASE("verbs flow: a memory window where it cannot be, or with bad settings, is a located error",
          "[scenarios][input]") {
  // The error's column: where `what` starts in the flow's line (line 3), counted from 1.
  auto at = [](const std::string& path, const std::string& line, const std::string& what) {
    return path + ":3:" + std::to_string(line.find(what) + 1) + ": expected ";
  };
  std::string path;
  const std::string uc = "  - {transport: uc, from: h1, to: h2, verb: write, window: {type: 2}}";
  std::string out = rejected("window_uc", "workload:\n" + uc + "\n", &path);
  CHECK(out.find(at(path, uc, "{type") + "no window: memory windows are modelled on RC flows") != std::string::npos);
  const std::string send = "  - {transport: rc, from: h1, to: h2, verb: send, window: {type: 2}}";
  out = rejected("window_send", "workload:\n" + send + "\n", &path);
  CHECK(out.find(at(path, send, "{type") + "no window: the verb must reach remote memory") != std::string::npos);
  const std::string type = "  - {transport: rc, from: h1, to: h2, verb: write, window: {type: 3}}";
  out = rejected("window_type", "workload:\n" + type + "\n", &path);
  CHECK(out.find(at(path, type, "3}") + "an integer in 1..2, got '3'") != std::string::npos);
  const std::string access = "  - {transport: rc, from: h1, to: h2, verb: write, window: {access: [local_write]}}";
  out = rejected("window_access", "workload:\n" + access + "\n", &path);
  CHECK(out.find(at(path, access, "[local") + "remote_write, remote_read or remote_atomic (a window grants remote rights only)") !=
        std::string::npos);
  const std::string after = "  - {transport: rc, from: h1, to: h2, verb: write, iterations: 4, window: {invalidate_after: 4}}";
  out = rejected("window_after", "workload:\n" + after + "\n", &path);
  CHECK(out.find(at(path, after, "4}") + "an integer in 1..3, got '4'") != std::string::npos);
  const std::string both =
      "  - {transport: rc, from: h1, to: h2, verb: write, remote: {access: [local_write]}, window: {type: 1}}";
  out = rejected("window_remote", "workload:\n" + both + "\n", &path);
  CHECK(out.find(at(path, both, "{type") + "either window.access or remote.access, not both") != std::string::npos);
}
