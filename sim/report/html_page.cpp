#include "sim/report/html_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

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

std::string fixed_text(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }
std::string percent_text(double v) { return fmt::format("{:.1f}%", 100 * v); }

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

// The script's scale (kScript) has the same stops.
const char* const kReportScale[5] = {"#c8c8c8", "#74add1", "#fdae61", "#f46d43", "#a50026"};
std::string report_colour(double v) {
  v = std::clamp(v, 0.0, 1.0);
  const double pos = v * 4;
  const int i = std::min(3, static_cast<int>(pos));
  const double t = pos - i;
  auto channel = [&](int shift) {
    const unsigned long a = std::strtoul(kReportScale[i] + 1, nullptr, 16), b = std::strtoul(kReportScale[i + 1] + 1, nullptr, 16);
    const double ca = static_cast<double>((a >> shift) & 0xFF), cb = static_cast<double>((b >> shift) & 0xFF);
    return static_cast<int>(std::lround(ca + (cb - ca) * t));
  };
  return fmt::format("#{:02x}{:02x}{:02x}", channel(16), channel(8), channel(0));
}

namespace {

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

}  // namespace

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
}  // namespace ibfsim
