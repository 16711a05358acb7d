// A scenario's `attacks:` (docs/scenario.md, "Attacks"): hosts that behave as a hostile user with
// raw access to their HCA would, each attack a kind of packets it forges and sends at chosen times.
// What stops them is the model's own checks (the responder's path and PSN checks, P_Keys, R_Keys,
// M_Keys, VL15's lack of flow control), and the results count what was sent and what refused it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace ibfsim {

class YamlMap;
class YamlValue;
struct Scenario;

enum class AttackKind : std::uint8_t {
  kForgedSlid,      // RC requests to a flow's responder QP with another host's SLID
  kReplay,          // the flow's own requests again (its requester's SLID), with old PSNs
  kPartitionProbe,  // RC requests to a flow's responder QP with a P_Key of the attacker's table
  kRkeyGuess,       // RC connections to a flow's target host, each one RDMA WRITE with a guessed R_Key
  kRogueSmp,        // directed-route SMP Sets to switches, with a guessed M_Key
  kSmpFlood,        // directed-route SMP Gets to the attacker's switch, as fast as its port sends
};
const char* attack_kind_name(AttackKind k);  // as written in YAML: forged_slid, replay, ...

struct AttackSpec {
  std::string name;
  AttackKind kind = AttackKind::kForgedSlid;
  std::string from;                  // the attacking HCA
  std::string target;                // a verbs flow (forged_slid, replay, partition_probe, rkey_guess)
  std::string slid_of;               // forged_slid: the HCA whose LID the packets carry
  std::uint16_t p_key_index = 0;     // partition_probe: the entry of the attacker's P_Key table
  std::vector<std::string> switches;  // rogue_smp: the switches attacked (empty: every switch)
  std::uint64_t m_key = 0;           // rogue_smp: the M_Key the SMPs carry (the attacker's guess)
  std::uint64_t packets = 8;         // packets (SMPs) sent; rkey_guess: attempts
  bool from_time_zero = false;       // `at: bring_up`: start counts from time 0, not phases.start
  Time start = 0;
  Time interval = kUs;               // between two packets (0: as fast as the port sends them)
};

// Reads `attacks:` (a list of maps). HCA, switch and flow names are checked against `s` (its
// topology and verbs flows, already read). Throws InputError naming file:line:col.
std::vector<AttackSpec> parse_attacks(const std::vector<YamlValue>& list, const Scenario& s);

}  // namespace ibfsim
