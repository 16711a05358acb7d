// CSV as the results folder writes and reads it (RFC 4180): cells separated by ',', lines ended by
// '\n', a cell quoted ("...", quotes doubled) only when it holds a comma, a quote or a line break.
// Names in a topology may hold commas; the tables stay readable by pandas, spreadsheets and
// read_csv below.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibfsim {

// Appends `cell` to `line`, quoted if it needs to be.
void append_csv_cell(std::string& line, std::string_view cell);

// A table read back: its header and its rows, every cell as text (an empty cell is "").
struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // The index of column `name`, if the table has it.
  std::optional<std::size_t> column(std::string_view name) const;
};

// Parses CSV text. Throws InputError naming `what` (the file) and the line when a row has another
// number of cells than the header, or a quote is not closed.
CsvTable parse_csv(std::string_view text, const std::string& what);

}  // namespace ibfsim
