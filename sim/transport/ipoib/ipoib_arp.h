// ARP over IPoIB (RFC 4391 section 4.1, on RFC 826): how an interface learns the hardware
// address (QPN and GID) behind an IPv4 address. 56 bytes after the IPoIB header:
//   0-1 hardware type 32 (InfiniBand); 2-3 protocol type 0x0800; 4 hardware length 20;
//   5 protocol length 4; 6-7 operation (1 request, 2 reply); 8-27 sender hardware address;
//   28-31 sender IP; 32-51 target hardware address (zero in a request); 52-55 target IP.
// A request goes to the broadcast group; the owner of the target IP answers with a unicast UD
// SEND to the requester's QPN (and the LID a PathRecord for its GID names).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "sim/transport/ipoib/ipoib_header.h"

namespace ibfsim {

constexpr std::size_t kIpoibArpBytes = 56;
constexpr std::uint16_t kArpHardwareInfiniBand = 32;
constexpr std::uint16_t kArpRequest = 1;
constexpr std::uint16_t kArpReply = 2;

struct IpoibArp {
  std::uint16_t operation = kArpRequest;
  IpoibHwAddress sender_hw;
  std::array<std::uint8_t, 4> sender_ip{};
  IpoibHwAddress target_hw;
  std::array<std::uint8_t, 4> target_ip{};
};

void encode_ipoib_arp(const IpoibArp& a, std::uint8_t* out56);
// nullopt unless the fixed fields say InfiniBand over IPv4 (type 32, 0x0800, lengths 20 and 4)
// and the operation is a request or a reply.
std::optional<IpoibArp> decode_ipoib_arp(const std::uint8_t* in56);

}  // namespace ibfsim
