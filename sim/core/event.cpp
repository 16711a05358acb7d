#include "sim/core/event.h"

#include <fmt/format.h>

#include "sim/core/packet.h"

namespace ibfsim::event_detail {

std::string member_name_from_signature(const char* pretty_function) {
  // GCC and Clang: "... event_name() [with auto Method = &ibfsim::LinkReceiver::head_arrives]" or
  // "... [Method = &ibfsim::LinkReceiver::head_arrives]".
  std::string s(pretty_function);
  std::size_t at = s.find("Method = ");
  if (at == std::string::npos) return s;
  at += 9;
  if (at < s.size() && s[at] == '&') ++at;
  std::size_t end = s.find_first_of(";]", at);
  std::string name = s.substr(at, end == std::string::npos ? std::string::npos : end - at);
  const std::string ns = "ibfsim::";
  for (std::size_t p; (p = name.find(ns)) != std::string::npos;) name.erase(p, ns.size());
  return name;
}

std::string pointer_text(const void* p) { return fmt::format("{}", p); }

std::string packet_text(const Packet* p) { return p ? fmt::format("packet:{:#x}", p->id) : "packet:none"; }

}  // namespace ibfsim::event_detail
