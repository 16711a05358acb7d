#include "sim/report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <queue>
#include <regex>
#include <set>

#include "sim/report/plot_style.h"

namespace ibfsim {

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string base64(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += digits[(v >> 6) & 63];
    out += digits[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += digits[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Layout

namespace {

constexpr double kLevelGap = 110;  // layered: vertical distance between levels
constexpr double kSlot = 36;       // layered: horizontal room per node of the widest level
constexpr double kGridStep = 64;   // grid: distance between neighbouring switches
constexpr double kMargin = 40;

// The switches' grid coordinates, if the names say them; empty otherwise.
std::vector<std::vector<unsigned>> grid_coordinates(const ReportFabric& f, bool& hypercube) {
  std::vector<std::size_t> switches;
  for (std::size_t i = 0; i < f.nodes.size(); ++i)
    if (f.nodes[i].is_switch) switches.push_back(i);
  std::vector<std::vector<unsigned>> coords(f.nodes.size());
  if (switches.size() < 2) return {};
  // Hypercube: sw + d binary digits, 2^d switches.
  hypercube = true;
  const std::size_t bits = f.nodes[switches[0]].name.size() - 2;
  for (std::size_t s : switches) {
    const std::string& n = f.nodes[s].name;
    if (n.size() != bits + 2 || n.compare(0, 2, "sw") != 0 || n.find_first_not_of("01", 2) != std::string::npos) {
      hypercube = false;
      break;
    }
  }
  if (hypercube && bits >= 2 && bits < 20 && switches.size() == (std::size_t{1} << bits)) {
    const std::size_t xbits = (bits + 1) / 2;
    for (std::size_t s : switches) {
      const unsigned long label = std::strtoul(f.nodes[s].name.c_str() + 2, nullptr, 2);
      coords[s] = {static_cast<unsigned>(label & ((1ul << xbits) - 1)), static_cast<unsigned>(label >> xbits)};
    }
    return coords;
  }
  hypercube = false;
  // Mesh and torus: sw<a>, sw<a>_<b> or sw<a>_<b>_<c>, all with the same number of coordinates.
  static const std::regex name(R"(^sw(\d+)(?:_(\d+))?(?:_(\d+))?$)");
  std::size_t dims = 0;
  for (std::size_t s : switches) {
    std::smatch m;
    if (!std::regex_match(f.nodes[s].name, m, name)) return {};
    std::vector<unsigned> c;
    for (int g = 1; g <= 3; ++g)
      if (m[g].matched) c.push_back(static_cast<unsigned>(std::stoul(m[g].str())));
    if (dims == 0) dims = c.size();
    if (c.size() != dims) return {};
    coords[s] = c;
  }
  return coords;
}

// The first switch each HCA is cabled to (hosts are grouped under it), or -1.
std::vector<long> host_switch(const ReportFabric& f) {
  std::vector<long> sw(f.nodes.size(), -1);
  for (const ReportFabric::Link& l : f.links) {
    const bool as = f.nodes[l.a].is_switch, bs = f.nodes[l.b].is_switch;
    if (!as && bs && sw[l.a] < 0) sw[l.a] = static_cast<long>(l.b);
    if (!bs && as && sw[l.b] < 0) sw[l.b] = static_cast<long>(l.a);
  }
  return sw;
}

}  // namespace

ReportLayout report_layout(const ReportFabric& f, std::size_t max_single_hosts) {
  ReportLayout out;
  const std::size_t n = f.nodes.size();
  out.x.assign(n, 0);
  out.y.assign(n, 0);
  out.level.assign(n, 0);
  out.group.assign(n, -1);
  const std::vector<long> host_sw = host_switch(f);
  std::size_t hosts = 0;
  for (const auto& node : f.nodes) hosts += node.is_switch ? 0 : 1;

  bool hypercube = false;
  const std::vector<std::vector<unsigned>> coords = grid_coordinates(f, hypercube);
  if (!coords.empty()) {
    out.kind = ReportLayout::Kind::kGrid;
    out.hosts_grouped = true;
    unsigned max0 = 0, max1 = 0, max2 = 0;
    for (const auto& c : coords) {
      if (c.size() > 0) max0 = std::max(max0, c[0]);
      if (c.size() > 1) max1 = std::max(max1, c[1]);
      if (c.size() > 2) max2 = std::max(max2, c[2]);
    }
    // A third dimension: its slices side by side, a gap between them.
    for (std::size_t i = 0; i < n; ++i) {
      if (!f.nodes[i].is_switch) continue;
      const auto& c = coords[i];
      const double gx = c[0] + (c.size() > 2 ? c[2] * (max0 + 2.0) : 0.0);
      const double gy = c.size() > 1 ? c[1] : 0;
      out.x[i] = kMargin + gx * kGridStep;
      out.y[i] = kMargin + gy * kGridStep;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (f.nodes[i].is_switch) continue;
      out.group[i] = host_sw[i];
      if (host_sw[i] >= 0) {  // the group box sits below and right of its switch
        out.x[i] = out.x[static_cast<std::size_t>(host_sw[i])] + kGridStep * 0.3;
        out.y[i] = out.y[static_cast<std::size_t>(host_sw[i])] + kGridStep * 0.35;
      }
    }
    const double cols = max0 + 1 + (max2 > 0 ? max2 * (max0 + 2.0) : 0.0);
    out.width = 2 * kMargin + cols * kGridStep;
    out.height = 2 * kMargin + (max1 + 1) * kGridStep;
    return out;
  }

  // Layered: switches by breadth-first distance from the switches that hold hosts.
  out.kind = ReportLayout::Kind::kLayered;
  out.hosts_grouped = hosts > max_single_hosts;
  std::vector<std::vector<std::size_t>> adj(n);
  for (const ReportFabric::Link& l : f.links)
    if (f.nodes[l.a].is_switch && f.nodes[l.b].is_switch) {
      adj[l.a].push_back(l.b);
      adj[l.b].push_back(l.a);
    }
  std::vector<int> level(n, -1);
  std::queue<std::size_t> q;
  for (std::size_t i = 0; i < n; ++i)
    if (!f.nodes[i].is_switch) {
      level[i] = 0;
      if (host_sw[i] >= 0 && level[static_cast<std::size_t>(host_sw[i])] < 0) {
        level[static_cast<std::size_t>(host_sw[i])] = 1;
        q.push(static_cast<std::size_t>(host_sw[i]));
      }
    }
  // Every switch that holds a host is on level 1, also when it is its host's second switch.
  for (const ReportFabric::Link& l : f.links) {
    for (auto [s, h] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}})
      if (f.nodes[s].is_switch && !f.nodes[h].is_switch && level[s] < 0) {
        level[s] = 1;
        q.push(s);
      }
  }
  while (!q.empty()) {
    const std::size_t s = q.front();
    q.pop();
    for (std::size_t t : adj[s])
      if (level[t] < 0) {
        level[t] = level[s] + 1;
        q.push(t);
      }
  }
  int top = 1;
  for (int l : level) top = std::max(top, l);
  for (std::size_t i = 0; i < n; ++i)
    if (level[i] < 0) level[i] = top + 1;  // switches no host reaches
  for (int l : level) top = std::max(top, l);
  out.level = level;
  std::vector<std::vector<std::size_t>> rows(static_cast<std::size_t>(top) + 1);
  for (std::size_t i = 0; i < n; ++i) {
    if (!f.nodes[i].is_switch && out.hosts_grouped) continue;
    rows[static_cast<std::size_t>(level[i])].push_back(i);
  }
  // Grouped hosts: one box per switch holding hosts, on level 0.
  std::map<long, std::size_t> group_box;  // switch -> the first host of its group (drawn for the group)
  if (out.hosts_grouped) {
    for (std::size_t i = 0; i < n; ++i)
      if (!f.nodes[i].is_switch) {
        out.group[i] = host_sw[i];
        if (!group_box.count(host_sw[i])) {
          group_box[host_sw[i]] = i;
          rows[0].push_back(i);
        }
      }
  }
  std::size_t widest = 1;
  for (const auto& r : rows) widest = std::max(widest, r.size());
  out.width = 2 * kMargin + static_cast<double>(widest) * kSlot;
  out.height = 2 * kMargin + top * kLevelGap + (out.hosts_grouped ? 20 : 60);  // room for host names
  auto place = [&](std::vector<std::size_t>& row, int lv) {
    for (std::size_t k = 0; k < row.size(); ++k) {
      out.x[row[k]] = kMargin + (static_cast<double>(k) + 0.5) * (out.width - 2 * kMargin) / static_cast<double>(row.size());
      out.y[row[k]] = kMargin + (top - lv) * kLevelGap;
    }
  };
  // Level 1 in declaration order; hosts under their switch; higher levels by the mean position of
  // their neighbours below (one barycentre pass), so trees drawn from any input stay untangled.
  place(rows[1], 1);
  std::vector<double> key(n, 0);
  for (std::size_t i : rows[0]) key[i] = host_sw[i] >= 0 ? out.x[static_cast<std::size_t>(host_sw[i])] : 1e18;
  std::stable_sort(rows[0].begin(), rows[0].end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
  place(rows[0], 0);
  for (int lv = 2; lv <= top; ++lv) {
    auto& row = rows[static_cast<std::size_t>(lv)];
    for (std::size_t s : row) {
      double sum = 0;
      int count = 0;
      for (std::size_t t : adj[s])
        if (level[t] == lv - 1) sum += out.x[t], ++count;
      key[s] = count ? sum / count : 1e18;
    }
    std::stable_sort(row.begin(), row.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    place(row, lv);
  }
  // Every grouped host is drawn where its group is.
  for (std::size_t i = 0; i < n; ++i)
    if (out.group[i] >= 0) {
      const std::size_t box = group_box[out.group[i]];
      out.x[i] = out.x[box];
      out.y[i] = out.y[box];
    }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The run's page

namespace {

std::string num(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }
std::string pct(double v) { return fmt::format("{:.1f}%", 100 * v); }

// "1.234 us" from ns, to four significant digits.
std::string ns_text_human(double ns) {
  struct U {
    double scale;
    const char* name;
  };
  static const U units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
  for (const U& u : units)
    if (std::fabs(ns) >= u.scale || u.scale == 1) {
      const double v = ns / u.scale;
      return fmt::format("{:.{}f} {}", v, v >= 100 ? 1 : v >= 10 ? 2 : 3, u.name);
    }
  return "0 ns";
}

double number(const nlohmann::json& j, std::initializer_list<const char*> path, double fallback = 0) {
  const nlohmann::json* p = &j;
  for (const char* k : path) {
    if (!p->is_object() || !p->contains(k)) return fallback;
    p = &(*p)[k];
  }
  return p->is_number() ? p->get<double>() : fallback;
}

// What the picture and the table show of one port: what it sends.
struct PortFigures {
  double util = 0, stall = 0, fecn = 0;
  std::string peer, state;
  std::uint64_t tx_packets = 0, rx_packets = 0, discards = 0;
};

std::map<std::string, PortFigures> port_figures(const nlohmann::json& r, bool& windowed) {
  std::map<std::string, PortFigures> out;
  const double window = number(r, {"phases", "measure_ns"});
  const double run = number(r, {"phases", "end_ns"});
  windowed = false;
  if (r.contains("ports"))
    for (const auto& p : r["ports"]) {
      PortFigures f;
      f.peer = p.value("peer", "");
      f.state = p.value("state", "");
      f.tx_packets = p.value("tx_packets", std::uint64_t{0});
      f.rx_packets = p.value("rx_packets", std::uint64_t{0});
      if (p.contains("discards") && p["discards"].is_object())
        for (const auto& [reason, count] : p["discards"].items()) f.discards += count.is_number() ? count.get<std::uint64_t>() : 0;
      if (p.contains("window") && p["window"].contains("busy_fraction") && p["window"]["busy_fraction"].is_number()) {
        windowed = true;
        f.util = p["window"]["busy_fraction"].get<double>();
        if (p["window"].contains("credit_stall_ns") && window > 0)
          for (const auto& s : p["window"]["credit_stall_ns"])
            if (s.is_number()) f.stall = std::max(f.stall, s.get<double>() / window);
      } else {
        f.util = p.value("run_busy_fraction", p.value("busy_fraction", 0.0));
        if (p.contains("vls") && run > 0)
          for (const auto& v : p["vls"]) f.stall = std::max(f.stall, v.value("credit_stall_ns", 0.0) / run);
      }
      out[p.value("node", "") + "/" + std::to_string(p.value("port", 0))] = f;
    }
  if (r.contains("congestion_control") && r["congestion_control"].contains("switch_ports"))
    for (const auto& p : r["congestion_control"]["switch_ports"])
      out[p.value("node", "") + "/" + std::to_string(p.value("port", 0))].fecn = p.value("fecn_marked", 0.0);
  return out;
}

// The colour of a value in 0..1: grey (idle) through blue and yellow to red (busy). The script
// holds the same scale.
const char* kScale[] = {"#c8c8c8", "#74add1", "#fdae61", "#f46d43", "#a50026"};
std::string colour(double v) {
  v = std::clamp(v, 0.0, 1.0);
  const double pos = v * 4;
  const int i = std::min(3, static_cast<int>(pos));
  const double t = pos - i;
  auto channel = [&](int shift) {
    const unsigned long a = std::strtoul(kScale[i] + 1, nullptr, 16), b = std::strtoul(kScale[i + 1] + 1, nullptr, 16);
    const double ca = static_cast<double>((a >> shift) & 0xFF), cb = static_cast<double>((b >> shift) & 0xFF);
    return static_cast<int>(std::lround(ca + (cb - ca) * t));
  };
  return fmt::format("#{:02x}{:02x}{:02x}", channel(16), channel(8), channel(0));
}

constexpr const char* kStyle = R"(
body{font-family:sans-serif;margin:1.5em;color:#222;max-width:none}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.9em}td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:right}
th{background:#f4f4f4}td.l,th.l{text-align:left}
.fabric{overflow:auto;border:1px solid #ddd;max-height:80vh}
.fabric svg{display:block}
.half{stroke-linecap:butt}
.half:hover{stroke:#000 !important}
.sw{fill:#334;stroke:#fff}.host{fill:#557}.grp{fill:#eef;stroke:#557}
.lbl{font-size:9px;fill:#fff;text-anchor:middle;dominant-baseline:central;pointer-events:none}
.hlbl{font-size:8px;fill:#223}
.glbl{font-size:9px;fill:#223;text-anchor:middle;dominant-baseline:central;pointer-events:none}
#details{position:sticky;top:0;background:#ffd;border:1px solid #cc9;padding:4px 8px;min-height:1.2em;font-size:.9em}
.legend span{display:inline-block;width:22px;height:10px}
img.plot{max-width:100%;border:1px solid #eee}
.saturated{color:#a50026;font-weight:bold}
)";

// First thing in <head>: any script error of the page is written into <html data-script-errors>.
constexpr const char* kErrorCatcher =
    "window.addEventListener('error',function(e){var d=document.documentElement,"
    "p=d.getAttribute('data-script-errors');d.setAttribute('data-script-errors',(p?p+' | ':'')+String(e.message));});";

// The page's script: colours the links by the selected figure, orders the hot-port table by it,
// and shows a port's figures on hover. Marks <body data-ready="1"> when done.
constexpr const char* kScript = R"(
(function(){
var scale=['#c8c8c8','#74add1','#fdae61','#f46d43','#a50026'];
function hex(c){return parseInt(c.slice(1),16);}
function colour(v){v=Math.max(0,Math.min(1,v));var p=v*4,i=Math.min(3,Math.floor(p)),t=p-i,a=hex(scale[i]),b=hex(scale[i+1]),out='#';
 [16,8,0].forEach(function(s){var x=Math.round(((a>>s)&255)+(((b>>s)&255)-((a>>s)&255))*t);out+=(x<16?'0':'')+x.toString(16);});return out;}
var names={util:'utilisation',stall:'credit-stall time',fecn:'FECN marks'};
var attr={util:'u',stall:'s',fecn:'f'};
function value(el,m){return parseFloat(el.getAttribute('data-'+attr[m]))||0;}
function select(m){
 if(!names[m])m='util';
 var halves=document.querySelectorAll('.half'),max=0;
 halves.forEach(function(h){max=Math.max(max,value(h,m));});
 var norm=(m==='fecn')?(max>0?max:1):1;
 halves.forEach(function(h){var v=value(h,m)/norm;h.setAttribute('stroke',colour(v));h.setAttribute('stroke-width',(1.5+4*Math.min(1,v)).toFixed(2));});
 var body=document.getElementById('hot-body');
 if(body){var rows=Array.prototype.slice.call(body.querySelectorAll('tr'));
  rows.sort(function(a,b){return value(b,m)-value(a,m)||(a.getAttribute('data-key')<b.getAttribute('data-key')?-1:1);});
  rows.forEach(function(r,i){body.appendChild(r);r.style.display=i<20?'':'none';});}
 document.querySelectorAll('input[name=metric]').forEach(function(i){i.checked=(i.value===m);});
 var n=document.getElementById('metric-name');if(n)n.textContent=names[m]+(m==='fecn'?' (of the most marked port: '+max+')':'');
 document.body.setAttribute('data-metric',m);
}
document.querySelectorAll('input[name=metric]').forEach(function(i){i.addEventListener('change',function(){select(i.value);});});
var det=document.getElementById('details');
document.querySelectorAll('[data-info]').forEach(function(h){h.addEventListener('mouseover',function(){if(det)det.textContent=h.getAttribute('data-info');});});
var m=(location.hash.match(/metric=(\w+)/)||[])[1]||'util';
select(m);
document.body.setAttribute('data-ready','1');
})();
)";

std::string page_head(const std::string& title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n"
      "<style>{}</style>\n<script>{}</script>\n</head>\n<body>\n",
      html_escape(title), kStyle, kErrorCatcher);
}

std::string page_tail() { return fmt::format("<script>{}</script>\n</body>\n</html>\n", kScript); }

std::string images_section(const std::vector<ReportImage>& images) {
  if (images.empty()) return "";
  std::string s = "<h2 id=\"plots\">Plots</h2>\n";
  for (const ReportImage& im : images)
    s += fmt::format("<h3>{}</h3>\n<p><a href=\"{}\">{}</a></p>\n<img class=\"plot\" alt=\"{}\" src=\"data:image/svg+xml;base64,{}\">\n",
                     html_escape(im.title), html_escape(im.file), html_escape(im.file), html_escape(im.title),
                     base64(im.svg));
  return s;
}

std::string files_section(const std::vector<std::string>& files) {
  std::string s = "<h2 id=\"files\">Files</h2>\n<ul>\n";
  for (const std::string& f : files) s += fmt::format("<li><a href=\"{}\">{}</a></li>\n", html_escape(f), html_escape(f));
  return s + "</ul>\n";
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
                                 num(number(r, {"load", "offered"}), 4), num(number(r, {"load", "accepted"}), 4),
                                 num(number(r, {"load", "offered_payload_gbps"}), 2),
                                 num(number(r, {"load", "accepted_payload_gbps"}), 2)));
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
                       f.contains("throughput") ? num(number(f, {"throughput", "offered_payload_gbps"}), 2) : "",
                       f.contains("throughput") ? num(number(f, {"throughput", "accepted_payload_gbps"}), 2) : "",
                       lat.is_object() && lat.contains("mean_ns") ? ns_text_human(lat["mean_ns"].get<double>()) : "",
                       lat.is_object() && lat.contains("p99_ns") ? ns_text_human(lat["p99_ns"].get<double>()) : "");
    }
    s += "</table>\n";
  }
  return s;
}

// A half link's attributes: the figures of the port that sends on it, and its hover text.
std::string half_attrs(const std::string& port, const PortFigures& f, const std::string& extra = "") {
  return fmt::format(
      "data-u=\"{:.6f}\" data-s=\"{:.6f}\" data-f=\"{:.0f}\" data-info=\"{}\"",
      f.util, f.stall, f.fecn,
      html_escape(fmt::format("{} -> {}: utilisation {}, credit stall {}, FECN marked {:.0f}, {} packets sent, {} received, {} discarded{}",
                              port, f.peer, pct(f.util), pct(f.stall), f.fecn, f.tx_packets, f.rx_packets, f.discards, extra)));
}

std::string line_half(double x1, double y1, double x2, double y2, const std::string& attrs, double v) {
  return fmt::format(
      "<line class=\"half\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{:.2f}\" {}/>\n", x1,
      y1, x2, y2, colour(v), 1.5 + 4 * std::min(1.0, v), attrs);
}

std::string fabric_section(const nlohmann::json& r, const ReportFabric& fabric) {
  bool windowed = false;
  const std::map<std::string, PortFigures> figures = port_figures(r, windowed);
  const ReportLayout lay = report_layout(fabric);
  auto fig = [&](std::size_t node, unsigned port) {
    const auto it = figures.find(fabric.nodes[node].name + "/" + std::to_string(port));
    return it == figures.end() ? PortFigures{} : it->second;
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
      "utilisation and stall", windowed ? "the measurement window" : "the whole run", kScale[0], kScale[1], kScale[2],
      kScale[3], kScale[4],
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
    PortFigures up, down;  // hosts -> switch, switch -> hosts: the maximum over the group's ports
    std::size_t hosts = 0;
    std::vector<std::string> busiest;
  };
  std::map<long, Group> groups;
  for (const ReportFabric::Link& l : fabric.links) {
    std::size_t a = l.a, b = l.b;
    unsigned pa = l.port_a, pb = l.port_b;
    if (fabric.nodes[a].is_switch && !fabric.nodes[b].is_switch) std::swap(a, b), std::swap(pa, pb);
    const bool host_link = !fabric.nodes[a].is_switch && fabric.nodes[b].is_switch;
    const PortFigures fa = fig(a, pa), fb = fig(b, pb);
    if (host_link && lay.group[a] >= 0 && static_cast<std::size_t>(lay.group[a]) == b) {
      Group& g = groups[lay.group[a]];
      if (g.hosts == 0) g.box = a, g.sw = b;
      ++g.hosts;
      for (auto [into, from] : {std::pair<PortFigures*, const PortFigures*>{&g.up, &fa}, {&g.down, &fb}}) {
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
                      (std::fabs(x1 - x2) > 1.5 * kGridStep || std::fabs(y1 - y2) > 1.5 * kGridStep);
    if (wrap) {
      // Stubs pointing outwards, away from the other end.
      const double dx = (x2 > x1 ? -1 : x2 < x1 ? 1 : 0) * (std::fabs(x1 - x2) > 1.5 * kGridStep ? 1 : 0);
      const double dy = (y2 > y1 ? -1 : y2 < y1 ? 1 : 0) * (std::fabs(y1 - y2) > 1.5 * kGridStep ? 1 : 0);
      s += line_half(x1, y1, x1 + dx * kGridStep * 0.42, y1 + dy * kGridStep * 0.42, half_attrs(key(a, pa), fa, " (wrap-around)"), fa.util);
      s += line_half(x2, y2, x2 - dx * kGridStep * 0.42, y2 - dy * kGridStep * 0.42, half_attrs(key(b, pb), fb, " (wrap-around)"), fb.util);
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

std::string hot_ports_section(const nlohmann::json& r) {
  bool windowed = false;
  const std::map<std::string, PortFigures> figures = port_figures(r, windowed);
  std::vector<std::pair<std::string, PortFigures>> ports(figures.begin(), figures.end());
  std::stable_sort(ports.begin(), ports.end(), [](const auto& a, const auto& b) { return a.second.util > b.second.util; });
  std::string s = fmt::format(
      "<h2 id=\"hot-ports\">Hottest ports</h2>\n<p>The 20 ports that send the most, by the figure selected above "
      "(utilisation and stall over {}).</p>\n<table id=\"hot-ports-table\">\n<tr><th class=\"l\">port</th><th class=\"l\">to</th>"
      "<th>utilisation</th><th>credit stall</th><th>FECN marked</th><th>packets sent</th><th>discarded</th></tr>\n<tbody id=\"hot-body\">\n",
      windowed ? "the measurement window" : "the whole run");
  for (std::size_t i = 0; i < ports.size(); ++i) {
    const auto& [name, f] = ports[i];
    s += fmt::format(
        "<tr data-key=\"{}\" data-u=\"{:.6f}\" data-s=\"{:.6f}\" data-f=\"{:.0f}\"{}><td class=\"l\">{}</td><td class=\"l\">{}</td>"
        "<td>{}</td><td>{}</td><td>{:.0f}</td><td>{}</td><td>{}</td></tr>\n",
        html_escape(name), f.util, f.stall, f.fecn, i < 20 ? "" : " style=\"display:none\"", html_escape(name),
        html_escape(f.peer), pct(f.util), pct(f.stall), f.fecn, f.tx_packets, f.discards);
  }
  return s + "</tbody>\n</table>\n";
}

}  // namespace

std::string run_report_html(const nlohmann::json& r, const ReportFabric& fabric, const std::vector<ReportImage>& images,
                            const std::vector<std::string>& files) {
  const std::string scenario = r.value("scenario", std::string("run"));
  std::string s = page_head("ibfsim report: " + scenario);
  s += fmt::format("<h1>ibfsim {}: {} (seed {})</h1>\n", html_escape(r.value("ibfsim_version", std::string())),
                   html_escape(scenario), r.value("seed", 0));
  s += "<p><a href=\"#summary\">Summary</a> · <a href=\"#fabric\">Fabric</a> · <a href=\"#hot-ports\">Hottest ports</a>";
  if (!images.empty()) s += " · <a href=\"#plots\">Plots</a>";
  s += " · <a href=\"#files\">Files</a></p>\n";
  s += summary_section(r);
  s += fabric_section(r, fabric);
  s += hot_ports_section(r);
  s += images_section(images);
  s += files_section(files);
  return s + page_tail();
}

// ---------------------------------------------------------------------------------------------
// The sweep's page

namespace {

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> ticks;
};

Axis make_axis(std::vector<double> values, bool log, bool from_zero) {
  Axis a;
  a.log = log;
  values.erase(std::remove_if(values.begin(), values.end(), [&](double v) { return !std::isfinite(v) || (log && v <= 0); }),
               values.end());
  if (values.empty()) values = {log ? 1.0 : 0.0, log ? 10.0 : 1.0};
  double lo = *std::min_element(values.begin(), values.end()), hi = *std::max_element(values.begin(), values.end());
  if (from_zero && !log) lo = std::min(lo, 0.0);
  if (log) {
    lo = std::pow(10, std::floor(std::log10(lo)));
    hi = std::pow(10, std::ceil(std::log10(hi)));
    if (hi <= lo) hi = lo * 10;
    for (double t = lo; t <= hi * 1.0001; t *= 10) a.ticks.push_back(t);
  } else {
    if (hi <= lo) hi = lo + 1;
    const double raw = (hi - lo) / 5;
    const double mag = std::pow(10, std::floor(std::log10(raw)));
    const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    lo = std::floor(lo / step) * step;
    hi = std::ceil(hi / step) * step;
    for (double t = lo; t <= hi + step * 1e-9; t += step) a.ticks.push_back(t);
  }
  a.lo = lo;
  a.hi = hi;
  return a;
}

double scale(const Axis& a, double v, double from, double to) {
  const double f = a.log ? (std::log10(v) - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo)) : (v - a.lo) / (a.hi - a.lo);
  return from + f * (to - from);
}

std::string tick_text(double v) {
  if (v != 0 && (std::fabs(v) >= 1e5 || std::fabs(v) < 1e-3)) return fmt::format("{:.0e}", v);
  std::string s = fmt::format("{:.4f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

struct ChartSeries {
  std::string name;
  std::size_t colour = 0;
  bool dashed = false;
  std::vector<std::pair<double, double>> points;
  std::vector<std::string> links, labels;  // per point
};

// A chart in SVG with every point a link.
std::string chart(const std::string& id, const std::string& title, const std::string& xlabel, const std::string& ylabel,
                  const std::vector<ChartSeries>& series, bool log_y, const std::vector<std::pair<double, std::string>>& marks = {}) {
  const double W = 760, H = 380, L = 80, R = 200, T = 30, B = 50;
  std::vector<double> xs, ys;
  for (const auto& s : series)
    for (const auto& [x, y] : s.points) xs.push_back(x), ys.push_back(y);
  const Axis ax = make_axis(xs, false, true), ay = make_axis(ys, log_y, true);
  std::string s = fmt::format("<svg id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" "
                              "font-family=\"sans-serif\" font-size=\"11\">\n",
                              id, W, H, W, H);
  s += fmt::format("<text x=\"{:.0f}\" y=\"18\" text-anchor=\"middle\" font-size=\"13\">{}</text>\n", (L + W - R) / 2, html_escape(title));
  for (double t : ax.ticks) {
    const double x = scale(ax, t, L, W - R);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.0f}\" x2=\"{0:.1f}\" y2=\"{2:.0f}\" stroke=\"#e4e4e4\"/>"
                     "<text x=\"{0:.1f}\" y=\"{3:.0f}\" text-anchor=\"middle\">{4}</text>\n",
                     x, T, H - B, H - B + 15, tick_text(t));
  }
  for (double t : ay.ticks) {
    const double y = scale(ay, t, H - B, T);
    s += fmt::format("<line x1=\"{1:.0f}\" y1=\"{0:.1f}\" x2=\"{2:.0f}\" y2=\"{0:.1f}\" stroke=\"#e4e4e4\"/>"
                     "<text x=\"{3:.0f}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
                     y, L, W - R, L - 5, y + 4, tick_text(t));
  }
  s += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"none\" stroke=\"#444\"/>\n", L, T, W - R - L,
                   H - B - T);
  s += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">{}</text>\n", (L + W - R) / 2, H - 12, html_escape(xlabel));
  s += fmt::format("<text transform=\"translate(16 {:.0f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n", (T + H - B) / 2,
                   html_escape(ylabel));
  for (const auto& [x, text] : marks) {
    const double px = scale(ax, x, L, W - R);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.0f}\" x2=\"{0:.1f}\" y2=\"{2:.0f}\" stroke=\"#666\" stroke-dasharray=\"5 4\"/>"
                     "<text x=\"{3:.1f}\" y=\"{4:.0f}\" font-size=\"10\" fill=\"#444\">{5}</text>\n",
                     px, T, H - B, px + 3, T + 12, html_escape(text));
  }
  double ly = T + 10;
  for (const auto& se : series) {
    const std::string c = plot::series_colours()[plot::series_linetype(se.colour) - 1];
    std::string pts;
    for (const auto& [x, y] : se.points)
      if (!log_y || y > 0) pts += fmt::format("{:.1f},{:.1f} ", scale(ax, x, L, W - R), scale(ay, y, H - B, T));
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\"/>\n", c,
                     se.dashed ? " stroke-dasharray=\"3 3\"" : "", pts);
    for (std::size_t i = 0; i < se.points.size(); ++i) {
      const auto& [x, y] = se.points[i];
      if (log_y && y <= 0) continue;
      s += fmt::format("<a class=\"point\" href=\"{}\"><circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\" fill=\"{}\" stroke=\"#fff\"/>"
                       "<title>{}</title></a>\n",
                       html_escape(se.links[i]), scale(ax, x, L, W - R), scale(ay, y, H - B, T), se.dashed ? "#fff" : c,
                       html_escape(se.labels[i]));
    }
    s += fmt::format("<line x1=\"{0:.0f}\" y1=\"{1:.0f}\" x2=\"{2:.0f}\" y2=\"{1:.0f}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>"
                     "<text x=\"{5:.0f}\" y=\"{6:.0f}\">{7}</text>\n",
                     W - R + 10, ly, W - R + 30, c, se.dashed ? " stroke-dasharray=\"3 3\"" : "", W - R + 35, ly + 4,
                     html_escape(se.name));
    ly += 16;
  }
  return s + "</svg>\n";
}

}  // namespace

std::string sweep_report_html(const Curve& c, const std::string& title, const std::vector<std::string>& point_dirs,
                              const std::vector<ReportImage>& images, const std::vector<std::string>& files) {
  std::string s = page_head("ibfsim sweep report: " + title);
  s += fmt::format("<h1>ibfsim sweep: {}</h1>\n", html_escape(title));
  s += "<p><a href=\"#summary\">Saturation</a> · <a href=\"#curves\">Curves</a> · <a href=\"#points\">Points</a>";
  if (!images.empty()) s += " · <a href=\"#plots\">Plots</a>";
  s += " · <a href=\"#files\">Files</a></p>\n";
  auto link = [&](std::size_t row) { return point_dirs.at(c.rows[row].point) + "/report.html"; };
  auto point_label = [&](std::size_t row) {
    std::string l = fmt::format("point {}:", c.rows[row].point);
    for (std::size_t k = 0; k < c.keys.size() && k < c.rows[row].values.size(); ++k) l += " " + c.keys[k] + "=" + c.rows[row].values[k];
    return l;
  };
  // Saturation per series.
  s += "<h2 id=\"summary\">Saturation</h2>\n<table>\n<tr><th class=\"l\">series</th><th>zero-load latency</th>"
       "<th>saturates at offered</th><th>(accepted)</th><th>highest accepted load</th></tr>\n";
  for (const CurveSeries& ser : c.series) {
    if (ser.rows.empty()) continue;
    std::string sat = "not saturated", acc;
    if (ser.saturation_row) {
      const CurveRow& r = c.rows[*ser.saturation_row];
      sat = fmt::format("<a href=\"{}\">{:.4f}</a>", html_escape(link(*ser.saturation_row)), r.offered_load);
      acc = fmt::format("{:.4f}", r.accepted_load);
    }
    s += fmt::format("<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.4f}</td></tr>\n",
                     html_escape(ser.label.empty() ? "curve" : ser.label),
                     ser.zero_load_latency_ns ? ns_text_human(*ser.zero_load_latency_ns) : "", sat, acc, ser.max_accepted_load);
  }
  s += "</table>\n";
  // Curves, drawn here so that every point links to its report.
  s += "<h2 id=\"curves\">Curves</h2>\n<p>Every point is a link to that point's own report.</p>\n";
  bool any_load = false;
  for (const CurveSeries& ser : c.series) any_load = any_load || !ser.rows.empty();
  const std::string load_unit = "fraction of the injection link rate";
  if (any_load) {
    std::vector<ChartSeries> lat, thr;
    std::vector<std::pair<double, std::string>> marks;
    for (std::size_t i = 0; i < c.series.size(); ++i) {
      const CurveSeries& ser = c.series[i];
      const std::string name = ser.label.empty() ? "" : " " + ser.label;
      ChartSeries mean{"mean" + name, i, false, {}, {}, {}}, p99{"p99" + name, i, true, {}, {}, {}},
          acc{ser.label.empty() ? "accepted" : ser.label, i, false, {}, {}, {}};
      for (std::size_t row : ser.rows) {
        const CurveRow& r = c.rows[row];
        if (r.msg_mean) mean.points.emplace_back(r.offered_load, *r.msg_mean), mean.links.push_back(link(row)), mean.labels.push_back(point_label(row));
        if (r.msg_p99) p99.points.emplace_back(r.offered_load, *r.msg_p99), p99.links.push_back(link(row)), p99.labels.push_back(point_label(row));
        acc.points.emplace_back(r.offered_load, r.accepted_load), acc.links.push_back(link(row)), acc.labels.push_back(point_label(row));
      }
      lat.push_back(mean);
      lat.push_back(p99);
      thr.push_back(acc);
      if (ser.saturation_row)
        marks.emplace_back(c.rows[*ser.saturation_row].offered_load,
                           fmt::format("saturation{} {:.3g}", c.series.size() > 1 ? " " + ser.label : "", c.rows[*ser.saturation_row].offered_load));
    }
    s += chart("latency-chart", title + ": message latency against offered load", "offered load (" + load_unit + ")",
               "message latency (ns)", lat, true, marks);
    s += chart("throughput-chart", title + ": accepted against offered load", "offered load (" + load_unit + ")",
               "accepted load (" + load_unit + ")", thr, false, marks);
  }
  bool numeric_param = true;
  for (const CurveRow& r : c.rows) {
    char* end = nullptr;
    if (r.values.empty()) { numeric_param = false; break; }
    std::strtod(r.values.front().c_str(), &end);
    numeric_param = numeric_param && end && *end == '\0' && !r.values.front().empty();
  }
  for (std::size_t m = 0; m < c.metrics.size(); ++m) {
    std::vector<ChartSeries> ms;
    for (std::size_t i = 0; i < c.series.size(); ++i) {
      ChartSeries cs{c.series[i].label.empty() ? c.metrics[m].name : c.series[i].label, i, false, {}, {}, {}};
      for (std::size_t k = 0; k < c.series[i].metric_rows.size(); ++k) {
        const std::size_t row = c.series[i].metric_rows[k];
        const CurveRow& r = c.rows[row];
        if (!r.metrics[m]) continue;
        const double x = numeric_param ? std::strtod(r.values.front().c_str(), nullptr) : static_cast<double>(r.point);
        cs.points.emplace_back(x, *r.metrics[m]);
        cs.links.push_back(link(row));
        cs.labels.push_back(point_label(row));
      }
      ms.push_back(cs);
    }
    const std::string unit = c.metrics[m].unit.empty() ? "" : " (" + c.metrics[m].unit + ")";
    s += chart("metric-chart-" + std::to_string(m), title + ": " + c.metrics[m].name,
               (c.keys.empty() ? std::string("point") : c.keys.front()) + (numeric_param ? "" : " (point)"), c.metrics[m].name + unit,
               ms, false);
  }
  // The points.
  s += "<h2 id=\"points\">Points</h2>\n<table id=\"points-table\">\n<tr><th class=\"l\">point</th>";
  for (const std::string& k : c.keys) s += "<th class=\"l\">" + html_escape(k) + "</th>";
  s += "<th class=\"l\">status</th><th>offered load</th><th>accepted load</th><th>mean latency</th><th>p99 latency</th><th>saturated</th>";
  for (const CurveMetric& m : c.metrics) s += "<th>" + html_escape(m.name + (m.unit.empty() ? "" : " (" + m.unit + ")")) + "</th>";
  s += "</tr>\n";
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const CurveRow& r = c.rows[i];
    s += fmt::format("<tr><td class=\"l\"><a href=\"{}\">p{:04d}</a></td>", html_escape(link(i)), r.point);
    for (const std::string& v : r.values) s += "<td class=\"l\">" + html_escape(v) + "</td>";
    s += fmt::format("<td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>", r.status,
                     r.has_load ? fmt::format("{:.4f}", r.offered_load) : "", r.has_load ? fmt::format("{:.4f}", r.accepted_load) : "",
                     r.msg_mean ? ns_text_human(*r.msg_mean) : "", r.msg_p99 ? ns_text_human(*r.msg_p99) : "",
                     r.saturated ? "<span class=\"saturated\">yes</span>" : "");
    for (const auto& m : r.metrics) s += "<td>" + (m ? fmt::format("{:.6g}", *m) : std::string()) + "</td>";
    s += "</tr>\n";
  }
  s += "</table>\n";
  s += images_section(images);
  s += files_section(files);
  return s + page_tail();
}

}  // namespace ibfsim
