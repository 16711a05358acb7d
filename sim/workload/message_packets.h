// The data packets a message becomes on the wire, by transport and verb: how many, and the wire
// bytes (LRH through VCRC, delimiters excluded) of each, from the header sizes of IBA Vol 1
// ch. 9 (LRH 8, BTH 12, DETH 8, RETH 16, AETH 4, ICRC 4, VCRC 2, payload padded to 4 bytes).
// A traffic class's offered load and accepted throughput count these packets' time on the link.
// Pure, no SystemC.
#pragma once
#include <cstdint>

namespace ibfsim {

// ud_send: the UD traffic generator (packets built at the wire, each at most one MTU);
// ud, uc, rc: verbs queue pairs through the HCA model; ipoib_udp: UDP datagrams over IPv4 over
// the hosts' IPoIB interfaces (workload/ipoib_interface.h), built at the wire like ud_send, each
// packet's payload the IPoIB, IPv4 and UDP headers (32 bytes) and at most MTU - 32 bytes of data.
enum class ClassTransport : std::uint8_t { kUdSend, kUd, kUc, kRc, kIpoibUdp, kIpoibTcp };
// ipoib_udp: the headers inside each packet's payload (IPoIB 4, IPv4 20, UDP 8).
constexpr std::uint32_t kIpoibUdpOverhead = 32;
// ipoib_tcp: the headers of a data segment (IPoIB 4, IPv4 20, TCP 20 without options): a 2 KiB
// IB MTU carries 2004 data bytes (the MSS).
constexpr std::uint32_t kIpoibTcpOverhead = 44;
enum class ClassVerb : std::uint8_t { kSend, kWrite, kRead };

const char* class_transport_name(ClassTransport t);  // ud_send, ud, uc, rc, ipoib_udp, ipoib_tcp
const char* class_verb_name(ClassVerb v);            // send, write, read

struct MessagePackets {
  std::uint32_t count = 1;          // data packets (READ: responses)
  std::uint64_t wire_bytes = 0;     // their wire bytes together
  std::uint32_t first_bytes = 0;    // the first one's (the only one's when count == 1)
  std::uint32_t middle_bytes = 0;   // each middle one's (count > 2)
  std::uint32_t last_bytes = 0;     // the last one's (count > 1)
};

// The data packets of a message of `bytes` payload with path MTU `mtu`. A zero-byte message is one
// packet. ipoib_udp: `bytes` of UDP data, each packet carrying at most mtu - 32 of them; ipoib_tcp: of TCP data in full segments of mtu - 44 (no ACKs, no retransmissions). For READ these are the responses, which carry the data from the target back.
MessagePackets message_packets(ClassTransport t, ClassVerb v, std::uint64_t bytes, std::uint32_t mtu);

// Wire bytes of one packet with `header` bytes of headers (LRH..last extended header) and `payload`.
constexpr std::uint32_t packet_wire_bytes(std::uint32_t header, std::uint32_t payload) {
  return header + payload + (4 - payload % 4) % 4 + 4 + 2;
}

}  // namespace ibfsim
