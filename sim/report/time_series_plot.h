// Renders a time-series CSV (first column time_ns) with gnuplot: panels stacked on one time axis
// (in us), each drawing some of the columns as lines, into PNG and/or SVG. The gnuplot script is
// kept next to the images (so a user can restyle and rerun it). Images are written under
// temporary names and renamed, like every result file.
#pragma once
#include <string>
#include <vector>

namespace ibfsim {

struct PlotPanel {
  std::string title;
  std::string ylabel;
  std::vector<std::size_t> columns;  // 1-based CSV columns (1 is the time)
};

// Writes `<out_base>.gp` and runs gnuplot for `<out_base>.png` / `.svg`. Returns "" on success,
// else why no image was made (no gnuplot, or its error): a run reports it and goes on.
std::string render_time_series(const std::string& csv_path, const std::vector<PlotPanel>& panels,
                               const std::string& title, const std::string& out_base, bool png, bool svg);

}  // namespace ibfsim
