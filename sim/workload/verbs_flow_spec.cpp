#include "sim/workload/verbs_flow_spec.h"

#include "sim/fabric/yaml_input.h"

namespace ibfsim {

using namespace verbs;

namespace {

struct VerbName {
  const char* name;
  Verb verb;
};
constexpr VerbName kVerbs[] = {{"send", Verb::kSend},         {"send_imm", Verb::kSendImm}, {"write", Verb::kWrite},
                               {"write_imm", Verb::kWriteImm}, {"read", Verb::kRead},        {"cmp_swap", Verb::kCmpSwap},
                               {"fetch_add", Verb::kFetchAdd}};

unsigned parse_access(const YamlValue& v, bool window = false) {
  unsigned a = 0;
  for (const YamlValue& e : v.as_list()) {
    const std::string s = e.as<std::string>();
    if (s == "local_write") a |= IBV_ACCESS_LOCAL_WRITE;
    else if (s == "remote_write") a |= IBV_ACCESS_REMOTE_WRITE;
    else if (s == "remote_read") a |= IBV_ACCESS_REMOTE_READ;
    else if (s == "remote_atomic") a |= IBV_ACCESS_REMOTE_ATOMIC;
    else e.fail(window ? "remote_write, remote_read or remote_atomic" : "local_write, remote_write, remote_read or remote_atomic");
  }
  if (window) {
    // A window grants remote rights only (the region under it has local write: memory_window.h).
    if (a & IBV_ACCESS_LOCAL_WRITE) v.fail("remote_write, remote_read or remote_atomic (a window grants remote rights only)");
    return a;
  }
  // libibverbs refuses remote write or atomic access without local write (ibv_reg_mr: EINVAL).
  if ((a & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(a & IBV_ACCESS_LOCAL_WRITE))
    v.fail("local_write with remote_write or remote_atomic (ibv_reg_mr requires it)");
  return a;
}

VerbsQpSpec parse_qp(const YamlMap& m) {
  m.check_no_unknown_keys(
      {"mtu", "timeout", "retry_cnt", "rnr_retry", "min_rnr_timer", "max_rd_atomic", "pkey_index", "q_key"});
  VerbsQpSpec q;
  if (auto v = m.find("mtu")) {
    const auto mtu = v->as<std::uint32_t>();
    bool ok = false;
    for (int code = IBV_MTU_256; code <= IBV_MTU_4096; ++code)
      if (mtu_bytes(static_cast<ibv_mtu>(code)) == mtu) q.mtu = static_cast<ibv_mtu>(code), ok = true;
    if (!ok) v->fail("an IB MTU: 256, 512, 1024, 2048 or 4096");
  }
  q.timeout = m.optional_in_range<std::uint8_t>("timeout", q.timeout, 0, 31);
  q.retry_cnt = m.optional_in_range<std::uint8_t>("retry_cnt", q.retry_cnt, 0, 7);
  q.rnr_retry = m.optional_in_range<std::uint8_t>("rnr_retry", q.rnr_retry, 0, 7);
  q.min_rnr_timer = m.optional_in_range<std::uint8_t>("min_rnr_timer", q.min_rnr_timer, 0, 31);
  q.max_rd_atomic = m.optional_in_range<std::uint8_t>("max_rd_atomic", q.max_rd_atomic, 1, 16);
  q.pkey_index = m.optional_in_range<std::uint16_t>("pkey_index", q.pkey_index, 0, 0xFFFF);
  q.q_key = m.optional<std::uint32_t>("q_key", q.q_key);
  return q;
}

VerbsWindowSpec parse_window(const YamlValue& wv, const VerbsFlowSpec& f) {
  // SEND with Invalidate and memory windows are RC's (IBA Vol1 ch. 9-10); a window reaches remote
  // memory, so the verb must name some; one message stream (bw) keeps the story plain.
  if (f.type != IBV_QPT_RC) wv.fail("no window: memory windows are modelled on RC flows");
  if (verb_needs_recv(f.verb) || verb_is_send(f.verb))
    wv.fail("no window: the verb must reach remote memory (write, read, cmp_swap or fetch_add)");
  if (f.test != VerbsTest::kBw) wv.fail("no window on a latency test (test: bw)");
  YamlMap m = wv.as_map();
  m.check_no_unknown_keys({"type", "access", "invalidate_after"});
  VerbsWindowSpec w;
  if (auto v = m.find("type")) w.type = v->as_in_range<int>(1, 2) == 1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2;
  if (auto v = m.find("access")) w.access = parse_access(*v, true);
  if (auto v = m.find("invalidate_after")) {
    if (f.duration) v->fail("iterations, not duration, with invalidate_after");
    if (f.iterations < 2) v->fail("iterations of at least 2 with invalidate_after (messages before and after)");
    w.invalidate_after = v->as_in_range<std::uint64_t>(1, f.iterations - 1);
  }
  return w;
}

}  // namespace

const char* verb_name(Verb v) {
  for (const auto& n : kVerbs)
    if (n.verb == v) return n.name;
  return "?";
}

ibv_wr_opcode verb_opcode(Verb v) {
  switch (v) {
    case Verb::kSend: return IBV_WR_SEND;
    case Verb::kSendImm: return IBV_WR_SEND_WITH_IMM;
    case Verb::kWrite: return IBV_WR_RDMA_WRITE;
    case Verb::kWriteImm: return IBV_WR_RDMA_WRITE_WITH_IMM;
    case Verb::kRead: return IBV_WR_RDMA_READ;
    case Verb::kCmpSwap: return IBV_WR_ATOMIC_CMP_AND_SWP;
    case Verb::kFetchAdd: return IBV_WR_ATOMIC_FETCH_AND_ADD;
  }
  return IBV_WR_SEND;
}

bool is_verbs_transport(const std::string& t) { return t == "rc" || t == "uc" || t == "ud"; }

VerbsFlowSpec parse_verbs_flow(const YamlMap& m, std::size_t index, bool data_check) {
  m.check_no_unknown_keys({"name", "transport", "verb", "test", "from", "to", "message_size", "iterations",
                           "duration", "tx_depth", "rx_depth", "inline_size", "start", "recv_post_delay", "sl",
                           "qp", "remote", "window", "connect", "srq"});
  VerbsFlowSpec f;
  f.name = m.optional<std::string>("name", "flow" + std::to_string(index));
  const YamlValue transport = m.get("transport");
  const std::string t = transport.as<std::string>();
  f.type = t == "rc" ? IBV_QPT_RC : t == "uc" ? IBV_QPT_UC : IBV_QPT_UD;

  const YamlValue verb = m.get("verb");
  const std::string vs = verb.as<std::string>();
  bool known = false;
  for (const auto& n : kVerbs)
    if (vs == n.name) f.verb = n.verb, known = true;
  if (!known) verb.fail("send, send_imm, write, write_imm, read, cmp_swap or fetch_add");
  // What each transport carries (IBA Vol1 ch. 9, the opcodes): UC has no READ or atomics, UD only SEND.
  if (f.type == IBV_QPT_UD && !verb_is_send(f.verb)) verb.fail("send or send_imm on a UD flow");
  if (f.type == IBV_QPT_UC && (f.verb == Verb::kRead || verb_is_atomic(f.verb)))
    verb.fail("send, send_imm, write or write_imm on a UC flow (UC has no READ or atomics)");

  if (auto v = m.find("test")) {
    const std::string s = v->as<std::string>();
    if (s == "lat") f.test = VerbsTest::kLat;
    else if (s != "bw") v->fail("bw or lat");
  }
  const bool lat = f.test == VerbsTest::kLat;
  f.from = m.require<std::string>("from");
  f.to = m.require<std::string>("to");
  if (f.from == f.to) m.get("to").fail("an HCA other than 'from'", "'" + f.to + "'");
  f.qp = parse_qp(m.optional_map("qp"));
  f.sl = m.optional_in_range<std::uint8_t>("sl", 0, 0, 15);

  // perftest's defaults: 64 KiB x 5000 for bandwidth, 2 bytes x 1000 for latency, 8 for atomics.
  f.message_size = verb_is_atomic(f.verb) ? 8u : lat ? 2u : 65536u;
  if (auto v = m.find("message_size")) {
    if (verb_is_atomic(f.verb)) {
      if (v->as<std::uint64_t>() != 8) v->fail("8 (an atomic operates on 8 bytes)");
    } else if (f.type == IBV_QPT_UD) {
      f.message_size = v->as_in_range<std::uint32_t>(0, mtu_bytes(f.qp.mtu));  // one packet (R36)
    } else {
      f.message_size = v->as_in_range<std::uint32_t>(0, kMaxVerbsMessage);
    }
  } else if (f.type == IBV_QPT_UD) {
    f.message_size = std::min(f.message_size, mtu_bytes(f.qp.mtu));
  }
  f.iterations = lat ? 1000 : 5000;
  auto iters = m.find("iterations");
  if (iters && iters->is_null()) iters.reset();  // `--set workload.0.iterations=null` removes it
  if (iters) f.iterations = iters->as_in_range<std::uint64_t>(lat ? 2 : 1, 100'000'000);
  if (auto v = m.find("duration")) {
    if (iters) v->fail("either iterations or duration, not both", "both");
    f.duration = v->as_duration();
    if (*f.duration == 0) v->fail("a duration longer than 0");
  }
  f.tx_depth = lat ? 1 : 128;
  if (auto v = m.find("tx_depth")) {
    f.tx_depth = v->as_in_range<std::uint32_t>(1, 15000);
    if (lat && f.tx_depth != 1) v->fail("1 for a latency test (one message at a time)");
  }
  f.rx_depth = m.optional_in_range<std::uint32_t>("rx_depth", f.rx_depth, 1, 16384);
  // perftest's inline defaults: latency tests inline small SENDs and WRITEs, bandwidth tests none.
  if (lat && verb_is_write(f.verb)) f.inline_size = 220;
  if (lat && verb_is_send(f.verb)) f.inline_size = f.type == IBV_QPT_UD ? 188 : 236;
  if (auto v = m.find("inline_size")) {
    if (f.verb == Verb::kRead || verb_is_atomic(f.verb)) v->fail("no inline_size: a READ or an atomic carries no payload out");
    f.inline_size = v->as_in_range<std::uint32_t>(0, f.type == IBV_QPT_UD ? kMaxInlineUd : kMaxInline);
  }
  f.start = m.duration("start", 0);
  if (auto v = m.find("recv_post_delay")) {
    if (!verb_needs_recv(f.verb)) v->fail("no recv_post_delay: only send, send_imm and write_imm consume receives");
    f.recv_post_delay = v->as_duration();
  }
  if (auto r = m.find("remote")) {
    YamlMap rm = r->as_map();
    rm.check_no_unknown_keys({"rkey", "offset", "access", "q_key"});
    if (auto v = rm.find("rkey")) {
      if (f.type == IBV_QPT_UD || verb_is_send(f.verb)) v->fail("no rkey: a SEND names no remote memory");
      const std::string s = v->as<std::string>();
      if (s == "wrong") f.remote.wrong_rkey = true;
      else if (s != "valid") v->fail("valid or wrong");
    }
    if (auto v = rm.find("offset")) {
      if (verb_is_send(f.verb)) v->fail("no offset: a SEND names no remote address");
      f.remote.offset = v->as<std::uint64_t>();
      if (verb_is_atomic(f.verb) && f.remote.offset % 8 != 0) v->fail("a multiple of 8 (atomics are 8-byte aligned)");
    }
    if (auto v = rm.find("access")) f.remote.access = parse_access(*v);
    if (auto v = rm.find("q_key")) {
      if (f.type != IBV_QPT_UD) v->fail("no q_key: only UD flows carry a Q_Key");
      f.remote.q_key = v->as<std::uint32_t>();
    }
  }
  if (auto v = m.find("connect")) {
    const std::string s = v->as<std::string>();
    if (s == "cm") f.connect = VerbsConnect::kCm;
    else if (s != "static") v->fail("static or cm");
    if (f.connect == VerbsConnect::kCm && f.type == IBV_QPT_UD)
      v->fail("static on a UD flow (UD has no connection: the CM's REQ/REP/RTU are for RC and UC)", "cm");
  }
  if (auto w = m.find("window")) {
    if (f.remote.access) w->fail("either window.access or remote.access, not both (the region under a window "
                                 "grants local write and window binding)");
    f.window = parse_window(*w, f);
  }
  if (auto v = m.find("srq")) {
    f.srq = v->as<bool>();
    if (f.srq && !verb_needs_recv(f.verb)) v->fail("no srq: only send, send_imm and write_imm consume receives", "true");
    if (f.srq && lat) v->fail("no srq on a latency test (its target answers each message on its own QP)", "true");
    if (f.srq && f.window) v->fail("no srq with window: (the window's SEND with Invalidate needs its own receive)", "true");
    if (f.srq && data_check)
      v->fail("no srq with outputs.data_check (the SRQ's buffers are shared by the flows: no flow can tell which "
              "of its messages a buffer last held)",
              "true");
  }
  if (data_check) {
    const std::uint64_t slots = lat ? 1 : f.tx_depth;
    if (slots * f.message_size > kMaxCheckedBytes)
      m.fail("tx_depth x message_size of at most 256 MiB with outputs.data_check (each outstanding message "
             "has its own buffer)",
             std::to_string(slots * f.message_size) + " bytes");
  }
  return f;
}

}  // namespace ibfsim
