// Equal-cost multi-path: which of a route's next hops a frame takes. A switch hashes the frame's
// 5-tuple (source and destination IP, protocol, source and destination port) with a seed of its
// own and takes next hop hash mod n: every frame of one flow (for RoCE v2: one QP pair, whose UDP
// source port roce_udp_port.h derives) takes the same path and stays in order, different flows
// spread, and switches with different seeds do not all make the same choice (which would
// polarise a multi-tier fabric's traffic onto few links).
//
// The hash: CRC-32 (core/crc32.h) over the seed (4 bytes) and the tuple as the headers carry it,
// big-endian: source IP (4 or 16 bytes), destination IP, protocol (1 byte), source port, destination
// port (2 bytes each). A switch's seed comes from the run's seed (one stream per switch).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>

#include "sim/ethernet/ip_address.h"
#include "sim/ethernet/route_table.h"

namespace ibfsim {

struct FiveTuple {
  IpAddress src;
  IpAddress dst;
  std::uint8_t protocol = 0;
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
};

// The 5-tuple of a frame (destination MAC onwards, `len` bytes) carrying IPv4 or IPv6 (no IPv4
// options) and UDP; nullopt for anything else or too few bytes.
std::optional<FiveTuple> five_tuple_of(const std::uint8_t* frame, std::size_t len);

std::uint32_t ecmp_hash(const FiveTuple& t, std::uint32_t seed);
// next_hops[ecmp_hash(t, seed) mod next_hops.size()]; next_hops must not be empty.
PortNum ecmp_select(const NextHops& next_hops, const FiveTuple& t, std::uint32_t seed);

}  // namespace ibfsim
