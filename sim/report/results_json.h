// results.json and other JSON outputs: written atomically and byte-identically for the same data.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace ibfsim {

// Dumps `j` with 2-space indentation and a trailing newline to `path` via write_file_atomically.
// Output is deterministic: nlohmann::json keeps object keys sorted, and numbers print in their
// shortest round-trip form. Throws nlohmann::json::type_error for strings that are not valid UTF-8,
// std::runtime_error if the file cannot be written.
void write_json_atomically(const std::string& path, const nlohmann::json& j);

}  // namespace ibfsim
