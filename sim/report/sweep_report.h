// A sweep's report.html (html_page.h): the saturation summary, the latency and throughput curves
// (and the metrics) drawn with every point a link to that point's own report.html, the points as
// a table with the same links, and the gnuplot plots embedded. Pure: the same curve gives the same
// bytes.
#pragma once
#include <string>
#include <vector>

#include "sim/report/curve.h"
#include "sim/report/html_page.h"

namespace ibfsim {

// `point_dirs[i]` is point i's folder relative to the sweep's (its report is point_dirs[i] +
// "/report.html"). `title`: the scenario's name.
std::string sweep_report_html(const Curve& curve, const std::string& title, const std::vector<std::string>& point_dirs,
                              const std::vector<ReportImage>& images, const std::vector<std::string>& files);

}  // namespace ibfsim
