#include "sim/report/results_json.h"

#include <nlohmann/json.hpp>

#include "sim/report/atomic_file.h"

namespace ibfsim {

void write_json_atomically(const std::string& path, const nlohmann::json& j) {
  std::string text = j.dump(2);
  text += '\n';
  write_file_atomically(path, text);
}

}  // namespace ibfsim
