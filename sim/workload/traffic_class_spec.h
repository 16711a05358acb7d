// A traffic class of a scenario: a `workload:` entry with a `pattern:` key. Sources send messages
// of a size mix over a transport and verb to destinations the pattern picks, at an offered load
// with an arrival process (load-driven patterns), or run a collective a number of times. Every
// key is documented in docs/scenario.md ("Traffic classes").
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/transport/tcp/tcp_config.h"
#include "sim/fabric/topology.h"
#include "sim/workload/arrival_process.h"
#include "sim/workload/destination_pattern.h"
#include "sim/workload/message_packets.h"
#include "sim/workload/message_size_mix.h"

namespace ibfsim {

class YamlMap;

struct TrafficClassSpec {
  std::string name;
  DestinationPatternSpec pattern;
  std::vector<std::size_t> hosts;   // topology node indices: the pattern's host indices 0..n-1
  std::vector<bool> sending;        // by host index: whether it sends (`sources:`)
  ClassTransport transport = ClassTransport::kUdSend;
  ClassVerb verb = ClassVerb::kSend;
  MessageSizeMix sizes{2048};
  std::uint32_t mtu = 4096;         // path MTU
  double load = 0.5;                // load-driven patterns: fraction of each source's injection link
  ArrivalSpec arrival;
  std::uint8_t sl = 0;
  std::uint32_t tx_depth = 128;     // verbs: messages outstanding per QP (more wait at the source)
  std::uint32_t rx_depth = 64;      // verbs SEND: receives kept posted per receiving QP
  std::uint64_t iterations = 1;     // collectives: how many times they run, back to back
  Time start = 0;                   // collectives: after phases.start

  bool collective() const { return pattern_is_collective(pattern.kind); }
  // ipoib_udp: by host index, each host's ib0 address (from the scenario's `ipoib:` section), and
  // the P_Key whose broadcast group the interfaces join.
  std::vector<std::array<std::uint8_t, 4>> ipoib_addresses;
  std::uint16_t ipoib_p_key = 0xFFFF;
  // The connected MTU if any of the class's interfaces is in connected mode (RC connections made
  // by the CM), 0 if all are in datagram mode; by host index, whether each one is.
  std::uint32_t ipoib_connected_mtu = 0;
  std::vector<bool> ipoib_connected_hosts;
  std::string message_size_at;  // ipoib_udp: where `message_size` is (file:line:col), checked against the mode's MTU
  TcpConfig tcp;  // ipoib_tcp: every connection's parameters (`tcp:`)

  bool ipoib() const { return transport == ClassTransport::kIpoibUdp || transport == ClassTransport::kIpoibTcp; }

  // Packets built at the wire (ud_send, ipoib_udp, ipoib_tcp), or verbs QPs through the HCA model.
  bool at_wire() const { return transport == ClassTransport::kUdSend || ipoib(); }
  bool verbs() const { return !at_wire(); }
  std::size_t sources() const;      // hosts that send
};

// True if a `workload:` entry is a traffic class (it has a `pattern:` key).
bool is_traffic_class(const YamlMap& m);

// Reads one traffic class; host names are resolved against `topo` (its HCAs in declaration
// order are the default host list). Throws InputError naming file:line:col.
TrafficClassSpec parse_traffic_class(const YamlMap& m, std::size_t index, const Topology& topo);

}  // namespace ibfsim
