// What a TCP connection (tcp_connection.h) is set up with, what it counts, and the segment it
// hands to whatever carries it (IPoIB datagram mode today; connected mode later: the same bytes).
#pragma once
#include <cstdint>

#include "sim/core/time.h"
#include "sim/transport/tcp/tcp_header.h"

namespace ibfsim {

struct TcpConfig {
  std::uint32_t mss = 2004;                      // advertised MSS: the IPoIB MTU (2044) less IPv4 and TCP (40)
  std::uint32_t initial_window_segments = 10;    // RFC 6928, as Linux
  std::uint64_t initial_ssthresh = ~std::uint64_t{0} >> 1;  // "arbitrarily high" (RFC 5681)
  std::uint64_t send_buffer = 4u << 20;          // bytes written and not yet acknowledged, at most
  std::uint64_t receive_buffer = 6u << 20;       // the receive window when nothing waits out of order
  Time rto_min = 200 * kMs;                      // Linux's; RFC 6298 says 1 s
  Time rto_initial = 1 * kSec;                   // RFC 6298 (2.1)
  Time rto_max = 120 * kSec;                     // Linux's TCP_RTO_MAX
  Time clock_granularity = 1 * kMs;              // G of RFC 6298 (a 1000 Hz tick)
  Time delayed_ack = 40 * kMs;                   // Linux's minimum delayed-ACK timeout
  std::uint32_t dup_threshold = 3;               // DupThresh (RFC 5681, 6675)
  bool sack = true;                              // offer SACK-permitted
  std::uint32_t isn = 0;                         // initial sequence number
};

struct TcpStats {
  std::uint64_t segments_sent = 0, data_segments_sent = 0, pure_acks_sent = 0;
  std::uint64_t retransmitted_segments = 0, retransmitted_bytes = 0;
  std::uint64_t fast_retransmits = 0;  // entries into fast recovery (each retransmits the first hole)
  std::uint64_t rtos = 0;              // retransmission timeouts (SYNs included)
  std::uint64_t dup_acks_received = 0;
  std::uint64_t segments_received = 0, out_of_order_segments = 0, duplicate_segments = 0;
};

// A segment to send or one received: its TCP header (ports, sequence numbers, flags, window,
// options) and how many data bytes follow it (their contents are not carried).
struct TcpSegment {
  TcpHeader header;
  std::uint32_t data_bytes = 0;
};

}  // namespace ibfsim
