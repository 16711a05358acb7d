// The Subnet Administrator (IBA Vol1 15.2, class 0x03) that runs beside the SM: what it answers
// to one SA MAD, as a pure function of the SM's picture of the subnet (sa_subnet.h) and the
// multicast groups it keeps. The SM's shell (sm/subnet_manager.h) takes the requests off QP1,
// spends the SA's processing time on each and sends the answer back (and the MFT Sets a join or
// leave needs).
//
//   * PathRecord (Get, GetTable): source by SGID or SLID (else the requester's own port),
//     destination by DGID or DLID (one of them required: ERR_INSUFFICIENT_COMPONENTS); one record
//     per destination LID (all 2^LMC of the port when no DLID is given). DLID/SLID, the GIDs
//     (subnet prefix and port GUID), SL from the routing engine, MTU and rate the smallest
//     NeighborMTU and link rate along the LFTs' path, the subnet's packet lifetime, the default
//     P_Key, Reversible; selectors Exactly. SL, P_Key, MTU, rate and packet lifetime in the
//     ComponentMask are checked (with their selectors): a path that fails them is no record.
//   * NodeRecord (Get, GetTable): by LID, NodeGUID, PortGUID, NodeType; one record per HCA port,
//     one per switch.
//   * PortInfoRecord (Get, GetTable): by EndportLID and PortNum; HCA ports and every port of a
//     switch (EndportLID the switch's LID).
//   * MCMemberRecord: Set joins (creating the group when the MGID is new or 0: Q_Key and P_Key
//     required; an MGID of 0 becomes FF12:A01B:FFFF::<n>; the lowest free MLID from first_mlid; MTU and rate the
//     smallest of the HCA ports unless given), Delete leaves (the group goes with its last
//     member), Get and GetTable read groups by MGID or MLID. Every change recomputes the group's
//     tree (multicast_tree.h) and queues the MFT blocks that changed.
//   * InformInfo: Set subscribes or unsubscribes the requester to Notices (inform_subscriptions.h);
//     the SM forwards matching ones as Reports.
//   * Get answers one record (none: ERR_NO_RECORDS; several: ERR_TOO_MANY_RECORDS); GetTable answers
//     in one RMPP segment whatever fits 200 bytes (none is a success with no record), more is
//     ERR_TOO_MANY_RECORDS (multi-segment RMPP is not modelled). Anything else: unsupported
//     method or attribute.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "sim/subnet_manager/mad/multicast_forwarding_table.h"
#include "sim/subnet_manager/sa/inform_subscriptions.h"
#include "sim/subnet_manager/sa/mc_member_record.h"
#include "sim/subnet_manager/sa/path_record.h"
#include "sim/subnet_manager/sa/sa_mad.h"
#include "sim/subnet_manager/sa/sa_subnet.h"

namespace ibfsim {

struct SaSettings {
  std::uint64_t gid_prefix = kDefaultGidPrefix;
  std::uint16_t p_key = 0xFFFF;        // the default partition's key, in every PathRecord
  std::uint8_t packet_life_time = 18;  // OpenSM's packet_life_time: 4.096 us x 2^18 ~ 1.07 s
  Lid first_mlid = kMulticastLidBase;  // the lowest MLID a new group may take
};

// One MFT block the SM must Set: switch `node` (LID `switch_lid`), block and position as the
// attribute modifier has them, and the whole block's masks.
struct MftUpdate {
  std::size_t node = 0;
  Lid switch_lid = 0;
  MftAttributeModifier where;
  MulticastForwardingTableBlock block;
};

struct McGroup {
  McMemberRecord record;  // the group's parameters (PortGID and JoinState 0)
  std::map<Guid, std::uint8_t> members;  // port GUID -> JoinState
};

class SubnetAdministrator {
 public:
  explicit SubnetAdministrator(SaSettings settings = {}) : settings_(settings) {}

  // The answer to `request`, which came from the port with LID `requester` on `requester_sl`.
  SaMad answer(const SaMad& request, const SaSubnet& subnet, Lid requester, std::uint8_t requester_sl = 0);
  // The MFT blocks joins and leaves changed since the last call, in the order to send them.
  std::vector<MftUpdate> take_mft_updates() { return std::move(mft_updates_); }

  const std::vector<McGroup>& groups() const { return groups_; }
  const SaSettings& settings() const { return settings_; }
  const InformSubscriptions& subscriptions() const { return informs_; }

 private:
  SaMad path_records(const SaMad& q, const SaSubnet& s, Lid requester);
  SaMad node_records(const SaMad& q, const SaSubnet& s);
  SaMad port_info_records(const SaMad& q, const SaSubnet& s);
  SaMad mc_member(const SaMad& q, const SaSubnet& s);
  SaMad mc_join(const SaMad& q, const SaSubnet& s);
  SaMad mc_leave(const SaMad& q, const SaSubnet& s);
  void reprogram(const McGroup& g, const SaSubnet& s, bool removed);

  SaSettings settings_;
  std::vector<McGroup> groups_;
  std::uint64_t next_mgid_ = 1;
  // What this SA programmed: switch node -> MLID -> ports.
  std::map<std::size_t, std::map<Lid, std::vector<PortNum>>> programmed_;
  std::vector<MftUpdate> mft_updates_;
  InformSubscriptions informs_;
};

// The records of one answer: a Get's one record, or a GetTable's records in one RMPP segment,
// `record_bytes` each at AttributeOffset words apart; errors as described above.
SaMad sa_answer_with(const SaMad& request, const std::vector<SaData>& records, std::size_t record_bytes);

}  // namespace ibfsim
