#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/fabric/dot_format.h"
#include "sim/fabric/ibnetdiscover_format.h"
#include "sim/fabric/ibsim_format.h"
#include "sim/fabric/topology_loader.h"
#include "sim/fabric/topology_summary.h"
#include "tests/support/run_command.h"

using namespace ibfsim;

namespace {

const std::string kSource = std::string(IBFSIM_SOURCE_DIR) + "/";

}  // namespace

TEST_CASE("topology file format: told apart by content", "[fabric][format]") {
  CHECK(detect_topology_format("nodes:\n  - {name: sw1, type: switch}\n") == TopologyFormat::kYaml);
  CHECK(detect_topology_format("# Switch 8 \"x\"\ngenerate: {kind: leaf_spine}\n") == TopologyFormat::kYaml);
  CHECK(detect_topology_format("Switches: 3\n") == TopologyFormat::kYaml);
  CHECK(detect_topology_format("") == TopologyFormat::kYaml);
  CHECK(detect_topology_format("#\n# Topology file\n\nvendid=0x2c9\nSwitch\t8 \"S-0002c90300000001\"\n") ==
        TopologyFormat::kIbnetdiscover);
  CHECK(detect_topology_format("Ca\t1 \"H-0002c90300000002\"\r\n") == TopologyFormat::kIbnetdiscover);
  CHECK(detect_topology_format("Switch 8 \"S-0002c90300000001\"\nHca 2 \"Hca1\"\n") == TopologyFormat::kIbsim);
  CHECK(detect_topology_format("switchguid=0x1\nSwitch\t8 \"Switch1\"\n") == TopologyFormat::kIbsim);
  CHECK(std::string(topology_format_name(TopologyFormat::kIbnetdiscover)) == "ibnetdiscover");
}

TEST_CASE("load_topology_file reads YAML, ibnetdiscover and ibsim files alike", "[fabric][format]") {
  TopologyFormat f = TopologyFormat::kIbsim;
  CHECK(load_topology_file(kSource + "topologies/quickstart.yaml", &f).nodes.size() == 9);
  CHECK(f == TopologyFormat::kYaml);
  CHECK(load_topology_file(kSource + "topologies/examples/small_cluster.ibnetdiscover", &f).nodes.size() == 10);
  CHECK(f == TopologyFormat::kIbnetdiscover);
  CHECK(load_topology_file(kSource + "topologies/examples/leaf_spine.ibsim", &f).nodes.size() == 8);
  CHECK(f == TopologyFormat::kIbsim);
  try {
    load_topology_file("no/such/file.ibnd");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "no/such/file.ibnd: expected a topology file (YAML, ibnetdiscover or ibsim), got no such file");
  }
}

// Truncated, spliced and corrupted variants of the net file examples: each must load or be refused
// with an InputError, and whatever loads must summarize and export. Under AddressSanitizer
// (scripts/test.sh) this also proves no input makes the readers touch memory they should not.
// Variants that no longer look like a net file are skipped here; YAML input has its own test below.
TEST_CASE("net file readers survive corrupted input: InputError or a valid topology, never a crash",
          "[fabric][format]") {
  const std::vector<std::string> seeds = {
      test::read_file(kSource + "topologies/examples/small_cluster.ibnetdiscover"),
      test::read_file(kSource + "topologies/examples/leaf_spine.ibsim"),
  };
  const std::string dir = test::scratch_dir("format_fuzz");
  const std::string path = dir + "/input";
  const std::string alphabet = std::string("\"[]#@=()\n\t x0123456789abcdefSHCa-:/{},\xff") + std::string(1, '\0');
  std::mt19937_64 rng(20240604);
  std::size_t loaded = 0, refused = 0;
  for (const std::string& seed : seeds) {
    for (int i = 0; i < 1000; ++i) {
      std::string text = seed;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        const std::size_t at = rng() % text.size();
        switch (rng() % 6) {
          case 0: text.resize(at); break;                                       // truncate
          case 1: text[at] = alphabet[rng() % alphabet.size()]; break;          // replace a byte
          case 2: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;  // insert a byte
          case 3: text.erase(at, 1 + rng() % 40); break;                        // delete a run
          case 4: text.insert(at, text.substr(rng() % text.size(), 1 + rng() % 80)); break;  // splice
          case 5: text.insert(at, "99999999999999999999999"); break;            // a huge number
        }
      }
      if (detect_topology_format(text) == TopologyFormat::kYaml) continue;
      std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
      try {
        const Topology t = load_topology_file(path);
        ++loaded;
        if (t.nodes.size() > 2000) continue;
        const TopologySummary s = summarize_topology(t);
        CHECK_FALSE(format_topology_summary(t, s).empty());
        CHECK_FALSE(write_dot(t).empty());
        CHECK_FALSE(write_ibnetdiscover(t).empty());
        try {
          CHECK_FALSE(write_ibsim(t).empty());
        } catch (const InputError&) {
          // a name too long for ibsim
        }
      } catch (const InputError&) {
        ++refused;
      } catch (const std::exception& e) {
        FAIL_CHECK("not an InputError: " << e.what() << "\ninput:\n" << text);
      }
    }
  }
  CHECK(loaded > 0);
  CHECK(refused > 0);
}

// The same for YAML topologies: mutated files load or are refused with an InputError, and never
// hang (load_yaml_file avoids yaml-cpp 0.7's LoadAll, which loops forever on input like ",").
TEST_CASE("the YAML topology reader survives corrupted input: InputError or a valid topology, never a hang",
          "[fabric][format]") {
  const std::string seed = test::read_file(kSource + "topologies/two_switches.yaml");
  const std::string dir = test::scratch_dir("yaml_fuzz");
  const std::string path = dir + "/input.yaml";
  const std::string alphabet = std::string("\"[]#@=()\n\t x0123456789abcdefSHCa-:/{},&*!|>'%\xff");
  std::mt19937_64 rng(7);
  std::size_t loaded = 0, refused = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string text = seed;
    for (int e = 0, n = 1 + static_cast<int>(rng() % 4); e < n && !text.empty(); ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 5) {
        case 0: text.resize(at); break;
        case 1: text[at] = alphabet[rng() % alphabet.size()]; break;
        case 2: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        case 3: text.erase(at, 1 + rng() % 40); break;
        case 4: text.insert(at, text.substr(rng() % text.size(), 1 + rng() % 80)); break;
      }
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    try {
      load_topology_file(path);
      ++loaded;
    } catch (const InputError&) {
      ++refused;
    }
  }
  CHECK(loaded + refused == 1500);
  CHECK(loaded > 50);
  CHECK(refused > 500);
}
