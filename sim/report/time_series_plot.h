// Renders a time-series CSV (first column time_ns) with gnuplot: panels stacked on one time axis
// (simulated time in us, from the first sample to the last, the same on every panel, with the
// same margins so the axes line up), each drawing some of the columns as lines, into PNG and/or
// SVG. Styled as every ibfsim plot (plot_style.h): no enhanced text, legends outside, a series
// keeps its name and colour in every panel (a flow's rate and its QP's CCTI alike). The gnuplot
// script is kept next to the images (so a user can restyle and rerun it). Images are written under
// temporary names and renamed, like every result file.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace ibfsim {

struct PlotSeries {
  std::size_t column = 0;  // 1-based CSV column (1 is the time)
  std::string name;        // in the legend: the same entity has the same name in every panel
  std::size_t colour = 0;  // series index: the same entity has the same index in every panel
  bool dashed = false;     // a second line of the same entity in one panel
};

struct PlotPanel {
  std::string title;
  std::string ylabel;  // with its unit: "payload throughput (Gb/s)"
  std::vector<PlotSeries> series;
};

struct TimeSeriesPlot {
  std::string dir;       // the results folder: gnuplot runs there, the script names files in it
  std::string csv_name;  // "time_series.csv", in dir
  std::string title;     // over the panels
  std::string out_base;  // "time_series": writes out_base.gp, .png, .svg in dir
  std::vector<PlotPanel> panels;  // panels without series are left out
  double first_ns = 0, last_ns = 0;  // the first and last sample
  bool png = true, svg = true;
};

// The gnuplot script (what render_time_series writes to out_base.gp), writing the images to
// `png_path` / `svg_path`. A pure function of its arguments; "" when there is nothing to draw.
std::string time_series_gnuplot_script(const TimeSeriesPlot& plot, const std::string& png_path,
                                       const std::string& svg_path);

// Writes `<dir>/<out_base>.gp` and runs gnuplot in `dir` for `<out_base>.png` / `.svg`. Returns "" on success,
// else why no image was made (no gnuplot, or its error): a run reports it and goes on.
std::string render_time_series(const TimeSeriesPlot& plot);

}  // namespace ibfsim
