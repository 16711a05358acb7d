// The look every ibfsim plot shares (gnuplot; sweep curves, metrics and trade-offs in curve.h, time
// series in time_series_plot.h), so that figures can go into a paper as they are:
//  * text is never run through gnuplot's enhanced mode: every terminal is `noenhanced`, so names
//    with underscores (hot_link_busy) print as written instead of as subscripts;
//  * series colours are dark enough to read on white paper and tell apart for colour-blind readers
//    (Okabe-Ito without its yellow, then black and brown): series i always gets colour i, in every
//    plot of a set, whichever figure of the series (mean, p99, rate, CCTI) is drawn;
//  * legends sit outside the plot area, so they never cover data.
#pragma once
#include <string>
#include <vector>

namespace ibfsim::plot {

// "#0072b2", ...: the series colours in order. Series i (from 0) takes colour i mod size().
const std::vector<std::string>& series_colours();
// gnuplot linetype of series i: linetypes 1..N are set to the colours by linetype_setup().
inline unsigned series_linetype(std::size_t i) { return static_cast<unsigned>(i % series_colours().size()) + 1; }
// Relative luminance of "#rrggbb" (0 black .. 1 white), as WCAG defines it.
double relative_luminance(const std::string& colour);

// "set linetype K lc rgb '#...' lw 2 pt 7 ps 0.8" for every colour, then "set linetype cycle N".
std::string linetype_setup();

// A gnuplot string literal in single quotes (a quote inside is doubled). Single-quoted strings
// take no backslash escapes, and with noenhanced terminals no markup either: text prints as given.
std::string quote(const std::string& text);

// The PNG and SVG terminals every plot is written with, at a size in pixels.
struct Terminal {
  std::string ext;   // "png", "svg"
  std::string line;  // "set terminal pngcairo noenhanced size W,H font 'sans,11'"
};
std::vector<Terminal> terminals(unsigned width, unsigned height);

}  // namespace ibfsim::plot
