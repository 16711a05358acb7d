#include "sim/workload/message_packets.h"

namespace ibfsim {

const char* class_transport_name(ClassTransport t) {
  switch (t) {
    case ClassTransport::kUdSend: return "ud_send";
    case ClassTransport::kUd: return "ud";
    case ClassTransport::kUc: return "uc";
    case ClassTransport::kRc: return "rc";
    case ClassTransport::kIpoibUdp: return "ipoib_udp";
    case ClassTransport::kIpoibTcp: return "ipoib_tcp";
  }
  return "?";
}

const char* class_verb_name(ClassVerb v) {
  switch (v) {
    case ClassVerb::kSend: return "send";
    case ClassVerb::kWrite: return "write";
    case ClassVerb::kRead: return "read";
  }
  return "?";
}

MessagePackets message_packets(ClassTransport t, ClassVerb v, std::uint64_t bytes, std::uint32_t mtu) {
  constexpr std::uint32_t kLrhBth = 8 + 12, kDeth = 8, kReth = 16, kAeth = 4;
  if (t == ClassTransport::kIpoibUdp || t == ClassTransport::kIpoibTcp) {
    // Each datagram's (segment's) headers travel as payload: a UD SEND of LRH, BTH, DETH and them.
    const std::uint32_t extra = t == ClassTransport::kIpoibUdp ? kIpoibUdpOverhead : kIpoibTcpOverhead;
    MessagePackets m = message_packets(ClassTransport::kUdSend, v, bytes, mtu - extra);
    // extra is a multiple of 4: the pad is the data's
    m.first_bytes += extra;
    if (m.count > 1) m.last_bytes += extra;
    if (m.count > 2) m.middle_bytes += extra;
    m.wire_bytes += std::uint64_t{extra} * m.count;
    return m;
  }
  MessagePackets m;
  m.count = bytes == 0 ? 1 : static_cast<std::uint32_t>((bytes + mtu - 1) / mtu);
  // Header bytes of the first (or only), middle and last packets.
  std::uint32_t first = kLrhBth, middle = kLrhBth, last = kLrhBth;
  if (t == ClassTransport::kUdSend || t == ClassTransport::kUd) {
    first = middle = last = kLrhBth + kDeth;  // every UD packet is a SEND Only with a DETH
  } else if (v == ClassVerb::kWrite) {
    first += kReth;  // RDMA WRITE First / Only
  } else if (v == ClassVerb::kRead) {
    first += kAeth;  // READ response First / Only
    last += kAeth;   // READ response Last
  }
  const std::uint32_t tail = static_cast<std::uint32_t>(bytes - std::uint64_t{mtu} * (m.count - 1));
  if (m.count == 1) {
    m.first_bytes = packet_wire_bytes(first, static_cast<std::uint32_t>(bytes));
    m.wire_bytes = m.first_bytes;
    return m;
  }
  m.first_bytes = packet_wire_bytes(first, mtu);
  m.middle_bytes = packet_wire_bytes(middle, mtu);
  m.last_bytes = packet_wire_bytes(last, tail);
  m.wire_bytes = std::uint64_t{m.first_bytes} + std::uint64_t{m.middle_bytes} * (m.count - 2) + m.last_bytes;
  return m;
}

}  // namespace ibfsim
