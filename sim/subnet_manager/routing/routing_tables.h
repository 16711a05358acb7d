// What a routing engine produces: a linear forwarding table per switch, the LinearFDBTop, and for
// the deadlock-free engine the service level of every path and the SL-to-VL mapping it needs.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/ids.h"
#include "sim/network/lft.h"  // kNoRoute
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// SL per path, for the engines that spread paths over virtual lanes (lash, dfsssp, nue): what
// OpenSM's routing engine answers a path record query with (its path_sl), kept in the form the
// engine computes it; exactly one of the three tables is filled.
struct PathServiceLevels {
  // lash: [graph node of the source switch][destination LID] -> SL. A path starting at an HCA port
  // takes the SL of the switch that port is cabled to; a path from a switch's own port 0 takes
  // that switch's.
  std::vector<std::vector<std::uint8_t>> by_source_switch;
  // dfsssp: [source LID][destination LID] -> the path's first SL (LIDs 0..lft_top).
  std::vector<std::vector<std::uint8_t>> by_lid_pair;
  // nue: [destination LID] -> SL, whatever the source.
  std::vector<std::uint8_t> by_destination;
  // dfsssp's balancing gives a layer several VLs: the paths whose first SL is s may use SLs
  // s..s+spread[s]-1 (OpenSM answers each path query with one of them at random; ibfsim takes
  // s + (SLID + DLID) mod spread[s]). 1 everywhere for the other engines.
  std::array<std::uint8_t, 16> spread{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  // SL -> VL on every port of every node (the engine's SLs need one table everywhere).
  std::array<std::uint8_t, 16> sl_to_vl{};
  // How many data VLs the SLs in use need (VL 0..vls_needed-1).
  unsigned vls_needed = 1;
};

// What the adaptive routing engines (ar_ftree, ar_updn; ar_groups.h) add to the static tables:
// one switch's adaptive routing tables, as the SM programs them.
struct ArSwitchTables {
  // Group g (1..groups.size()) is groups[g - 1]: its ports, ascending. Identical sets are one group.
  std::vector<std::vector<PortNum>> groups;
  // Per LID 0..lft_top: its group, 0 for the static LFT entry.
  std::vector<std::uint16_t> group_of_lid;
};

struct AdaptiveRoutingTables {
  std::vector<ArSwitchTables> by_node;  // [graph node]; empty for CAs
  std::size_t adaptive_entries = 0;     // (switch, LID) pairs with a group, over the subnet
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
  // The adaptive routing groups (ar_ftree, ar_updn); the LFT above stays every packet's default.
  std::optional<AdaptiveRoutingTables> ar;

  PortNum port(std::size_t sw, Lid lid) const {
    const auto& t = lft.at(sw);
    return lid < t.size() ? t[lid] : kNoRoute;
  }
};

// Empty tables (every entry kNoRoute) sized for g: one per switch, LIDs 0..g.max_lid().
RoutingTables empty_routing_tables(const SubnetGraph& g);

// The SLs the engine allows the path from port `src` (from its LID `src_lid`; 0: its base LID) to
// `dst_lid`: first..last (0..0 without SL information).
std::pair<std::uint8_t, std::uint8_t> path_sl_range(const SubnetGraph& g, const RoutingTables& t, SubnetPortRef src,
                                                    Lid dst_lid, Lid src_lid = 0);
// The SL ibfsim gives that path: the first of the range, or with several, first + (SLID + DLID)
// mod their number.
std::uint8_t path_sl(const SubnetGraph& g, const RoutingTables& t, SubnetPortRef src, Lid dst_lid);

// The SL-to-VL table OpenSM programs on a port with `data_vls` operational data VLs when QoS is on
// with its defaults (qos_sl2vl 0,1,...,14,7, each VL masked to the port's VLs): what the engines
// that assign SLs rely on (OpenSM's documentation has them run with -Q).
std::array<std::uint8_t, 16> opensm_default_sl_to_vl(unsigned data_vls);

}  // namespace ibfsim
