// The golden OpenSM runs under tests/subnet_manager/golden (see its README.md): enumerating them,
// loading a run's fabric as the SM would find it, and comparing LIDs and LFTs with OpenSM's.
// The parsers here are deliberately separate from the ones in sim/ (a plain sscanf per line), so
// that a bug in ibfsim's dump reader cannot hide a mismatch.
#pragma once
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "sim/fabric/subnet_graph_from_topology.h"
#include "sim/fabric/topology_loader.h"
#include "sim/subnet_manager/sm/lid_assignment.h"
#include "sim/subnet_manager/routing/routing_tables.h"

namespace ibfsim::test {

inline std::string golden_root() { return std::string(IBFSIM_SOURCE_DIR) + "/tests/subnet_manager/golden"; }

struct GoldenRun {
  std::string topology;  // folder name, e.g. ring_6
  std::string run;       // e.g. minhop_lmc1
  std::string dir;       // full path of the run folder
  std::string engine;    // routing_engine of opensm.conf
  unsigned lmc = 0;
  std::string sm_host;   // SIM_HOST of command.txt
  std::vector<Guid> roots;  // root_guids.txt, if any
  std::vector<Guid> compute_nodes;  // cn_guids.txt (ftree's cn_guid_file), if any
  unsigned nue_max_vls = 1;  // nue_max_num_vls of opensm.conf (OpenSM's default 1)
  std::string name() const { return topology + "/" + run; }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every run folder (one with opensm.conf), sorted by topology then run name.
inline std::vector<GoldenRun> golden_runs() {
  namespace fs = std::filesystem;
  std::vector<GoldenRun> runs;
  for (const auto& topo : fs::directory_iterator(golden_root())) {
    if (!topo.is_directory()) continue;
    for (const auto& run : fs::directory_iterator(topo.path())) {
      if (!fs::exists(run.path() / "opensm.conf")) continue;
      GoldenRun r;
      r.topology = topo.path().filename().string();
      r.run = run.path().filename().string();
      r.dir = run.path().string();
      std::istringstream conf(slurp(r.dir + "/opensm.conf"));
      std::string key, value;
      for (std::string line; std::getline(conf, line);) {
        std::istringstream ls(line);
        if (!(ls >> key >> value)) continue;
        if (key == "routing_engine") r.engine = value;
        if (key == "lmc") r.lmc = static_cast<unsigned>(std::stoul(value));
        if (key == "nue_max_num_vls") r.nue_max_vls = static_cast<unsigned>(std::stoul(value));
      }
      std::smatch m;
      const std::string cmd = slurp(r.dir + "/command.txt");
      if (std::regex_search(cmd, m, std::regex("SIM_HOST=(\\S+)"))) r.sm_host = m[1].str();
      if (fs::exists(run.path() / "root_guids.txt")) {
        std::istringstream roots(slurp(r.dir + "/root_guids.txt"));
        for (std::string g; roots >> g;) r.roots.push_back(std::stoull(g, nullptr, 16));
      }
      if (fs::exists(run.path() / "cn_guids.txt")) {
        std::istringstream cns(slurp(r.dir + "/cn_guids.txt"));
        for (std::string g; cns >> g;) r.compute_nodes.push_back(std::stoull(g, nullptr, 16));
      }
      runs.push_back(r);
    }
  }
  std::sort(runs.begin(), runs.end(), [](const GoldenRun& a, const GoldenRun& b) { return a.name() < b.name(); });
  return runs;
}

inline std::vector<GoldenRun> golden_runs_of(const std::string& engine) {
  std::vector<GoldenRun> out;
  for (const GoldenRun& r : golden_runs())
    if (r.engine == engine) out.push_back(r);
  return out;
}

// The run's fabric (its topology.net, not regenerated) with the SM on the run's host and the LIDs
// assigned by ibfsim with the run's LMC.
inline SubnetGraph golden_subnet(const GoldenRun& r) {
  const Topology topo = load_topology_file(golden_root() + "/" + r.topology + "/topology.net");
  const auto sm = topo.find_node(r.sm_host);
  if (!sm) throw std::runtime_error("no node " + r.sm_host + " in " + r.topology);
  const unsigned port = topo.nodes[*sm].type == NodeType::kSwitch ? 0 : 1;
  SubnetGraph g = subnet_graph_from_topology(topo, *sm, port).graph;
  assign_lids(g, r.lmc);
  return g;
}

// guid2lid: port GUID -> (first, last).
inline std::map<Guid, std::pair<unsigned, unsigned>> golden_guid2lid(const GoldenRun& r) {
  std::map<Guid, std::pair<unsigned, unsigned>> out;
  std::istringstream in(slurp(r.dir + "/guid2lid"));
  for (std::string line; std::getline(in, line);) {
    unsigned long long guid = 0;
    unsigned lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%llx %x %x", &guid, &lo, &hi) == 3) out[guid] = {lo, hi};
  }
  return out;
}

// opensm-lfts.dump: switch GUID -> LID -> port.
inline std::map<Guid, std::map<unsigned, unsigned>> golden_lfts(const GoldenRun& r) {
  std::map<Guid, std::map<unsigned, unsigned>> out;
  std::istringstream in(slurp(r.dir + "/opensm-lfts.dump"));
  std::map<unsigned, unsigned>* cur = nullptr;
  for (std::string line; std::getline(in, line);) {
    unsigned top = 0, lid = 0, port = 0;
    unsigned long long guid = 0;
    if (std::sscanf(line.c_str(), "Unicast lids [0-%u] of switch Lid %u guid %llx", &top, &lid, &guid) == 3) {
      cur = &out[guid];
    } else if (cur && line.rfind("0x", 0) == 0 && std::sscanf(line.c_str(), "%x %u", &lid, &port) == 2) {
      (*cur)[lid] = port;
    }
  }
  return out;
}

struct LftComparison {
  std::size_t golden_entries = 0;
  std::size_t mismatches = 0;  // entries that differ, are missing or are extra
  std::string first_mismatch;
};

inline LftComparison compare_lfts(const SubnetGraph& g, const RoutingTables& t, const GoldenRun& r) {
  LftComparison c;
  const auto golden = golden_lfts(r);
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    if (!g.nodes[n].is_switch()) continue;
    const auto it = golden.find(g.nodes[n].node_guid);
    static const std::map<unsigned, unsigned> none;
    const auto& want = it == golden.end() ? none : it->second;
    c.golden_entries += want.size();
    const auto& lft = t.lft.at(n);
    const std::size_t top = std::max<std::size_t>(lft.size(), want.empty() ? 0 : want.rbegin()->first + 1);
    for (std::size_t lid = 0; lid < top; ++lid) {
      const unsigned got = lid < lft.size() ? lft[lid] : kNoRoute;
      const auto w = want.find(static_cast<unsigned>(lid));
      const unsigned exp = w == want.end() ? kNoRoute : w->second;
      if (got != exp) {
        if (c.mismatches++ == 0) {
          c.first_mismatch = g.nodes[n].description + " LID " + std::to_string(lid) + ": ibfsim port " +
                             std::to_string(got) + ", OpenSM " + std::to_string(exp);
        }
      }
    }
  }
  return c;
}

// path-sls.txt: (SLID, DLID) -> first and last SL OpenSM may answer the path record with.
inline std::map<std::pair<unsigned, unsigned>, std::pair<unsigned, unsigned>> golden_path_sls(const GoldenRun& r) {
  std::map<std::pair<unsigned, unsigned>, std::pair<unsigned, unsigned>> out;
  std::istringstream in(slurp(r.dir + "/path-sls.txt"));
  for (std::string line; std::getline(in, line);) {
    unsigned s = 0, d = 0, lo = 0, hi = 0;
    const int n = std::sscanf(line.c_str(), "%x %x %u-%u", &s, &d, &lo, &hi);
    if (n == 3) out[{s, d}] = {lo, lo};
    else if (n == 4) out[{s, d}] = {lo, hi};
  }
  return out;
}

// opensm-sl2vl.dump: one row of 16 VLs per (port, in port, out port) OpenSM programmed.
inline std::vector<std::vector<unsigned>> golden_sl2vl_rows(const GoldenRun& r) {
  std::vector<std::vector<unsigned>> out;
  std::istringstream in(slurp(r.dir + "/opensm-sl2vl.dump"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.find(':') == std::string::npos) continue;
    std::istringstream ls(line.substr(line.find(':') + 1));
    std::vector<unsigned> row;
    for (unsigned v; ls >> v;) row.push_back(v);
    if (row.size() == 16) out.push_back(row);
  }
  return out;
}

// The graph port that owns a LID (an HCA port or a switch's port 0).
inline std::map<unsigned, SubnetPortRef> ports_by_lid(const SubnetGraph& g) {
  std::map<unsigned, SubnetPortRef> out;
  for (std::size_t n = 0; n < g.nodes.size(); ++n)
    for (unsigned p = 0; p <= g.nodes[n].num_ports(); ++p) {
      const LidRange r = g.nodes[n].ports[p].lids;
      if (r.assigned())
        for (unsigned lid = r.first; lid <= r.last; ++lid) out[lid] = {n, static_cast<PortNum>(p)};
    }
  return out;
}

}  // namespace ibfsim::test
