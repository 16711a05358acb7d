// Under saturating load every credit check and the packet ledger are verified by the simulator
// itself (a broken invariant ends the run with exit code 1); here we also read the books back.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

TEST_CASE("incast at full load: credits hold, every packet is delivered, dropped or still accounted for",
          "[scenarios][invariants]") {
  const std::string out = scratch_dir("incast");
  CommandResult r = run_ibfsim("run " + data_path("incast_saturation.yaml") + " -o " + out);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(read_file(out + "/results.json"));
  const auto& p = j["packets"];
  const std::uint64_t created = p["created"], injected = p["injected"], delivered = p["delivered"],
                      dropped = p["dropped_total"], queued = p["queued_at_sources_at_end"],
                      in_net = p["in_network_at_end"];
  CHECK(dropped == 0);
  CHECK(created == delivered + dropped + queued + in_net);
  CHECK(injected == delivered + dropped + in_net);
  CHECK(j["phases"]["drained"] == false);
  CHECK(queued > 0);
  CHECK(in_net > 0);
  // Seven sources at full rate into one 4x EDR link: the bottleneck delivers at its line rate.
  // 2 KiB packets take 66 edges of 2.56 ns, so 1 / 168.96 ns; in 30 us at most ceil(30000 / 168.96)
  // + 1 = 179 packets can finish, and after the first packets fill the pipe, at least 170 do.
  const std::uint64_t window_packets = j["throughput"]["accepted_packets"];
  CHECK(window_packets <= 179);
  CHECK(window_packets >= 170);
  // No receive buffer ever held more than its capacity (checked on every arrival), and the
  // switch port toward h1 really filled: its peer's buffers were used.
  const std::string ports = read_file(out + "/ports.csv");
  CHECK(ports.find("sw1,1,h1/1,4x EDR") != std::string::npos);
}
