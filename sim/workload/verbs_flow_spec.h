// A verbs flow of a scenario (`workload:` entries with `transport: rc | uc | ud`): one queue pair
// between two HCAs driven the way perftest's ib_*_bw and ib_*_lat drive theirs, through the HCA's
// verbs API. Every key is documented in docs/scenario.md; the defaults are perftest's.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "sim/core/time.h"
#include "sim/transport/verbs.h"

namespace ibfsim {

class YamlMap;

enum class Verb : std::uint8_t { kSend, kSendImm, kWrite, kWriteImm, kRead, kCmpSwap, kFetchAdd };
const char* verb_name(Verb v);  // as written in YAML: send, send_imm, write, ...
verbs::ibv_wr_opcode verb_opcode(Verb v);
inline bool verb_is_send(Verb v) { return v == Verb::kSend || v == Verb::kSendImm; }
inline bool verb_is_write(Verb v) { return v == Verb::kWrite || v == Verb::kWriteImm; }
inline bool verb_is_atomic(Verb v) { return v == Verb::kCmpSwap || v == Verb::kFetchAdd; }
// The target consumes a receive WQE per message: SEND (with or without immediate), WRITE with immediate.
inline bool verb_needs_recv(Verb v) { return verb_is_send(v) || v == Verb::kWriteImm; }

// perftest's two kinds of test: bw keeps tx_depth messages outstanding and reports bandwidth;
// lat sends one at a time (SEND and WRITE as ping-pong, half the round trip; READ and atomics
// post to completion) and reports latency.
enum class VerbsTest : std::uint8_t { kBw, kLat };

// Queue pair attributes (ibv_modify_qp), perftest's values by default.
struct VerbsQpSpec {
  verbs::ibv_mtu mtu = verbs::IBV_MTU_4096;
  std::uint8_t timeout = 14;        // local ACK timeout 4.096 us x 2^14 (perftest DEF_QP_TIME)
  std::uint8_t retry_cnt = 7;
  std::uint8_t rnr_retry = 7;       // 7 = forever
  std::uint8_t min_rnr_timer = 12;  // 0.64 ms (perftest MIN_RNR_TIMER)
  std::uint8_t max_rd_atomic = 16;  // max_rd_atomic and max_dest_rd_atomic (ConnectX: 16)
  std::uint16_t pkey_index = 0;
  std::uint32_t q_key = 0x11111111;  // UD (perftest DEF_QKEY)
};

// The target's side of a flow, for protection studies: which R_Key, address and access rights
// the requests meet, and (UD) which Q_Key the sender puts in its work requests.
struct VerbsRemoteSpec {
  bool wrong_rkey = false;     // R_Key of no registered region
  std::uint64_t offset = 0;    // added to every remote address: past the region's end if large enough
  std::optional<unsigned> access;  // the target region's ibv_access_flags; unset: what the verb needs
  std::optional<std::uint32_t> q_key;  // UD: the remote Q_Key in the work requests; unset: the target's
};

// `window:` the target's region is reached only through a memory window (memory_window.h) that the
// target binds on its QP at the flow's start; the requests name the window's R_Key. With
// `invalidate_after: n`, once n messages have completed the requester sends a SEND with
// Invalidate naming that R_Key (zero bytes, into a receive the target posted for it), waits for
// its completion, then posts the rest, which meet the invalidated window.
struct VerbsWindowSpec {
  verbs::ibv_mw_type type = verbs::IBV_MW_TYPE_2;
  std::optional<unsigned> access;                 // the window's rights; unset: what the verb needs
  std::optional<std::uint64_t> invalidate_after;  // messages completed before the SEND with Invalidate
};

// How the two QPs are connected: `static`, RESET -> INIT -> RTR -> RTS at setup (perftest's
// out-of-band exchange); `cm`, through the Communication Manager: a PathRecord query to the SA,
// then REQ, REP, RTU (verbs_flow_cm.cpp), the first message posted once the QP is in RTS.
enum class VerbsConnect : std::uint8_t { kStatic, kCm };

struct VerbsFlowSpec {
  std::string name;
  verbs::ibv_qp_type type = verbs::IBV_QPT_RC;
  Verb verb = Verb::kWrite;
  VerbsTest test = VerbsTest::kBw;
  std::string from, to;              // HCA names
  std::uint32_t message_size = 65536;
  std::uint64_t iterations = 5000;   // messages to complete (each side, for ping-pong)
  std::optional<Time> duration;      // instead of iterations: post for this long, then drain
  std::uint32_t tx_depth = 128;      // messages outstanding (perftest -t)
  std::uint32_t rx_depth = 512;      // receives kept posted at the target
  std::uint32_t inline_size = 0;     // messages up to this size are posted IBV_SEND_INLINE
  Time start = 0;                    // after phases.start
  Time recv_post_delay = 0;          // the target posts each receive this much later
  std::uint8_t sl = 0;
  VerbsQpSpec qp;
  VerbsRemoteSpec remote;
  std::optional<VerbsWindowSpec> window;
  VerbsConnect connect = VerbsConnect::kStatic;
  // The target's QP takes its receives from its HCA's server SRQ (server_srq.h), shared with the
  // other flows with srq: true to that HCA, instead of rx_depth receives of its own.
  bool srq = false;
};

// The largest message (perftest MAX_SIZE) and inline sizes (MAX_INLINE, MAX_INLINE_UD).
constexpr std::uint32_t kMaxVerbsMessage = 8u << 20;
constexpr std::uint32_t kMaxInline = 912, kMaxInlineUd = 884;
// A UD receive buffer starts with room for a GRH (40 bytes), used or not.
constexpr std::uint32_t kUdRecvGrhRoom = 40;
// With data checking each outstanding message has its own buffer: tx_depth x message_size at most this.
constexpr std::uint64_t kMaxCheckedBytes = 256u << 20;

// True if `transport` names a verbs flow (rc, uc, ud) rather than the UD traffic generator.
bool is_verbs_transport(const std::string& transport);

// Reads one verbs flow (a `workload:` map whose transport is rc, uc or ud). Names of HCAs are
// checked by the caller (they need the topology). `data_check`: outputs.data_check, which bounds
// the buffers. Throws InputError naming file:line:col.
VerbsFlowSpec parse_verbs_flow(const YamlMap& m, std::size_t index, bool data_check);

}  // namespace ibfsim
