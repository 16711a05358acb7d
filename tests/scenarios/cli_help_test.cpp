// Every command's --help says the default of every option that has one: an option taking a value
// either says its default or is one that does nothing unless given (an output file, --set).
#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <sstream>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

TEST_CASE("--help of every command gives the default of every option with a value", "[scenarios][cli]") {
  // Options that are off unless given: no default to state.
  const std::set<std::string> no_default = {"--set", "--metric", "--event-trace", "--topology", "--lft-file",
                                            "--dot",  "--ibnetdiscover", "--ibsim", "--yaml", "--slurm-arg"};
  for (const char* command : {"run", "sweep", "collect", "topo", "routes"}) {
    const CommandResult r = run_ibfsim(std::string(command) + " --help");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    // Options, with CLI11's wrapped descriptions joined to their option's line.
    std::vector<std::string> options;
    std::istringstream in(r.output);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("  -", 0) == 0) options.push_back(line);
      else if (!options.empty() && line.rfind("        ", 0) == 0) options.back() += " " + line;
      else if (line.empty() || line.back() == ':') options.emplace_back();  // a new section
    }
    std::size_t checked = 0;
    for (const std::string& o : options) {
      std::smatch m;
      if (!std::regex_search(o, m, std::regex(R"(^  (?:-\w,)?(--[\w-]+) (TEXT|UINT|INT|FLOAT|NAME=SELECTOR))"))) continue;
      if (no_default.count(m[1]) || o.find("REQUIRED") != std::string::npos) continue;
      INFO(command << " " << m[1] << ": " << o);
      CHECK(o.find("default") != std::string::npos);
      ++checked;
    }
    if (std::string(command) == "sweep") CHECK(checked >= 5);  // -o, --seed, -j, --saturation-drop, --saturation-latency
  }
}
