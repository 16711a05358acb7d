// An IPv4 or IPv6 address, as the IP headers carry it (network byte order).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibfsim {

enum class IpVersion : std::uint8_t { kV4 = 4, kV6 = 6 };

struct IpAddress {
  IpVersion version = IpVersion::kV4;
  std::array<std::uint8_t, 16> bytes{};  // IPv4: the first 4

  static IpAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
    IpAddress ip;
    ip.bytes[0] = a, ip.bytes[1] = b, ip.bytes[2] = c, ip.bytes[3] = d;
    return ip;
  }
  static IpAddress v6(const std::array<std::uint8_t, 16>& b) { return IpAddress{IpVersion::kV6, b}; }
  std::size_t size() const { return version == IpVersion::kV4 ? 4 : 16; }
  bool operator==(const IpAddress& o) const { return version == o.version && bytes == o.bytes; }
  bool operator!=(const IpAddress& o) const { return !(*this == o); }
};

// "10.0.0.1" or "fd00::1"; nullopt if the text is neither.
std::optional<IpAddress> parse_ip_address(std::string_view text);
// Dotted quad, or the compressed IPv6 form (RFC 5952), as Wireshark prints them.
std::string ip_text(const IpAddress& ip);

}  // namespace ibfsim
