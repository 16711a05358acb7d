// The management datagrams of SHARP's Aggregation Manager (sim/workload/sharp_aggregation_manager.h)
// to a switch's aggregation node (aggregation_node.h): GMPs (UD SEND Only to QP1, Q_Key
// 0x80010000, a 256-byte MAD) of the vendor-specific management class 0x0A. The real AM's MADs are
// Mellanox-private; the layout below is ibfsim's own, with the sizes of a GMP (290 bytes on the
// wire), so that set-up takes the time a real one's packets would.
//
// TreeConfig (attribute 0x0010), method Set; the node answers with GetResp (R bit) carrying the
// request's data and a status: 0 taken, kSharpStatusNoTree refused (the node holds max_trees trees
// already), IB_MAD_STATUS_INVALID_FIELD (0x001C) for a MAD that does not make sense (a page out
// of order). Big-endian, after the 24-byte common header (IBA Vol1 13.4.2):
//   24 tree id | 25 operator | 26 data type | 27 SL | 28-29 P_Key | 30-31 parent LID (0: root)
//   32-33 children in all | 34-35 first child of this page | 36 children on this page | 37-39 0
//   40 + 8k: child k of this page: LID (2 bytes), 0, QPN (3 bytes), 0, 0
// A node with more than kSharpChildrenPerMad children gets one MAD per page of them (the
// AttributeModifier is the page number); it programs the tree when the last page is in.
// Pure functions over bytes (no SystemC).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/ids.h"
#include "sim/transport/sharp/sharp_reduction.h"

namespace ibfsim {

inline constexpr std::uint8_t kSharpMadClass = 0x0A;           // vendor-specific (range 0x09-0x0F)
inline constexpr std::uint16_t kSharpAttrTreeConfig = 0x0010;
inline constexpr std::uint16_t kSharpStatusNoTree = 0x0100;     // class-specific: no tree resources
inline constexpr std::uint32_t kSharpChildrenPerMad = 27;       // (256 - 40) / 8
inline constexpr std::size_t kSharpMadBytes = 256;

using SharpMadBytes = std::array<std::uint8_t, kSharpMadBytes>;

// One page of a tree's configuration at one node.
struct SharpTreeConfigMad {
  std::uint8_t method = 0x02;            // Set; 0x81 GetResp
  std::uint16_t status = 0;
  std::uint64_t transaction_id = 0;
  std::uint32_t page = 0;                // AttributeModifier
  std::uint8_t tree = 0;
  SharpOp op = SharpOp::kSum;
  SharpType type = SharpType::kFloat32;
  std::uint8_t sl = 0;
  std::uint16_t p_key = 0xFFFF;
  Lid parent = 0;                        // 0: the node is the root
  std::uint16_t total_children = 0;
  std::uint16_t first_child = 0;
  struct Child {
    Lid lid = 0;
    Qpn qpn = 0;
    bool operator==(const Child& o) const { return lid == o.lid && qpn == o.qpn; }
  };
  std::vector<Child> children;           // this page's, at most kSharpChildrenPerMad
};

SharpMadBytes encode_sharp_mad(const SharpTreeConfigMad& m);
// nullopt unless BaseVersion 1, class kSharpMadClass, ClassVersion 1, attribute TreeConfig and a
// consistent page (its children fit, first + count <= total, known operator and type).
std::optional<SharpTreeConfigMad> decode_sharp_mad(const std::uint8_t* mad256);

// The Set MADs that configure one node: its children (child switches' nodes, then hosts' QPs) cut
// into pages of kSharpChildrenPerMad (one MAD for a node without children); TIDs from `first_tid`.
std::vector<SharpTreeConfigMad> sharp_tree_config_mads(std::uint8_t tree, SharpOp op, SharpType type, std::uint8_t sl,
                                                       std::uint16_t p_key, Lid parent,
                                                       const std::vector<SharpTreeConfigMad::Child>& children,
                                                       std::uint64_t first_tid);

}  // namespace ibfsim
