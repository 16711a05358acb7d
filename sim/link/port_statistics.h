// The statistics of link ports and of their VLs (ports.csv, port_vls.csv, discards.csv), registered
// with the port's other outputs and read through LinkPort's public accessors when the registry
// takes its snapshot (sim/core/stats_registry.h).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "sim/core/packet_ledger.h"
#include "sim/core/stats_registry.h"
#include "sim/link/link_port.h"

namespace ibfsim {

// Where a port's figures are: the port, and what only the topology knows about it.
struct PortStatsSource {
  const LinkPort* port = nullptr;
  std::string peer;  // the port at the other end of its cable ("sw1/3")
};

// A port's VL: a data VL (port_vls.csv).
struct VlStatsSource {
  const LinkPort* port = nullptr;
  std::uint8_t vl = 0;
};

// How many packets the owner of a port (its switch or HCA) discarded there for one reason.
using DiscardCount = std::function<std::uint64_t()>;

// Registers the kinds "ports" (keys node, port), "vls" (each data VL of a port, key vl) and
// "discards" (each drop reason at a port, key reason) and their statistics, once per registry.
// `end`: the time the figures are read at (busy fraction, mean buffer occupancy).
void register_port_kinds(StatsRegistry& registry, Time end);

// Adds a connected port, port `number` of node `node`, with its data VLs; returns its row.
std::size_t register_port_statistics(StatsRegistry& registry, PortStatsSource source, const std::string& node,
                                     unsigned number);

// Adds the discards of one reason at a port (its row); left out of the outputs while zero. Owners
// register only the reasons a port discarded for (the run is over when they register).
void register_port_discards(StatsRegistry& registry, std::size_t port_row, DropReason reason, DiscardCount count);

}  // namespace ibfsim
