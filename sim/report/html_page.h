// What the report pages (run_report.h, sweep_report.h) share: one self-contained HTML page
// (inline CSS, script and images; it opens from disk with no network), its style, its script, the
// sections of plots and files, and the small text helpers. Pure functions: the same input gives the
// same bytes.
//
// The page's script colours the fabric's link halves by the selected figure, orders the hot-port
// table by it and shows a port's figures on hover; when it has run it marks <body data-ready="1">,
// and any script error is written into <html data-script-errors="..."> (the browser test reads
// both). The URL fragment #metric=stall (util, stall, fecn) selects a figure.
#pragma once
#include <string>
#include <vector>

namespace ibfsim {

// Text made safe inside HTML (&, <, >, ", ').
std::string html_escape(const std::string& text);
// Base64 of bytes (data URIs).
std::string base64(const std::string& bytes);

// An image for the page: an SVG file's text, embedded as a data URI.
struct ReportImage {
  std::string title;
  std::string file;  // its name in the folder (linked)
  std::string svg;   // its content
};

// <!DOCTYPE html> up to <body>, with the style and the script-error catcher.
std::string page_head(const std::string& title);
// The page's script and the end of the page.
std::string page_tail();
// "Plots": every image embedded, with a link to its file; nothing without images.
std::string images_section(const std::vector<ReportImage>& images);
// "Files": a link to every file of the folder.
std::string files_section(const std::vector<std::string>& files);

// The colour of a value in 0..1 on the page's scale: grey (idle) through blue and yellow to red
// (busy); the script holds the same scale. kReportScale: its five stops.
std::string report_colour(double v);
extern const char* const kReportScale[5];

// "12.35" (fixed decimals), "95.8%" (a fraction as a percentage), "1.234 us" (ns to four
// significant digits).
std::string fixed_text(double v, int decimals);
std::string percent_text(double fraction);
std::string ns_text_human(double ns);

}  // namespace ibfsim
