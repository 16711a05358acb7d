#include "sim/report/csv_text.h"

#include "sim/core/error.h"

namespace ibfsim {

void append_csv_cell(std::string& line, std::string_view cell) {
  if (cell.find_first_of(",\"\n\r") == std::string_view::npos) {
    line.append(cell.data(), cell.size());
    return;
  }
  line += '"';
  for (char c : cell) {
    if (c == '"') line += '"';
    line += c;
  }
  line += '"';
}

std::optional<std::size_t> CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return std::nullopt;
}

CsvTable parse_csv(std::string_view text, const std::string& what) {
  CsvTable t;
  std::vector<std::string> cells;
  std::string cell;
  std::size_t line = 1, i = 0;
  bool any = false;  // the current line has begun
  auto end_line = [&] {
    cells.push_back(std::move(cell));
    cell.clear();
    if (t.header.empty() && t.rows.empty()) {
      t.header = std::move(cells);
    } else {
      if (cells.size() != t.header.size())
        throw InputError(what + ":" + std::to_string(line) + ": expected " + std::to_string(t.header.size()) +
                         " cells as in the header, got " + std::to_string(cells.size()));
      t.rows.push_back(std::move(cells));
    }
    cells.clear();
    any = false;
    ++line;
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"' && cell.empty()) {
      // A quoted cell: up to the lone closing quote.
      const std::size_t start_line = line;
      ++i;
      for (;;) {
        if (i >= text.size())
          throw InputError(what + ":" + std::to_string(start_line) + ": expected a closing '\"', got the end of the file");
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            cell += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        if (text[i] == '\n') ++line;
        cell += text[i++];
      }
      any = true;
      continue;
    }
    if (c == ',') {
      cells.push_back(std::move(cell));
      cell.clear();
      any = true;
    } else if (c == '\n') {
      end_line();
    } else if (c != '\r') {
      cell += c;
      any = true;
    }
    ++i;
  }
  if (any) end_line();  // a last line without '\n'
  return t;
}

}  // namespace ibfsim
