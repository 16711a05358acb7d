// A number picked out of a results.json by a short path, for `ibfsim sweep --metric`:
//
//   flows[name=victim].throughput.accepted_payload_gbps
//   ports[node=spine,port=5].window.busy_fraction
//   phases.fabric_up_ns      load.accepted      flows[0].latency.p99_ns
//
// Segments are separated by '.'; each names an object member and may be followed by `[N]` (the
// N-th element of an array, from 0) or `[key=value,...]` (the first element of an array of
// objects whose members all equal the values: strings as written, numbers by value). Pure. A
// results folder's tables are reached by the same selectors through select_in_results
// (results_view.h).
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ibfsim {

struct JsonSelectorStep {
  std::string member;  // empty: the step only indexes or filters
  std::optional<std::size_t> index;
  std::vector<std::pair<std::string, std::string>> match;  // [key=value,...]
};

// Parses a selector; throws InputError naming `what` (e.g. "--metric victim=...") and what was
// expected when it is malformed.
std::vector<JsonSelectorStep> parse_json_selector(const std::string& selector, const std::string& what);

// Whether a member's value equals a filter's text: strings as written, numbers by value, booleans
// as true or false.
bool json_member_equals(const nlohmann::json& value, const std::string& text);

// The number the selector leads to, or nullopt when a member or element is missing or the value
// is not a number (a point that did not produce it).
std::optional<double> json_select_number(const nlohmann::json& j, const std::vector<JsonSelectorStep>& steps);

}  // namespace ibfsim
