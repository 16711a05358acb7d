// Splits a CSV (or a tshark -T fields) text into rows of cells: no quoting, which none of ibfsim's
// tables need; a line ending in the separator has an empty last cell.
#pragma once
#include <sstream>
#include <string>
#include <vector>

namespace ibfsim::test {

inline std::vector<std::vector<std::string>> csv_rows(const std::string& text, char sep = ',') {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, sep)) cells.push_back(cell);
    if (!line.empty() && line.back() == sep) cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace ibfsim::test
