// scenarios/memory_windows.yaml: a type 2 window bound, written through and invalidated by a
// SEND with Invalidate, after which the next WRITE fails with a remote access error and leaves
// the memory unchanged; a type 1 window read through; a SEND with Invalidate of a type 1 window
// refused. Every time is computed by hand from the run's start (the fabric up, on an edge of
// the 4x EDR clock: 2.56 ns, 32 bytes per edge), and the capture is decoded by tshark.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

const nlohmann::json& flow(const nlohmann::json& r, const std::string& name) {
  for (const auto& f : r["flows"])
    if (f["name"] == name) return f;
  throw std::runtime_error("no flow " + name);
}

constexpr double kEdge = 2.56;  // ns
// The first EDR edge at or after t (ns), edges counted from 0 ns (every link trained to an edge).
double edge_at_or_after(double t) { return std::ceil(t / kEdge - 1e-9) * kEdge; }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

// An R_Key as tshark 4.0 prints the IETH field: its four bytes in hex. (It prints the field
// twice, for the header and for its RKey item, comma-separated.)
std::string fmt_key(std::uint32_t k) {
  char b[16];
  std::snprintf(b, sizeof b, "%08x", k);
  return std::string(b) + "," + b;
}

}  // namespace

TEST_CASE("memory_windows.yaml: bind, WRITEs through a type 2 window, SEND with Invalidate, then a remote access "
          "error with the target memory unchanged, exact to the ns",
          "[scenarios][mw]") {
  const std::string dir = scratch_dir("memory_windows");
  CommandResult run = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/memory_windows.yaml -o " + dir +
                                 " --set outputs.packet_log=true");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json r = nlohmann::json::parse(read_file(dir + "/results.json"));
  const auto& f = flow(r, "type2_write");
  const auto& w = f["window"];
  // Times in ns, from the flow's start T0 (the fabric up, an EDR edge).
  const double t0 = w["bind_posted_ns"].get<double>();
  CHECK(t0 == Approx(79987.2).margin(1e-6));
  CHECK(std::fmod(t0 / kEdge + 1e-9, 1.0) < 1e-6);

  // The bind: the doorbell reaches h2's QP 250 ns after the post and the bind is done at once (no
  // packet), its completion visible 250 ns later; h1 starts then.
  CHECK(w["type"] == 2);
  CHECK(w["bind_status"] == "IBV_WC_SUCCESS");
  CHECK(w["bound_ns"].get<double>() == Approx(t0 + 500).margin(1e-6));
  CHECK(f["first_post_ns"].get<double>() == Approx(t0 + 500).margin(1e-6));
  // The window is h2's protection-table entry 1 (its region has 0); the key byte is drawn from
  // seed 1 (memory_keys: key_byte) and the bind names the next one.
  CHECK(w["rkey_index"] == 1);
  CHECK(w["rkey_key_byte"] == 0x2B);
  CHECK(w["rkey"] == (1 << 8 | 0x2B));

  // Four WRITEs through the window, then the SEND with Invalidate as the 4th completes.
  CHECK(w["messages_before_invalidation"] == 4);
  const auto& sw = w["send_with_invalidate"];
  const double posted = sw["posted_ns"].get<double>();
  CHECK(posted == Approx(f["last_completion_ns"].get<double>()).margin(1e-6));  // the 4th WRITE's completion
  // SEND Only with Invalidate, zero bytes: LRH 8 + BTH 12 + IETH 4 + ICRC 4 + VCRC 2 = 30 bytes + 2
  // delimiters = 1 edge. It starts on the first edge after the doorbell (nothing to read); at sw1
  // its LRH is in 4 (2 m) + 1 edges later and it leaves 100 ns after that, on edge c + 45; at h2
  // its tail is in at c + 45 + 4 + 1 = c + 50 edges. h2 invalidates the window and completes the
  // receive, visible 250 ns later, and sends the ACK at once (1 edge, 50 edges back to h1), whose
  // completion is visible 250 ns after it arrives.
  const double c = edge_at_or_after(posted + 250);
  const double at_h2 = c + 50 * kEdge;
  const auto& inv = w["invalidation_received"];
  CHECK(inv["status"] == "IBV_WC_SUCCESS");
  CHECK(inv["with_invalidate_flag"] == true);
  CHECK(inv["invalidated_rkey"] == w["rkey"]);
  CHECK(inv["completed_ns"].get<double>() == Approx(at_h2 + 250).margin(1e-6));
  CHECK(sw["status"] == "IBV_WC_SUCCESS");
  CHECK(sw["completed_ns"].get<double>() == Approx(at_h2 + 50 * kEdge + 250).margin(1e-6));

  // The next WRITE (4 KiB) is posted as the SEND completes: doorbell 250 ns, payload DMA 284.375 ns
  // (4096 B at 14.4 GB/s), then the next edge c2. 4138 + 2 bytes = 130 edges; its tail is at h2 at
  // c2 + 45 + 4 + 130 = c2 + 179 edges; the payload crosses the host interface (284.375 ns) and
  // the responder finds the window's R_Key invalid: NAK remote access error on the next edge, back
  // at h1 50 edges later, IBV_WC_REM_ACCESS_ERR visible 250 ns after that.
  const double c2 = edge_at_or_after(sw["completed_ns"].get<double>() + 250 + 284.375);
  const double nak = edge_at_or_after(c2 + 179 * kEdge + 284.375);
  const auto& next = w["first_after_invalidation"];
  CHECK(next["status"] == "IBV_WC_REM_ACCESS_ERR");
  CHECK(next["completed_ns"].get<double>() == Approx(nak + 50 * kEdge + 250).margin(1e-6));
  CHECK(f["completions"] == nlohmann::json({{"IBV_WC_SUCCESS", 4}, {"IBV_WC_REM_ACCESS_ERR", 1},
                                             {"IBV_WC_WR_FLUSH_ERR", 3}}));
  CHECK(f["from_side"]["qp_state"] == "ERR");
  CHECK(f["to_side"]["qp_state"] == "ERR");
  CHECK(f["to_side"]["counters"]["remote_access_errors"] == 1);
  CHECK(f["to_side"]["send_completions"] == nlohmann::json({{"IBV_WC_SUCCESS", 1}}));     // the bind
  CHECK(f["to_side"]["receive_completions"] == nlohmann::json({{"IBV_WC_SUCCESS", 1}}));  // the invalidation
  // Not a byte of the region or its guard changed after the invalidation; the whole data check
  // (each WRITE where it landed, every target byte at the end) passes.
  CHECK(w["target_bytes_changed_after_invalidation"] == 0);
  CHECK(f["data_check"]["passed"] == true);
  CHECK(f["data_check"]["messages_checked"] == 4);
  CHECK(f["data_check"]["target_bytes_differing"] == 0);

  // Type 1, read through: four READs succeed (the window grants remote read; the region nothing).
  const auto& rd = flow(r, "type1_read");
  CHECK(rd["window"]["type"] == 1);
  CHECK(rd["window"]["bind_status"] == "IBV_WC_SUCCESS");
  CHECK(rd["completions"] == nlohmann::json({{"IBV_WC_SUCCESS", 4}}));
  CHECK(rd["data_check"]["passed"] == true);
  CHECK(rd["to_side"]["qp_state"] == "RTS");

  // Type 1, SEND with Invalidate: refused (o10-37.2.26), both sides IBV_WC_REM_INV_REQ_ERR, both QPs
  // in ERR after 2 WRITEs; nothing written after.
  const auto& rf = flow(r, "type1_refused")["window"];
  CHECK(rf["messages_before_invalidation"] == 2);
  CHECK(rf["send_with_invalidate"]["status"] == "IBV_WC_REM_INV_REQ_ERR");
  CHECK(rf["invalidation_received"]["status"] == "IBV_WC_REM_INV_REQ_ERR");
  CHECK(rf["invalidation_received"]["with_invalidate_flag"] == false);
  CHECK(rf["first_after_invalidation"]["status"].is_null());
  CHECK(rf["target_bytes_changed_after_invalidation"] == 0);
  CHECK(flow(r, "type1_refused")["messages_posted"] == 2);

  // The packet log names the IETH's R_Key on the SEND Only with Invalidate (opcode 23), and on no
  // other packet.
  int with_ieth = 0;
  for (const std::string& line : split(read_file(dir + "/packets.csv"), '\n')) {
    const auto cells = split(line, ',');
    if (cells.size() < 13 || cells[0] == "packet_id") continue;
    if (cells[5] == "23") {
      ++with_ieth;
      CHECK((cells[12] == std::to_string(w["rkey"].get<int>()) ||
             cells[12] == std::to_string(rf["rkey"].get<int>())));
    } else {
      CHECK(cells[12].empty());
    }
  }
  CHECK(with_ieth == 2);

  // tshark decodes every frame of the capture, none malformed, and shows the IETH of each SEND
  // with Invalidate on each link it crosses (h1 -> sw1, sw1 -> h2).
  const std::string tshark =
      "/usr/bin/tshark -n -r " + dir + "/trace.pcap -T fields -E separator=';'"
      " --disable-heuristic rpcrdma_infiniband --disable-heuristic smb_direct_infiniband"
      " --disable-heuristic iser_infiniband --disable-heuristic nvme_rdma --disable-heuristic sdp_infiniband"
      " --disable-heuristic lnet_ib --disable-heuristic smcr_infiniband --disable-heuristic fc_infiniband"
      " --disable-heuristic eth_over_ib"
      " -e infiniband.bth.opcode -e infiniband.ieth -e _ws.malformed";
  CommandResult ts = run_command("(" + tshark + " 2>/dev/null)");
  INFO(ts.output.substr(0, 2000));
  REQUIRE(ts.exit_code == 0);
  int frames = 0;
  std::vector<std::string> ieths;
  for (const std::string& line : split(ts.output, '\n')) {
    if (line.empty()) continue;
    const auto cells = split(line, ';');
    REQUIRE(cells.size() == 3);
    ++frames;
    CHECK(cells[2].empty());
    if (cells[0] == "23") ieths.push_back(cells[1]);
  }
  // Each SEND with Invalidate on its two links, in time order: type2_write's, then type1_refused's.
  const std::string k2 = fmt_key(w["rkey"].get<std::uint32_t>()), k1 = fmt_key(rf["rkey"].get<std::uint32_t>());
  CHECK(k2 == "0000012b,0000012b");
  CHECK(ieths == std::vector<std::string>{k2, k2, k1, k1});
  CHECK(frames > 40);
}
