// Where each node of a fabric is drawn in a run's report (run_report.h): a layered drawing for
// trees and anything irregular (hosts at the bottom, then each switch one level above the nearest
// switch below it), a grid for meshes and tori (and hypercubes), hosts grouped per switch when there
// are many of them (always on a grid), so that a fabric of thousands of hosts stays readable. Pure.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace ibfsim {

// The fabric as the picture needs it: nodes in declaration order and the cables between ports.
struct ReportFabric {
  struct Node {
    std::string name;
    bool is_switch = false;
  };
  struct Link {
    std::size_t a = 0, b = 0;          // node indices
    unsigned port_a = 0, port_b = 0;
  };
  std::vector<Node> nodes;
  std::vector<Link> links;
};

// Where each node is drawn. Hosts may be drawn one by one or as one group per switch.
struct ReportLayout {
  enum class Kind { kLayered, kGrid };
  Kind kind = Kind::kLayered;
  bool hosts_grouped = false;      // hosts drawn as one box per switch (host_group)
  std::vector<double> x, y;        // per node, in the picture's units (hosts in a group: the group's)
  std::vector<int> level;          // layered: 0 hosts, 1 their switches, ...; grid: 0
  std::vector<long> group;         // per node: for a grouped host, the switch whose group holds it; -1
  double width = 0, height = 0;
};

// The distance between neighbouring switches on a grid (a torus's wrap-around links are longer).
constexpr double kReportGridStep = 64;

// Grid when every switch is named by coordinates as the mesh and torus generators name them
// (sw3, sw1_2, sw1_2_3) or as the hypercube generator does (sw0110, 2^d of them); layered
// otherwise. Hosts are grouped per switch on a grid, and in a layered picture once there are more
// than `max_single_hosts` of them.
ReportLayout report_layout(const ReportFabric& fabric, std::size_t max_single_hosts = 64);

}  // namespace ibfsim
