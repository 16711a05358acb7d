#include "sim/subnet_manager/mad/directed_route.h"

#include <stdexcept>

namespace ibfsim {

namespace {

DrDecision drop(DrDropReason reason) { return {DrAction::kDrop, 0, 0, reason}; }
DrDecision process() { return {DrAction::kProcess, 0, 0, DrDropReason::kNone}; }
DrDecision route_by_lid(Lid lid) { return {DrAction::kRouteByLid, 0, lid, DrDropReason::kNone}; }

DrDecision forward(PortNum port, const DrNode& node) {
  if (port == 0 || port > node.num_ports) return drop(DrDropReason::kBadPort);
  return {DrAction::kForward, port, 0, DrDropReason::kNone};
}

// At the end of a directed part: process here when the far end is permissive, else a switch
// carries on by LID.
DrDecision end_of_directed_part(Lid far_lid, const DrNode& node) {
  if (far_lid == kLidPermissive) return process();
  if (!node.is_switch) return drop(DrDropReason::kNotASwitch);
  return route_by_lid(far_lid);
}

DrDecision outgoing(Smp& smp, const DrNode& node, PortNum arrival) {
  const unsigned hop_ptr = smp.hop_pointer;
  const unsigned hop_cnt = smp.hop_count;
  // C14-9:1 - start of the directed part: at the requester, or where a LID-routed part ended.
  // Arriving over a link, the sender should already have incremented HopPointer.
  if (hop_cnt != 0 && hop_ptr == 0) {
    if (arrival != kDrLocal) return drop(DrDropReason::kBadHopPointer);
    smp.hop_pointer = 1;
    return forward(smp.initial_path[1], node);
  }
  // C14-9:2 - an intermediate hop, which only a switch can be.
  if (hop_ptr >= 1 && hop_ptr < hop_cnt) {
    if (!node.is_switch) return drop(DrDropReason::kNotASwitch);
    if (arrival == kDrLocal) return drop(DrDropReason::kBadHopPointer);
    smp.return_path[hop_ptr] = arrival;
    smp.hop_pointer = static_cast<std::uint8_t>(hop_ptr + 1);
    return forward(smp.initial_path[hop_ptr + 1], node);
  }
  // C14-9:3 - the last hop of the directed part (or the requester's own node when HopCount is 0).
  if (hop_ptr == hop_cnt) {
    if (hop_cnt != 0) {
      if (arrival == kDrLocal) return drop(DrDropReason::kBadHopPointer);
      smp.return_path[hop_ptr] = arrival;
    }
    smp.hop_pointer = static_cast<std::uint8_t>(hop_ptr + 1);
    return end_of_directed_part(smp.dr_dlid, node);
  }
  // C14-9:4 - delivered here by the final LID-routed part. C14-9:5 - anything else is bogus.
  if (hop_ptr == hop_cnt + 1 && arrival == kDrLocal) return process();
  return drop(DrDropReason::kBadHopPointer);
}

DrDecision returning(Smp& smp, const DrNode& node, PortNum arrival) {
  const unsigned hop_ptr = smp.hop_pointer;
  const unsigned hop_cnt = smp.hop_count;
  // C14-13:1 - the response starts back: at the responder, or at the switch that ended the
  // directed part when the response reached it by LID.
  if (hop_cnt != 0 && hop_ptr == hop_cnt + 1) {
    if (arrival != kDrLocal) return drop(DrDropReason::kBadHopPointer);
    smp.hop_pointer = static_cast<std::uint8_t>(hop_ptr - 1);
    return forward(smp.return_path[hop_ptr - 1], node);
  }
  // C14-13:2 - an intermediate hop on the way back.
  if (hop_ptr >= 2 && hop_ptr <= hop_cnt) {
    if (!node.is_switch) return drop(DrDropReason::kNotASwitch);
    if (arrival == kDrLocal) return drop(DrDropReason::kBadHopPointer);
    smp.hop_pointer = static_cast<std::uint8_t>(hop_ptr - 1);
    return forward(smp.return_path[hop_ptr - 1], node);
  }
  // C14-13:3 - back at the node where the directed part started.
  if (hop_ptr == 1) {
    // Only with HopCount 0 is this the responder's own node, with nothing crossed yet.
    if (hop_cnt != 0 && arrival == kDrLocal) return drop(DrDropReason::kBadHopPointer);
    smp.hop_pointer = 0;
    return end_of_directed_part(smp.dr_slid, node);
  }
  // C14-13:4 - delivered to the SM by the initial LID-routed part. C14-13:5 - anything else.
  if (hop_ptr == 0 && arrival == kDrLocal) return process();
  return drop(DrDropReason::kBadHopPointer);
}

}  // namespace

DrDecision dr_route(Smp& smp, const DrNode& node, PortNum arrival_port) {
  if (!smp.directed()) return drop(DrDropReason::kNotDirectedRoute);
  if (smp.hop_count > kSmpMaxHopCount) return drop(DrDropReason::kHopCountTooLarge);
  return smp.direction ? returning(smp, node, arrival_port) : outgoing(smp, node, arrival_port);
}

Smp make_dr_request(std::uint8_t method, std::uint16_t attribute_id, std::uint32_t attribute_modifier,
                    std::uint64_t transaction_id, const std::vector<PortNum>& path,
                    std::uint64_t m_key) {
  if (path.size() > kSmpMaxHopCount)
    throw std::invalid_argument("a directed route has at most 63 hops");
  Smp smp;
  smp.mgmt_class = IB_MCLASS_SUBN_DIR;
  smp.method = method;
  smp.transaction_id = transaction_id;
  smp.attribute_id = attribute_id;
  smp.attribute_modifier = attribute_modifier;
  smp.m_key = m_key;
  smp.hop_count = static_cast<std::uint8_t>(path.size());
  for (std::size_t i = 0; i < path.size(); ++i) smp.initial_path[i + 1] = path[i];
  return smp;
}

}  // namespace ibfsim
