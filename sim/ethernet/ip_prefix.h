// An IP prefix (CIDR, RFC 4632): the address and how many of its leading bits a route matches.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "sim/ethernet/ip_address.h"

namespace ibfsim {

struct IpPrefix {
  IpAddress address;    // its bits after `length` are 0
  unsigned length = 0;  // 0..32 (IPv4) or 0..128 (IPv6)

  // Whether `ip` (of the same version) has the prefix's first `length` bits.
  bool contains(const IpAddress& ip) const;
  bool operator==(const IpPrefix& o) const { return address == o.address && length == o.length; }
};

// `ip` with every bit after the first `length` cleared.
IpAddress mask_ip(const IpAddress& ip, unsigned length);

// "10.0.1.0/24", "fd00::/64", or an address alone (a host route: /32, /128). nullopt for anything
// else, a length beyond the version's bits, or bits set after the length (write "10.0.1.0/24",
// not "10.0.1.7/24").
std::optional<IpPrefix> parse_ip_prefix(std::string_view text);
std::string prefix_text(const IpPrefix& p);  // "10.0.1.0/24"

}  // namespace ibfsim
