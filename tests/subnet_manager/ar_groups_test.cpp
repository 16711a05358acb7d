// The adaptive routing engines (ar_ftree, ar_updn; routing/ar_groups.h): their AR groups on small
// generated fat trees, port for port as worked out by hand from the generators' cabling
// (topologies/README.md), the static LFT left as ftree's and updn's, and the codecs of the
// adaptive routing SMP attributes and the SMA's answers to them.
#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include "sim/fabric/subnet_graph_from_topology.h"
#include "sim/fabric/topology_yaml.h"
#include "sim/subnet_manager/mad/adaptive_routing.h"
#include "sim/subnet_manager/routing/routing_engine.h"
#include "sim/subnet_manager/sm/lid_assignment.h"
#include "sim/subnet_manager/sma/sma.h"

using namespace ibfsim;

namespace {

struct Built {
  SubnetGraph g;
  std::map<std::string, std::size_t> node;  // by name
};

Built build(const std::string& generate) {
  const Topology topo = parse_topology(YAML::Load("generate: " + generate), "t.yaml");
  const std::size_t h1 = *topo.find_node("h1");
  Built b{subnet_graph_from_topology(topo, h1).graph, {}};
  assign_lids(b.g, 0);
  for (std::size_t n = 0; n < b.g.nodes.size(); ++n) b.node[b.g.nodes[n].description] = n;
  return b;
}

Lid lid_of(const Built& b, const std::string& host) { return b.g.nodes[b.node.at(host)].ports[1].lids.first; }

// The ports of the group a switch has for a host's LID (empty: static).
std::vector<PortNum> group(const Built& b, const RoutingTables& t, const std::string& sw, const std::string& host) {
  const ArSwitchTables& a = t.ar->by_node[b.node.at(sw)];
  const std::uint16_t g = a.group_of_lid.at(lid_of(b, host));
  return g == 0 ? std::vector<PortNum>{} : a.groups.at(g - 1);
}

RoutingTables route(const Built& b, RoutingEngine e) {
  RoutingOptions o;
  o.engine = e;
  return compute_routes(b.g, o);
}

}  // namespace

TEST_CASE("ar_ftree on a leaf-spine of 2 leaves and 3 spines: each leaf's 3 up-ports for the other leaf's hosts",
          "[subnet_manager][adaptive_routing]") {
  // leaf ports 1, 2: hosts; 3, 4, 5: spine1..3; spine port i: leaf i.
  const Built b = build("{kind: leaf_spine, leaves: 2, spines: 3, hosts_per_leaf: 2}");
  for (RoutingEngine e : {RoutingEngine::kArFtree, RoutingEngine::kArUpdn}) {
    INFO(routing_engine_name(e));
    const RoutingTables t = route(b, e);
    REQUIRE(t.ar);
    // The static tables are the engine's own.
    RoutingOptions plain;
    plain.engine = static_engine(e);
    CHECK(t.lft == compute_routes(b.g, plain).lft);
    for (const char* leaf : {"leaf1", "leaf2"}) {
      const ArSwitchTables& a = t.ar->by_node[b.node.at(leaf)];
      REQUIRE(a.groups == std::vector<std::vector<PortNum>>{{3, 4, 5}});
    }
    for (const char* h : {"h3", "h4"}) CHECK(group(b, t, "leaf1", h) == std::vector<PortNum>{3, 4, 5});
    for (const char* h : {"h1", "h2"}) CHECK(group(b, t, "leaf1", h).empty());
    for (const char* h : {"h1", "h2"}) CHECK(group(b, t, "leaf2", h) == std::vector<PortNum>{3, 4, 5});
    // A spine has one way down to each leaf: nothing to choose.
    for (const char* spine : {"spine1", "spine2", "spine3"}) CHECK(t.ar->by_node[b.node.at(spine)].groups.empty());
    // Switch LIDs stay static.
    CHECK(t.ar->by_node[b.node.at("leaf1")].group_of_lid.at(b.g.nodes[b.node.at("spine1")].ports[0].lids.first) == 0);
    CHECK(t.ar->adaptive_entries == 4);
  }
}

TEST_CASE("ar_ftree on a 2-ary 3-tree: up-port pairs at leaves and spines, none at the cores",
          "[subnet_manager][adaptive_routing]") {
  // XGFT(3; 2,2,2; 1,2,2): leaf (a3,a2) ports 1-2 hosts, 3 -> spine (a3,0), 4 -> spine (a3,1);
  // spine (a3,b2) ports 1-2 -> leaves (a3,0), (a3,1), 3 -> core (0,b2), 4 -> core (1,b2);
  // core (b3,b2) ports 1-2 -> spines (0,b2), (1,b2). leaf1 (0,0) holds h1 h2, leaf2 (0,1) h3 h4,
  // leaf3 (1,0) h5 h6, leaf4 (1,1) h7 h8; spine1 = (0,0), spine2 = (0,1), spine3 = (1,0).
  const Built b = build("{kind: fat_tree, k: 2, n: 3}");
  for (RoutingEngine e : {RoutingEngine::kArFtree, RoutingEngine::kArUpdn}) {
    INFO(routing_engine_name(e));
    const RoutingTables t = route(b, e);
    REQUIRE(t.ar);
    RoutingOptions plain;
    plain.engine = static_engine(e);
    CHECK(t.lft == compute_routes(b.g, plain).lft);
    const std::vector<PortNum> up{3, 4};
    // leaf1: the other 6 hosts through either spine of its pod (2 hops or 4: the same group).
    for (const char* h : {"h3", "h4", "h5", "h6", "h7", "h8"}) CHECK(group(b, t, "leaf1", h) == up);
    CHECK(group(b, t, "leaf1", "h2").empty());
    // spine1: the other pod's hosts through either core; its own pod's down its single link.
    for (const char* h : {"h5", "h6", "h7", "h8"}) CHECK(group(b, t, "spine1", h) == up);
    for (const char* h : {"h1", "h2", "h3", "h4"}) CHECK(group(b, t, "spine1", h).empty());
    for (const char* h : {"h1", "h2", "h3", "h4"}) CHECK(group(b, t, "spine3", h) == up);
    for (const char* core : {"core1", "core2", "core3", "core4"}) CHECK(t.ar->by_node[b.node.at(core)].groups.empty());
    // 4 leaves x 6 remote hosts + 4 spines x 4 hosts of the other pod.
    CHECK(t.ar->adaptive_entries == 40);
  }
}

TEST_CASE("ar_ftree on what ftree cannot route falls back to minhop without groups", "[subnet_manager][adaptive_routing]") {
  const Built b = build("{kind: torus, dims: [3, 3], hosts_per_switch: 1}");
  const RoutingTables t = route(b, RoutingEngine::kArFtree);
  CHECK_FALSE(t.ar);
  REQUIRE_FALSE(t.notes.empty());
  CHECK(t.notes.back() == "ar_ftree: no fat tree, no adaptive routing groups: every route is static");
}

TEST_CASE("adaptive routing attributes: codecs byte for byte", "[subnet_manager][adaptive_routing][mad]") {
  AdaptiveRoutingInfo info;
  info.enable = true;
  info.fast_recovery = true;
  info.sl_mask = 0x0005;
  info.group_cap = 4095;
  info.group_top = 3;
  info.flowlet_gap_ns = 1500;
  info.congestion_threshold = 0x0102;
  info.congestion_hold_ns = 20000;
  info.flowlet_margin = 2;
  const SmpData d = encode_ar_info(info);
  CHECK(d[14] == 2);
  CHECK(d[15] == 0);
  CHECK(d[12] == 0x01);
  CHECK(d[13] == 0x02);
  CHECK(d[48] == 0x00);
  CHECK(d[49] == 0x00);
  CHECK(d[50] == 0x4E);
  CHECK(d[51] == 0x20);
  CHECK(d[0] == 0xC0);
  CHECK(d[2] == 0x00);
  CHECK(d[3] == 0x05);
  CHECK(d[4] == 0x0F);
  CHECK(d[5] == 0xFF);
  CHECK(d[7] == 3);
  CHECK(d[10] == 0x05);
  CHECK(d[11] == 0xDC);
  const AdaptiveRoutingInfo back = decode_ar_info(d.data());
  CHECK(back.enable);
  CHECK(back.fast_recovery);
  CHECK(back.sl_mask == 5);
  CHECK(back.group_top == 3);
  CHECK(back.flowlet_gap_ns == 1500);
  CHECK(back.congestion_threshold == 0x0102);
  CHECK(back.congestion_hold_ns == 20000);
  CHECK(back.flowlet_margin == 2);

  // Ports 1, 9 and 36 of group 1 (the block's second): bits 1, 9, 36 of a 256-bit big-endian number.
  ArGroupTableBlock gt;
  gt.groups[1] = ar_port_mask({1, 9, 36});
  const SmpData g = encode_ar_group_table(gt);
  CHECK(g[32 + 31] == 0x02);
  CHECK(g[32 + 30] == 0x02);
  CHECK(g[32 + 27] == 0x10);
  for (std::size_t i = 0; i < 32; ++i) CHECK(g[i] == 0);
  CHECK(ar_mask_ports(decode_ar_group_table(g.data()).groups[1]) == std::vector<PortNum>{1, 9, 36});

  ArLftBlock lft;
  lft.groups[0] = 1;
  lft.groups[31] = 0x0ABC;
  const SmpData l = encode_ar_lft(lft);
  CHECK(l[1] == 1);
  CHECK(l[62] == 0x0A);
  CHECK(l[63] == 0xBC);
  CHECK(decode_ar_lft(l.data()).groups == lft.groups);
}

TEST_CASE("SMA: adaptive routing Sets and Gets on a switch, refusals, and none on a CA",
          "[subnet_manager][adaptive_routing][sma]") {
  SmaState s;
  s.node_info.node_type = IB_NODE_TYPE_SWITCH;
  s.node_info.num_ports = 4;
  s.ports.resize(5);
  s.switch_info.linear_fdb_cap = 0xC000;
  s.ar_info.group_cap = 8;
  auto set = [&](std::uint16_t attr, std::uint32_t mod, const SmpData& data) {
    Smp r;
    r.method = IB_MAD_METHOD_SET;
    r.attribute_id = attr;
    r.attribute_modifier = mod;
    r.data = data;
    return sma_process(s, r, 1);
  };
  // Group 3 (block 1, second) = ports 2 and 4.
  ArGroupTableBlock gt;
  gt.groups[1] = ar_port_mask({2, 4});
  SmaResult res = set(IBFSIM_MAD_ATTR_AR_GROUP_TABLE, 1, encode_ar_group_table(gt));
  REQUIRE(res.response.status == IB_MAD_STATUS_SUCCESS);
  CHECK(res.applied);
  CHECK(ar_mask_ports(s.ar_groups.at(3)) == std::vector<PortNum>{2, 4});
  // LID 40 (block 1, entry 8) -> group 3.
  ArLftBlock lft;
  lft.groups[8] = 3;
  res = set(IBFSIM_MAD_ATTR_AR_LFT, 1, encode_ar_lft(lft));
  REQUIRE(res.response.status == IB_MAD_STATUS_SUCCESS);
  CHECK(s.ar_lft.at(40) == 3);
  AdaptiveRoutingInfo info;
  info.enable = true;
  info.sl_mask = 1;
  info.group_top = 3;
  info.group_cap = 99;  // read-only: ignored
  res = set(IBFSIM_MAD_ATTR_AR_INFO, 0, encode_ar_info(info));
  REQUIRE(res.response.status == IB_MAD_STATUS_SUCCESS);
  CHECK(decode_ar_info(res.response.data.data()).group_cap == 8);
  CHECK(s.ar_info.enable);

  // Refused, nothing applied: a port the switch lacks, port 0, a group above GroupCap, GroupTop
  // above it, a group block past it.
  gt.groups[1] = ar_port_mask({2, 5});
  CHECK(set(IBFSIM_MAD_ATTR_AR_GROUP_TABLE, 1, encode_ar_group_table(gt)).response.status == IB_MAD_STATUS_INVALID_FIELD);
  gt.groups[1] = ar_port_mask({0, 2});
  CHECK(set(IBFSIM_MAD_ATTR_AR_GROUP_TABLE, 1, encode_ar_group_table(gt)).response.status == IB_MAD_STATUS_INVALID_FIELD);
  CHECK(ar_mask_ports(s.ar_groups.at(3)) == std::vector<PortNum>{2, 4});
  lft.groups[8] = 9;
  CHECK(set(IBFSIM_MAD_ATTR_AR_LFT, 1, encode_ar_lft(lft)).response.status == IB_MAD_STATUS_INVALID_FIELD);
  CHECK(s.ar_lft.at(40) == 3);
  info.group_top = 9;
  CHECK(set(IBFSIM_MAD_ATTR_AR_INFO, 0, encode_ar_info(info)).response.status == IB_MAD_STATUS_INVALID_FIELD);
  CHECK(set(IBFSIM_MAD_ATTR_AR_GROUP_TABLE, 5, SmpData{}).response.status == IB_MAD_STATUS_INVALID_FIELD);

  // A CA, or a switch without adaptive routing (GroupCap 0), does not know the attributes.
  s.ar_info.group_cap = 0;
  CHECK(set(IBFSIM_MAD_ATTR_AR_INFO, 0, SmpData{}).response.status == IB_MAD_STATUS_UNSUP_METHOD_ATTR);
}
