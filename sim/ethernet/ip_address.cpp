#include "sim/ethernet/ip_address.h"

#include <arpa/inet.h>

namespace ibfsim {

std::optional<IpAddress> parse_ip_address(std::string_view text) {
  const std::string s(text);
  IpAddress ip;
  if (inet_pton(AF_INET, s.c_str(), ip.bytes.data()) == 1) return ip;
  ip.version = IpVersion::kV6;
  if (inet_pton(AF_INET6, s.c_str(), ip.bytes.data()) == 1) return ip;
  return std::nullopt;
}

std::string ip_text(const IpAddress& ip) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(ip.version == IpVersion::kV4 ? AF_INET : AF_INET6, ip.bytes.data(), buf, sizeof buf);
  return buf;
}

}  // namespace ibfsim
