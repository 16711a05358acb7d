#include "sim/report/plot_style.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace ibfsim::plot {

const std::vector<std::string>& series_colours() {
  // Okabe-Ito's blue, vermilion, bluish green, reddish purple, orange and sky blue, then black and
  // a brown; its yellow (#f0e442) is too pale to read on white.
  static const std::vector<std::string> colours = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                                   "#e69f00", "#56b4e9", "#000000", "#8c564b"};
  return colours;
}

double relative_luminance(const std::string& colour) {
  const unsigned long v = std::strtoul(colour.c_str() + 1, nullptr, 16);
  auto channel = [](unsigned long c) {
    const double s = static_cast<double>(c) / 255.0;
    return s <= 0.03928 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * channel((v >> 16) & 0xFF) + 0.7152 * channel((v >> 8) & 0xFF) + 0.0722 * channel(v & 0xFF);
}

std::string linetype_setup() {
  std::string s;
  const auto& c = series_colours();
  for (std::size_t i = 0; i < c.size(); ++i)
    s += fmt::format("set linetype {} lc rgb '{}' lw 2 pt 7 ps 0.8\n", i + 1, c[i]);
  s += fmt::format("set linetype cycle {}\n", c.size());
  return s;
}

std::string quote(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

std::vector<Terminal> terminals(unsigned width, unsigned height) {
  return {{"png", fmt::format("set terminal pngcairo noenhanced size {},{} font 'sans,11'", width, height)},
          {"svg", fmt::format("set terminal svg noenhanced size {},{} dynamic font 'sans,11'", width, height)}};
}

}  // namespace ibfsim::plot
