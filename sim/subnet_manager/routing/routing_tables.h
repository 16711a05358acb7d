// What a routing engine produces: a linear forwarding table per switch, the LinearFDBTop, and for
// the deadlock-free engine the service level of every path and the SL-to-VL mapping it needs.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/ids.h"
#include "sim/network/lft.h"  // kNoRoute
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// SL per path, for engines that spread paths over virtual lanes.
struct PathServiceLevels {
  // [graph node of the source switch][destination LID] -> SL, for every switch. A path starting
  // at an HCA port takes the SL of the switch that port is cabled to (the engine routes per
  // source switch); a path from a switch's own port 0 takes that switch's.
  std::vector<std::vector<std::uint8_t>> by_source_switch;
  // SL -> VL on every port of every node (the engine programs one table everywhere).
  std::array<std::uint8_t, 16> sl_to_vl{};
  // How many data VLs the SLs in use need (VL 0..vls_needed-1).
  unsigned vls_needed = 1;
};

struct RoutingTables {
  // [graph node] -> egress port per LID 0..lft_top (kNoRoute: none); empty for HCAs.
  std::vector<std::vector<PortNum>> lft;
  // LinearFDBTop of every switch: as OpenSM, the highest LID in the subnet.
  Lid lft_top = 0;
  // Set by the deadlock-free engine; without it every path uses SL 0 and VL 0.
  std::optional<PathServiceLevels> sl;
  // What the engine did that the user should know (e.g. updn falling back to minhop), one line each.
  std::vector<std::string> notes;

  PortNum port(std::size_t sw, Lid lid) const {
    const auto& t = lft.at(sw);
    return lid < t.size() ? t[lid] : kNoRoute;
  }
};

// Empty tables (every entry kNoRoute) sized for g: one per switch, LIDs 0..g.max_lid().
RoutingTables empty_routing_tables(const SubnetGraph& g);

// The SL of the path from the port owning `src_lid` to `dst_lid` (0 without SL information).
std::uint8_t path_sl(const SubnetGraph& g, const RoutingTables& t, SubnetPortRef src, Lid dst_lid);

}  // namespace ibfsim
