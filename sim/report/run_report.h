// A run's report.html: its results as one self-contained page (html_page.h):
//  * the summary: scenario, fabric, how it came up, packets, latency, throughput, load and
//    saturation, congestion control, and a table of the flows (from results.json);
//  * the fabric as a picture (report_layout.h). Every link is drawn as two halves, each coloured by
//    what the port at its end sends: utilisation (the measurement window's busy fraction, else the
//    whole run's), credit-stall time (the port's worst VL, as a fraction of the window) or FECN
//    marks (congestion control); a selector switches between them, hovering over a half shows the
//    port's figures (report_ports.h);
//  * the hottest ports as a table, ordered by the selected figure: the 20 first by each figure;
//  * the run's plots (time_series.svg), embedded;
//  * links to every result file.
// A pure function of the results: the same results give the same bytes, and the tests read the
// page without a browser as well as in one.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sim/report/html_page.h"
#include "sim/report/report_layout.h"
#include "sim/report/report_ports.h"

namespace ibfsim {

// `results`: results.json; `ports`: what each port sends; `files`: the result files in the folder,
// linked from the page.
std::string run_report_html(const nlohmann::json& results, const ReportPorts& ports, const ReportFabric& fabric,
                            const std::vector<ReportImage>& images, const std::vector<std::string>& files);

// The hottest ports' table shows 20 rows by the selected figure: the ports among the first 20 by
// utilisation, by credit-stall time or by FECN marks (as the page rounds them; ties by name), in
// the order of utilisation. Exposed for the tests.
std::vector<const ReportPort*> hot_port_candidates(const ReportPorts& ports, std::size_t per_figure = 20);

}  // namespace ibfsim
