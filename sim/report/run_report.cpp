#include "sim/report/run_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace ibfsim {

namespace {

double number(const nlohmann::json& j, std::initializer_list<const char*> path, double fallback = 0) {
  const nlohmann::json* p = &j;
  for (const char* k : path) {
    if (!p->is_object() || !p->contains(k)) return fallback;
    p = &(*p)[k];
  }
  return p->is_number() ? p->get<double>() : fallback;
}

std::string row(const std::string& k, const std::string& v) {
  return fmt::format("<tr><th class=\"l\">{}</th><td class=\"l\">{}</td></tr>\n", html_escape(k), v);
}

std::string summary_section(const nlohmann::json& r) {
  std::string s = "<h2 id=\"summary\">Summary</h2>\n<table class=\"summary\">\n";
  s += row("scenario", html_escape(r.value("scenario", std::string())));
  s += row("seed", std::to_string(r.value("seed", 0)));
  if (r.contains("topology"))
    s += row("fabric", fmt::format("{} HCAs, {} switches, {} cables ({})", r["topology"].value("hcas", 0),
                                   r["topology"].value("switches", 0), r["topology"].value("cables", 0),
                                   html_escape(r["topology"].value("file", std::string()))));
  if (r.contains("subnet_manager") && r["subnet_manager"].value("mode", "") == "in_band")
    s += row("fabric up", fmt::format("{} (subnet manager on {}, {} routing, {} SMPs)",
                                      ns_text_human(number(r, {"subnet_manager", "bring_up_ns"})),
                                      html_escape(r["subnet_manager"].value("host", std::string())),
                                      html_escape(r["subnet_manager"].value("routing", std::string())),
                                      r["subnet_manager"].value("bring_up_smps", 0)));
  s += row("simulated", fmt::format("{}, traffic from {}{}", ns_text_human(number(r, {"phases", "end_ns"})),
                                    ns_text_human(number(r, {"phases", "start_ns"})),
                                    r.value("partial", false) ? " <span class=\"saturated\">INTERRUPTED: partial results</span>" : ""));
  if (r.contains("packets"))
    s += row("packets", fmt::format("{} created, {} delivered, {} dropped", r["packets"].value("created", 0),
                                    r["packets"].value("delivered", 0), r["packets"].value("dropped_total", 0)));
  if (r.contains("message_latency") && r["message_latency"].value("count", 0) > 0)
    s += row("message latency", fmt::format("mean {}, p99 {}, max {} ({} messages)",
                                            ns_text_human(number(r, {"message_latency", "mean_ns"})),
                                            ns_text_human(number(r, {"message_latency", "p99_ns"})),
                                            ns_text_human(number(r, {"message_latency", "max_ns"})),
                                            r["message_latency"].value("count", 0)));
  if (r.contains("load"))
    s += row("load", fmt::format("offered {}, accepted {} of the injection links; {} Gb/s offered, {} Gb/s accepted (payload)",
                                 fixed_text(number(r, {"load", "offered"}), 4), fixed_text(number(r, {"load", "accepted"}), 4),
                                 fixed_text(number(r, {"load", "offered_payload_gbps"}), 2),
                                 fixed_text(number(r, {"load", "accepted_payload_gbps"}), 2)));
  if (r.contains("saturation") && r["saturation"].value("saturated", false))
    s += row("saturation", "<span class=\"saturated\">SATURATED</span>: " +
                               html_escape(r["saturation"].value("reason", std::string())));
  if (r.contains("congestion_control") && r["congestion_control"].contains("totals")) {
    const auto& t = r["congestion_control"]["totals"];
    s += row("congestion control", fmt::format("{} FECN marked, {} CNPs sent, {} BECNs taken",
                                               t.value("fecn_marked", 0), t.value("cnp_sent", 0),
                                               t.value("becn_received", 0) + t.value("cnp_received", 0)));
  }
  s += "</table>\n";
  if (r.contains("flows") && !r["flows"].empty()) {
    s += "<h3 id=\"flows\">Flows</h3>\n<table class=\"flows\">\n<tr><th class=\"l\">flow</th><th>SL</th><th>offered Gb/s</th>"
         "<th>accepted Gb/s</th><th>mean latency</th><th>p99 latency</th></tr>\n";
    for (const auto& f : r["flows"]) {
      const nlohmann::json& lat = f.contains("latency") ? f["latency"] : f.value("message_latency", nlohmann::json::object());
      s += fmt::format("<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       html_escape(f.value("name", std::string())), f.value("sl", 0),
                       f.contains("throughput") ? fixed_text(number(f, {"throughput", "offered_payload_gbps"}), 2) : "",
                       f.contains("throughput") ? fixed_text(number(f, {"throughput", "accepted_payload_gbps"}), 2) : "",
                       lat.is_object() && lat.contains("mean_ns") ? ns_text_human(lat["mean_ns"].get<double>()) : "",
                       lat.is_object() && lat.contains("p99_ns") ? ns_text_human(lat["p99_ns"].get<double>()) : "");
    }
    s += "</table>\n";
  }
  return s;
}


// A half link's attributes: the figures of the port that sends on it, and its hover text.
std::string half_attrs(const std::string& port, const ReportPort& f, const std::string& extra = "") {
  return fmt::format(
      "data-u=\"{:.6f}\" data-s=\"{:.6f}\" data-f=\"{:.0f}\" data-info=\"{}\"",
      f.util, f.stall, f.fecn,
      html_escape(fmt::format("{} -> {}: utilisation {}, credit stall {}, FECN marked {:.0f}, {} packets sent, {} received, {} discarded{}",
                              port, f.peer, percent_text(f.util), percent_text(f.stall), f.fecn, f.tx_packets, f.rx_packets, f.discards, extra)));
}

std::string line_half(double x1, double y1, double x2, double y2, const std::string& attrs, double v) {
  return fmt::format(
      "<line class=\"half\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{:.2f}\" {}/>\n", x1,
      y1, x2, y2, report_colour(v), 1.5 + 4 * std::min(1.0, v), attrs);
}

std::string fabric_section(const ReportPorts& ports, const ReportFabric& fabric) {
  const bool windowed = ports.windowed;
  std::unordered_map<std::string, const ReportPort*> figures;
  for (const ReportPort& p : ports.ports) figures[p.key()] = &p;
  const ReportLayout lay = report_layout(fabric);
  auto fig = [&](std::size_t node, unsigned port) {
    const auto it = figures.find(fabric.nodes[node].name + "/" + std::to_string(port));
    return it == figures.end() ? ReportPort{} : *it->second;
  };
  auto key = [&](std::size_t node, unsigned port) { return fabric.nodes[node].name + "/" + std::to_string(port); };

  std::string s = "<h2 id=\"fabric\">The fabric</h2>\n";
  s += fmt::format(
      "<p>Each link is drawn as two halves: the half at a port shows what that port sends. Colour by "
      "<label><input type=\"radio\" name=\"metric\" value=\"util\" checked> utilisation</label> "
      "<label><input type=\"radio\" name=\"metric\" value=\"stall\"> credit-stall time</label> "
      "<label><input type=\"radio\" name=\"metric\" value=\"fecn\"> FECN marks</label> "
      "(now: <b id=\"metric-name\">utilisation</b>; {} as a fraction of {}). "
      "<span class=\"legend\">0 <span style=\"background:{}\"></span><span style=\"background:{}\"></span>"
      "<span style=\"background:{}\"></span><span style=\"background:{}\"></span><span style=\"background:{}\"></span> "
      "1</span>. {}</p>\n<div id=\"details\">Hover over a link for its port's figures.</div>\n",
      "utilisation and stall", windowed ? "the measurement window" : "the whole run", kReportScale[0], kReportScale[1], kReportScale[2],
      kReportScale[3], kReportScale[4],
      lay.kind == ReportLayout::Kind::kGrid
          ? "Switches on a grid by their coordinates (a torus's wrap-around links as stubs at the edges); each switch's hosts as one box."
          : lay.hosts_grouped ? "Hosts at the bottom, grouped per switch; each switch one level above the nearest switch below it."
                              : "Hosts at the bottom; each switch one level above the nearest switch below it.");
  s += fmt::format("<div class=\"fabric\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
                   "viewBox=\"0 0 {:.0f} {:.0f}\">\n",
                   lay.width, lay.height, lay.width, lay.height);
  // Host links of a group: one link per group, each half the busiest port of that direction.
  struct Group {
    std::size_t box = 0, sw = 0;
    ReportPort up, down;  // hosts -> switch, switch -> hosts: the maximum over the group's ports
    std::size_t hosts = 0;
    std::vector<std::string> busiest;
  };
  std::map<long, Group> groups;
  for (const ReportFabric::Link& l : fabric.links) {
    std::size_t a = l.a, b = l.b;
    unsigned pa = l.port_a, pb = l.port_b;
    if (fabric.nodes[a].is_switch && !fabric.nodes[b].is_switch) std::swap(a, b), std::swap(pa, pb);
    const bool host_link = !fabric.nodes[a].is_switch && fabric.nodes[b].is_switch;
    const ReportPort fa = fig(a, pa), fb = fig(b, pb);
    if (host_link && lay.group[a] >= 0 && static_cast<std::size_t>(lay.group[a]) == b) {
      Group& g = groups[lay.group[a]];
      if (g.hosts == 0) g.box = a, g.sw = b;
      ++g.hosts;
      for (auto [into, from] : {std::pair<ReportPort*, const ReportPort*>{&g.up, &fa}, {&g.down, &fb}}) {
        into->util = std::max(into->util, from->util);
        into->stall = std::max(into->stall, from->stall);
        into->fecn = std::max(into->fecn, from->fecn);
        into->tx_packets += from->tx_packets;
        into->rx_packets += from->rx_packets;
        into->discards += from->discards;
      }
      continue;
    }
    // (A grouped host's link to a second switch starts at its group's box, where it is drawn.)
    const double x1 = lay.x[a], y1 = lay.y[a], x2 = lay.x[b], y2 = lay.y[b];
    const bool wrap = lay.kind == ReportLayout::Kind::kGrid && fabric.nodes[a].is_switch && fabric.nodes[b].is_switch &&
                      (std::fabs(x1 - x2) > 1.5 * kReportGridStep || std::fabs(y1 - y2) > 1.5 * kReportGridStep);
    if (wrap) {
      // Stubs pointing outwards, away from the other end.
      const double dx = (x2 > x1 ? -1 : x2 < x1 ? 1 : 0) * (std::fabs(x1 - x2) > 1.5 * kReportGridStep ? 1 : 0);
      const double dy = (y2 > y1 ? -1 : y2 < y1 ? 1 : 0) * (std::fabs(y1 - y2) > 1.5 * kReportGridStep ? 1 : 0);
      s += line_half(x1, y1, x1 + dx * kReportGridStep * 0.42, y1 + dy * kReportGridStep * 0.42, half_attrs(key(a, pa), fa, " (wrap-around)"), fa.util);
      s += line_half(x2, y2, x2 - dx * kReportGridStep * 0.42, y2 - dy * kReportGridStep * 0.42, half_attrs(key(b, pb), fb, " (wrap-around)"), fb.util);
      continue;
    }
    const double mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
    s += line_half(x1, y1, mx, my, half_attrs(key(a, pa), fa), fa.util);
    s += line_half(x2, y2, mx, my, half_attrs(key(b, pb), fb), fb.util);
  }
  for (auto& [sw, g] : groups) {
    g.up.peer = fabric.nodes[g.sw].name;
    g.down.peer = fmt::format("its {} hosts", g.hosts);
    const double x1 = lay.x[g.box], y1 = lay.y[g.box], x2 = lay.x[g.sw], y2 = lay.y[g.sw];
    const double mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
    const std::string extra = fmt::format(" (the busiest of {} host links)", g.hosts);
    s += line_half(x1, y1, mx, my, half_attrs(fmt::format("the hosts of {}", fabric.nodes[g.sw].name), g.up, extra), g.up.util);
    s += line_half(x2, y2, mx, my, half_attrs(fmt::format("{} (host ports)", fabric.nodes[g.sw].name), g.down, extra), g.down.util);
  }
  // Nodes on top of the links.
  std::size_t switches = 0;
  for (const auto& node : fabric.nodes) switches += node.is_switch ? 1 : 0;
  const bool labels = switches <= 400;  // beyond that the names are in the hover text only
  for (std::size_t i = 0; i < fabric.nodes.size(); ++i) {
    const auto& node = fabric.nodes[i];
    if (node.is_switch) {
      const double w = std::min(30.0, std::max(12.0, 7.0 * static_cast<double>(node.name.size()) * 0.8));
      s += fmt::format("<g class=\"node\" data-info=\"{}\"><rect class=\"sw\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"14\" rx=\"2\"/>",
                       html_escape("switch " + node.name), lay.x[i] - w / 2, lay.y[i] - 7, w);
      if (labels)
        s += fmt::format("<text class=\"lbl\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", lay.x[i], lay.y[i],
                         html_escape(node.name.size() > 7 ? node.name.substr(node.name.size() - 7) : node.name));
      s += "<title>" + html_escape(node.name) + "</title></g>\n";
    } else if (lay.group[i] < 0) {
      s += fmt::format("<circle class=\"host\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" data-info=\"{}\"><title>{}</title></circle>"
                       "<text class=\"hlbl\" transform=\"translate({:.1f} {:.1f}) rotate(50)\">{}</text>\n",
                       lay.x[i], lay.y[i], html_escape("host " + node.name), html_escape(node.name), lay.x[i] - 2,
                       lay.y[i] + 9, html_escape(node.name));
    }
  }
  for (const auto& [sw, g] : groups) {
    const std::string label = std::to_string(g.hosts);
    const double w = 8.0 + 6.0 * static_cast<double>(label.size());
    s += fmt::format("<g class=\"group\" data-info=\"{}\"><rect class=\"grp\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"12\" rx=\"3\"/>"
                     "<text class=\"glbl\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text><title>{}</title></g>\n",
                     html_escape(fmt::format("{} hosts on {}", g.hosts, fabric.nodes[g.sw].name)), lay.x[g.box] - w / 2,
                     lay.y[g.box] - 6, w, lay.x[g.box], lay.y[g.box], label,
                     html_escape(fmt::format("{} hosts on {}", g.hosts, fabric.nodes[g.sw].name)));
  }
  s += "</svg></div>\n";
  return s;
}

// The hottest ports' table: every candidate row (hot_port_candidates), the first 20 by utilisation
// shown until the script orders them by the selected figure.
std::string hot_ports_section(const ReportPorts& ports) {
  const std::vector<const ReportPort*> rows = hot_port_candidates(ports);
  std::string s = fmt::format(
      "<h2 id=\"hot-ports\">Hottest ports</h2>\n<p>The 20 ports that send the most, by the figure selected above "
      "(utilisation and stall over {}).</p>\n<table id=\"hot-ports-table\">\n<tr><th class=\"l\">port</th><th class=\"l\">to</th>"
      "<th>utilisation</th><th>credit stall</th><th>FECN marked</th><th>packets sent</th><th>discarded</th></tr>\n<tbody id=\"hot-body\">\n",
      ports.windowed ? "the measurement window" : "the whole run");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ReportPort& f = *rows[i];
    const std::string name = f.key();
    s += fmt::format(
        "<tr data-key=\"{}\" data-u=\"{:.6f}\" data-s=\"{:.6f}\" data-f=\"{:.0f}\"{}><td class=\"l\">{}</td><td class=\"l\">{}</td>"
        "<td>{}</td><td>{}</td><td>{:.0f}</td><td>{}</td><td>{}</td></tr>\n",
        html_escape(name), f.util, f.stall, f.fecn, i < 20 ? "" : " style=\"display:none\"", html_escape(name),
        html_escape(f.peer), percent_text(f.util), percent_text(f.stall), f.fecn, f.tx_packets, f.discards);
  }
  return s + "</tbody>\n</table>\n";
}

// A figure as the page's script reads it back from the row's attributes.
double as_shown(double v, int decimals) { return std::stod(fmt::format("{:.{}f}", v, decimals)); }

}  // namespace

std::vector<const ReportPort*> hot_port_candidates(const ReportPorts& ports, std::size_t per_figure) {
  std::vector<const ReportPort*> all;
  for (const ReportPort& p : ports.ports) all.push_back(&p);
  // By name first: the order ties keep.
  std::sort(all.begin(), all.end(), [](const ReportPort* a, const ReportPort* b) { return a->key() < b->key(); });
  std::set<const ReportPort*> chosen;
  for (int figure = 0; figure < 3; ++figure) {
    auto value = [figure](const ReportPort* p) {
      return figure == 0 ? as_shown(p->util, 6) : figure == 1 ? as_shown(p->stall, 6) : as_shown(p->fecn, 0);
    };
    std::vector<const ReportPort*> by = all;
    std::stable_sort(by.begin(), by.end(), [&](const ReportPort* a, const ReportPort* b) { return value(a) > value(b); });
    for (std::size_t i = 0; i < by.size() && i < per_figure; ++i) chosen.insert(by[i]);
  }
  std::vector<const ReportPort*> out;
  for (const ReportPort* p : all)
    if (chosen.count(p)) out.push_back(p);
  std::stable_sort(out.begin(), out.end(), [](const ReportPort* a, const ReportPort* b) { return a->util > b->util; });
  return out;
}

std::string run_report_html(const nlohmann::json& r, const ReportPorts& ports, const ReportFabric& fabric,
                            const std::vector<ReportImage>& images, const std::vector<std::string>& files) {
  const std::string scenario = r.value("scenario", std::string("run"));
  std::string s = page_head("ibfsim report: " + scenario);
  s += fmt::format("<h1>ibfsim {}: {} (seed {})</h1>\n", html_escape(r.value("ibfsim_version", std::string())),
                   html_escape(scenario), r.value("seed", 0));
  s += "<p><a href=\"#summary\">Summary</a> · <a href=\"#fabric\">Fabric</a> · <a href=\"#hot-ports\">Hottest ports</a>";
  if (!images.empty()) s += " · <a href=\"#plots\">Plots</a>";
  s += " · <a href=\"#files\">Files</a></p>\n";
  s += summary_section(r);
  s += fabric_section(ports, fabric);
  s += hot_ports_section(ports);
  s += images_section(images);
  s += files_section(files);
  return s + page_tail();
}

}  // namespace ibfsim
