// report.html: a run's or a sweep's results as one self-contained page (inline CSS, script and
// images; it opens from disk with no network). Pure functions of the results: the same results give
// the same bytes, and the tests read the page without a browser as well as in one.
//
// A run's page (run_report_html):
//  * the summary: scenario, fabric, how it came up, packets, latency, throughput, load and
//    saturation, congestion control, and a table of the flows;
//  * the fabric as a picture (report_layout): a layered drawing for trees and anything irregular
//    (hosts at the bottom, then each switch one level above the nearest switch below it), a grid
//    for meshes and tori (and hypercubes), hosts grouped per switch when there are many of them
//    (always on a grid), so that a fabric of thousands of hosts stays readable. Every link is
//    drawn as two halves, each coloured by what the port at its end sends: utilisation (the
//    measurement window's busy fraction, else the whole run's), credit-stall time (the port's
//    worst VL, as a fraction of the window) or FECN marks (congestion control); a selector
//    switches between them, hovering over a half shows the port's figures;
//  * the hottest ports as a table, ordered by the selected figure;
//  * the run's plots (time_series.svg), embedded;
//  * links to every result file.
// A sweep's page (sweep_report_html): the saturation summary, the latency and throughput curves
// (and the metrics) drawn with every point a link to that point's own report.html, the points as
// a table with the same links, and the gnuplot plots embedded.
//
// The page's script colours, sorts and shows details; when it has run it marks <body
// data-ready="1">, and any script error is written into <html data-script-errors="..."> (the
// browser test reads both). The URL fragment #metric=stall (util, stall, fecn) selects a figure.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "sim/report/curve.h"

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

// Grid when every switch is named by coordinates as the mesh and torus generators name them
// (sw3, sw1_2, sw1_2_3) or as the hypercube generator does (sw0110, 2^d of them); layered
// otherwise. Hosts are grouped per switch on a grid, and in a layered picture once there are more
// than `max_single_hosts` of them.
ReportLayout report_layout(const ReportFabric& fabric, std::size_t max_single_hosts = 64);

// An image for the page: an SVG file's text, embedded as a data URI.
struct ReportImage {
  std::string title;
  std::string file;  // its name in the folder (linked)
  std::string svg;   // its content
};

// A run's report.html. `files`: the result files in the folder, linked from the page.
std::string run_report_html(const nlohmann::json& results, const ReportFabric& fabric,
                            const std::vector<ReportImage>& images, const std::vector<std::string>& files);

// A sweep's report.html: `point_dirs[i]` is point i's folder relative to the sweep's (its report
// is point_dirs[i] + "/report.html"). `title`: the scenario's name.
std::string sweep_report_html(const Curve& curve, const std::string& title, const std::vector<std::string>& point_dirs,
                              const std::vector<ReportImage>& images, const std::vector<std::string>& files);

// Text made safe inside HTML (&, <, >, ", ').
std::string html_escape(const std::string& text);
// Base64 of bytes (data URIs).
std::string base64(const std::string& bytes);

}  // namespace ibfsim
