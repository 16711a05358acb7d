#include "sim/ethernet/ip_prefix.h"

#include <charconv>

namespace ibfsim {

IpAddress mask_ip(const IpAddress& ip, unsigned length) {
  IpAddress m = ip;
  for (std::size_t i = 0; i < m.bytes.size(); ++i) {
    const unsigned bit = static_cast<unsigned>(8 * i);
    if (length >= bit + 8) continue;
    const unsigned keep = length > bit ? length - bit : 0;  // leading bits of this byte kept
    m.bytes[i] &= static_cast<std::uint8_t>(0xFF00u >> keep);
  }
  return m;
}

bool IpPrefix::contains(const IpAddress& ip) const {
  return ip.version == address.version && mask_ip(ip, length) == address;
}

std::optional<IpPrefix> parse_ip_prefix(std::string_view text) {
  const std::size_t slash = text.find('/');
  const auto ip = parse_ip_address(text.substr(0, slash));
  if (!ip) return std::nullopt;
  const unsigned bits = static_cast<unsigned>(8 * ip->size());
  unsigned length = bits;
  if (slash != std::string_view::npos) {
    const std::string_view n = text.substr(slash + 1);
    const auto r = std::from_chars(n.data(), n.data() + n.size(), length);
    if (n.empty() || r.ec != std::errc() || r.ptr != n.data() + n.size() || length > bits) return std::nullopt;
  }
  if (mask_ip(*ip, length) != *ip) return std::nullopt;
  return IpPrefix{*ip, length};
}

std::string prefix_text(const IpPrefix& p) { return ip_text(p.address) + "/" + std::to_string(p.length); }

}  // namespace ibfsim
