#include "sim/workload/otf2_trace_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include "sim/core/error.h"

#ifdef IBFSIM_HAVE_OTF2
#include <otf2/otf2.h>
#endif

namespace ibfsim {

#ifndef IBFSIM_HAVE_OTF2

bool otf2_supported() { return false; }

MpiTrace read_otf2_trace(const std::string& anchor, const std::string& where) {
  throw InputError(fmt::format("{}{}: this ibfsim was built without OTF2 (install libotf2-trace-dev and "
                               "configure again) and cannot replay a trace",
                               where.empty() ? "" : where + ": ", anchor));
}

#else

bool otf2_supported() { return true; }

namespace {

// OTF2 prints its errors to stderr unless given a callback: keep the first of a read instead, for
// the InputError (the callback is process-wide; a read registers it, with the read's string as its
// data, and restores the former one).
OTF2_ErrorCode keep_otf2_message(void* message, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                                 const char* format, va_list va) {
  char text[512];
  std::vsnprintf(text, sizeof text, format, va);
  auto* kept = static_cast<std::string*>(message);
  if (kept && kept->empty()) *kept = text;
  return code;
}

struct Group {
  OTF2_GroupType type = OTF2_GROUP_TYPE_UNKNOWN;
  OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
  std::vector<std::uint64_t> members;
};

// One location's progress through its records.
struct Cursor {
  int depth = 0;                   // MPI regions entered and not left
  Time entered = 0;                // the outermost one's Enter
  std::size_t first_open = 0;      // calls made inside it start here
  std::optional<Time> collective_begin;
  std::map<std::uint64_t, std::size_t> requests;  // posted and not completed: request -> its call
};

struct State {
  std::string prefix;  // "where: file"
  std::uint64_t resolution = 0, offset = 0, length = 0;
  bool clock = false;
  std::map<OTF2_GroupRef, Group> groups;
  std::map<OTF2_CommRef, OTF2_GroupRef> comms;
  std::map<OTF2_RegionRef, OTF2_Paradigm> regions;
  std::map<OTF2_StringRef, std::string> strings;
  std::map<OTF2_LocationRef, std::string> location_names;
  std::map<OTF2_LocationRef, std::uint32_t> rank_of;  // from the MPI locations group
  std::vector<Cursor> cursors;
  MpiTrace trace;
  std::string error;
  std::string otf2_message;  // OTF2's own, if it had one
  // ": what OTF2 said", or nothing.
  std::string said() const { return otf2_message.empty() ? "" : ": " + otf2_message; }

  OTF2_CallbackCode fail(std::string what) {
    if (error.empty()) error = prefix + ": " + std::move(what);
    return OTF2_CALLBACK_INTERRUPT;
  }
  Time at(OTF2_TimeStamp t) const { return trace_ticks_to_fs(t < offset ? 0 : t - offset, resolution); }
  // The world rank of `location`, or nullopt after failing.
  std::optional<std::uint32_t> rank(OTF2_LocationRef location, const char* record) {
    auto it = rank_of.find(location);
    if (it == rank_of.end()) {
      fail(fmt::format("an {} record on location {}, which is not in the MPI locations group", record, location));
      return std::nullopt;
    }
    return it->second;
  }
  // The members of communicator `comm` (world ranks), or nullptr after failing.
  const std::vector<std::uint64_t>* comm_members(OTF2_CommRef comm, std::uint32_t rank, const char* record) {
    auto c = comms.find(comm);
    auto g = c == comms.end() ? groups.end() : groups.find(c->second);
    if (g == groups.end()) {
      fail(fmt::format("rank {}: an {} record names communicator {}, which the definitions lack", rank, record, comm));
      return nullptr;
    }
    return &g->second.members;
  }
  void add(std::uint32_t rank, MpiCall call, OTF2_TimeStamp t) {
    Cursor& c = cursors[rank];
    call.end = at(t);
    if (call.begin == 0 && call.kind != MpiCallKind::kCollective) call.begin = call.end;
    if (c.depth > 0) call.begin = c.entered;  // the region's Leave sets the end
    trace.ranks[rank].calls.push_back(call);
  }
};

State& state(void* user) { return *static_cast<State*>(user); }

OTF2_CallbackCode on_clock(void* user, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t) {
  State& s = state(user);
  if (resolution == 0) return s.fail("its clock properties give a timer resolution of 0 ticks per second");
  s.resolution = resolution, s.offset = offset, s.length = length, s.clock = true;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_group(void* user, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type, OTF2_Paradigm paradigm,
                           OTF2_GroupFlag, uint32_t n, const uint64_t* members) {
  state(user).groups[self] = Group{type, paradigm, std::vector<std::uint64_t>(members, members + n)};
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_comm(void* user, OTF2_CommRef self, OTF2_StringRef, OTF2_GroupRef group, OTF2_CommRef,
                          OTF2_CommFlag) {
  state(user).comms[self] = group;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_region(void* user, OTF2_RegionRef self, OTF2_StringRef, OTF2_StringRef, OTF2_StringRef,
                            OTF2_RegionRole, OTF2_Paradigm paradigm, OTF2_RegionFlag, OTF2_StringRef, uint32_t,
                            uint32_t) {
  state(user).regions[self] = paradigm;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_string(void* user, OTF2_StringRef self, const char* text) {
  state(user).strings[self] = text;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_location(void* user, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType, uint64_t,
                              OTF2_LocationGroupRef) {
  State& s = state(user);
  auto it = s.strings.find(name);
  s.location_names[self] = it == s.strings.end() ? "" : it->second;
  return OTF2_CALLBACK_SUCCESS;
}

bool is_mpi_region(const State& s, OTF2_RegionRef r) {
  auto it = s.regions.find(r);
  return it != s.regions.end() && it->second == OTF2_PARADIGM_MPI;
}

OTF2_CallbackCode on_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, void* user, OTF2_AttributeList*, OTF2_RegionRef r) {
  State& s = state(user);
  if (!is_mpi_region(s, r)) return OTF2_CALLBACK_SUCCESS;
  auto rank = s.rank(loc, "Enter");
  if (!rank) return OTF2_CALLBACK_INTERRUPT;
  Cursor& c = s.cursors[*rank];
  if (c.depth++ == 0) c.entered = s.at(t), c.first_open = s.trace.ranks[*rank].calls.size();
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, void* user, OTF2_AttributeList*, OTF2_RegionRef r) {
  State& s = state(user);
  if (!is_mpi_region(s, r)) return OTF2_CALLBACK_SUCCESS;
  auto rank = s.rank(loc, "Leave");
  if (!rank) return OTF2_CALLBACK_INTERRUPT;
  Cursor& c = s.cursors[*rank];
  if (c.depth == 0) return s.fail(fmt::format("rank {}: a Leave of an MPI region it never entered", *rank));
  if (--c.depth == 0) {
    auto& calls = s.trace.ranks[*rank].calls;
    for (std::size_t i = c.first_open; i < calls.size(); ++i) calls[i].end = s.at(t);
  }
  return OTF2_CALLBACK_SUCCESS;
}

// The world rank of rank `peer` of communicator `comm`, or nullopt after failing.
std::optional<std::uint32_t> world_peer(State& s, std::uint32_t rank, const char* record, OTF2_CommRef comm,
                                        uint32_t peer) {
  const auto* members = s.comm_members(comm, rank, record);
  if (!members) return std::nullopt;
  if (peer >= members->size()) {
    s.fail(fmt::format("rank {}: an {} record names rank {} of a communicator of {}", rank, record, peer,
                       members->size()));
    return std::nullopt;
  }
  const auto world = static_cast<std::uint32_t>((*members)[peer]);
  if (world >= s.trace.ranks.size()) {
    s.fail(fmt::format("rank {}: an {} record names world rank {} of {}", rank, record, world, s.trace.ranks.size()));
    return std::nullopt;
  }
  return world;
}

OTF2_CallbackCode point_to_point(MpiCallKind kind, const char* record, OTF2_LocationRef loc, OTF2_TimeStamp t,
                                 void* user, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  State& s = state(user);
  auto rank = s.rank(loc, record);
  if (!rank) return OTF2_CALLBACK_INTERRUPT;
  auto world = world_peer(s, *rank, record, comm, peer);
  if (!world) return OTF2_CALLBACK_INTERRUPT;
  MpiCall call;
  call.kind = kind;
  call.peer = *world;
  call.tag = tag;
  call.bytes = bytes;
  s.add(*rank, call, t);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_send(OTF2_LocationRef loc, OTF2_TimeStamp t, void* user, OTF2_AttributeList*, uint32_t peer,
                          OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return point_to_point(MpiCallKind::kSend, "MpiSend", loc, t, user, peer, comm, tag, bytes);
}

OTF2_CallbackCode on_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, void* user, OTF2_AttributeList*, uint32_t peer,
                          OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return point_to_point(MpiCallKind::kRecv, "MpiRecv", loc, t, user, peer, comm, tag, bytes);
}

OTF2_CallbackCode on_collective_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, void* user, OTF2_AttributeList*) {
  State& s = state(user);
  auto rank = s.rank(loc, "MpiCollectiveBegin");
  if (!rank) return OTF2_CALLBACK_INTERRUPT;
  s.cursors[*rank].collective_begin = s.at(t);
  return OTF2_CALLBACK_SUCCESS;
}

std::optional<MpiCollectiveOp> collective_op(OTF2_CollectiveOp op) {
  switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: return MpiCollectiveOp::kBarrier;
    case OTF2_COLLECTIVE_OP_BCAST: return MpiCollectiveOp::kBcast;
    case OTF2_COLLECTIVE_OP_REDUCE: return MpiCollectiveOp::kReduce;
    case OTF2_COLLECTIVE_OP_ALLREDUCE: return MpiCollectiveOp::kAllreduce;
    case OTF2_COLLECTIVE_OP_ALLGATHER: return MpiCollectiveOp::kAllgather;
    case OTF2_COLLECTIVE_OP_ALLTOALL: return MpiCollectiveOp::kAlltoall;
    default: return std::nullopt;
  }
}

OTF2_CallbackCode on_collective_end(OTF2_LocationRef loc, OTF2_TimeStamp t, void* user, OTF2_AttributeList*,
                                    OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                    uint64_t received) {
  State& s = state(user);
  auto rank = s.rank(loc, "MpiCollectiveEnd");
  if (!rank) return OTF2_CALLBACK_INTERRUPT;
  auto known = collective_op(op);
  if (!known)
    return s.fail(fmt::format("rank {}: collective operation {} (OTF2_CollectiveOp) is not supported; expected "
                              "barrier, bcast, reduce, allreduce, allgather or alltoall",
                              *rank, static_cast<int>(op)));
  const auto* members = s.comm_members(comm, *rank, "MpiCollectiveEnd");
  if (!members) return OTF2_CALLBACK_INTERRUPT;
  for (const std::uint64_t m : *members)
    if (m >= s.trace.ranks.size())
      return s.fail(fmt::format("rank {}: a collective over a communicator naming world rank {} of {}", *rank, m,
                                s.trace.ranks.size()));
  if (std::find(members->begin(), members->end(), *rank) == members->end())
    return s.fail(fmt::format("rank {}: a collective over a communicator the rank is not in", *rank));
  MpiCall call;
  call.kind = MpiCallKind::kCollective;
  call.op = *known;
  call.root = root == OTF2_UNDEFINED_UINT32 ? kNoRoot : static_cast<std::uint32_t>((*members)[root % members->size()]);
  call.bytes_sent = sent;
  call.bytes_received = received;
  call.comm_size = static_cast<std::uint32_t>(members->size());
  call.comm.assign(members->begin(), members->end());
  Cursor& c = s.cursors[*rank];
  call.begin = c.collective_begin.value_or(s.at(t));
  c.collective_begin.reset();
  s.add(*rank, call, t);
  return OTF2_CALLBACK_SUCCESS;
}

// Non-blocking calls: MpiIsend and MpiIrecvRequest post a request (in MPI_Isend, MPI_Irecv);
// MpiIsendComplete and MpiIrecv complete it, in the MPI call that waited for it (MPI_Wait,
// MPI_Waitall, a successful MPI_Test): that call is where the rank waits. Request ids are the
// rank's own.
OTF2_CallbackCode post_request(State& s, std::uint32_t rank, const char* record, MpiCall call, uint64_t request,
                               OTF2_TimeStamp t) {
  Cursor& c = s.cursors[rank];
  if (c.requests.count(request))
    return s.fail(fmt::format("rank {}: an {} record reuses request {}, which has not completed", rank, record, request));
  call.request = request;
  c.requests[request] = s.trace.ranks[rank].calls.size();
  s.add(rank, call, t);
  return OTF2_CALLBACK_SUCCESS;
}

// The call that posted `request` on `rank` (removed from the open ones), or nullopt after failing.
std::optional<std::size_t> complete_request(State& s, std::uint32_t rank, const char* record, uint64_t request,
                                            MpiCallKind posted_as) {
  Cursor& c = s.cursors[rank];
  auto it = c.requests.find(request);
  const char* expected = posted_as == MpiCallKind::kIsend ? "MpiIsend" : "MpiIrecvRequest";
  if (it == c.requests.end() || s.trace.ranks[rank].calls[it->second].kind != posted_as) {
    s.fail(fmt::format("rank {}: an {} record completes request {}, which no {} record of the rank posted", rank,
                       record, request, expected));
    return std::nullopt;
  }
  const std::size_t posted = it->second;
  c.requests.erase(it);
  return posted;
}

OTF2_CallbackCode on_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, void* user, OTF2_AttributeList*, uint32_t peer,
                           OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request) {
  State& s = state(user);
  auto rank = s.rank(loc, "MpiIsend");
  if (!rank) return OTF2_CALLBACK_INTERRUPT;
  auto world = world_peer(s, *rank, "MpiIsend", comm, peer);
  if (!world) return OTF2_CALLBACK_INTERRUPT;
  MpiCall call;
  call.kind = MpiCallKind::kIsend;
  call.peer = *world, call.tag = tag, call.bytes = bytes;
  return post_request(s, *rank, "MpiIsend", call, request, t);
}

OTF2_CallbackCode on_isend_complete(OTF2_LocationRef loc, OTF2_TimeStamp t, void* user, OTF2_AttributeList*,
                                    uint64_t request) {
  State& s = state(user);
  auto rank = s.rank(loc, "MpiIsendComplete");
  if (!rank) return OTF2_CALLBACK_INTERRUPT;
  auto posted = complete_request(s, *rank, "MpiIsendComplete", request, MpiCallKind::kIsend);
  if (!posted) return OTF2_CALLBACK_INTERRUPT;
  MpiCall call = s.trace.ranks[*rank].calls[*posted];
  call.kind = MpiCallKind::kWait;
  call.posted_call = static_cast<std::uint32_t>(*posted);
  call.completes_send = true;
  call.begin = 0;
  s.add(*rank, call, t);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_irecv_request(OTF2_LocationRef loc, OTF2_TimeStamp t, void* user, OTF2_AttributeList*,
                                   uint64_t request) {
  State& s = state(user);
  auto rank = s.rank(loc, "MpiIrecvRequest");
  if (!rank) return OTF2_CALLBACK_INTERRUPT;
  MpiCall call;
  call.kind = MpiCallKind::kIrecv;
  return post_request(s, *rank, "MpiIrecvRequest", call, request, t);
}

OTF2_CallbackCode on_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void* user, OTF2_AttributeList*, uint32_t peer,
                           OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request) {
  State& s = state(user);
  auto rank = s.rank(loc, "MpiIrecv");
  if (!rank) return OTF2_CALLBACK_INTERRUPT;
  auto world = world_peer(s, *rank, "MpiIrecv", comm, peer);
  if (!world) return OTF2_CALLBACK_INTERRUPT;
  auto posted = complete_request(s, *rank, "MpiIrecv", request, MpiCallKind::kIrecv);
  if (!posted) return OTF2_CALLBACK_INTERRUPT;
  // The receive's sender, tag and bytes are known only now: the posting call gets them too.
  MpiCall& irecv = s.trace.ranks[*rank].calls[*posted];
  irecv.peer = *world, irecv.tag = tag, irecv.bytes = bytes;
  MpiCall call = irecv;
  call.kind = MpiCallKind::kWait;
  call.posted_call = static_cast<std::uint32_t>(*posted);
  call.completes_send = false;
  call.begin = 0;
  s.add(*rank, call, t);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_request_cancelled(OTF2_LocationRef loc, OTF2_TimeStamp, void* user, OTF2_AttributeList*,
                                       uint64_t request) {
  State& s = state(user);
  auto rank = s.rank(loc, "MpiRequestCancelled");
  if (!rank) return OTF2_CALLBACK_INTERRUPT;
  return s.fail(fmt::format("rank {}: request {} is cancelled (MpiRequestCancelled); a replay cannot cancel a "
                            "message (expected every request to complete)",
                            *rank, request));
}

// Closes the reader however the read ends.
struct ReaderHandle {
  OTF2_Reader* r = nullptr;
  ~ReaderHandle() {
    if (r) OTF2_Reader_Close(r);
  }
};

void check(State& s, OTF2_ErrorCode code, const char* step) {
  if (!s.error.empty()) throw InputError(s.error);
  if (code != OTF2_SUCCESS)
    throw InputError(fmt::format("{}: not a readable OTF2 archive ({}: {}{})", s.prefix, step,
                                 OTF2_Error_GetDescription(code), s.said()));
}

void read_definitions(OTF2_Reader* reader, State& s) {
  OTF2_GlobalDefReader* defs = OTF2_Reader_GetGlobalDefReader(reader);
  if (!defs) throw InputError(s.prefix + ": not a readable OTF2 archive (no global definitions" + s.said() + ")");
  OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
  OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, cb, &s);
  OTF2_GlobalDefReaderCallbacks_Delete(cb);
  std::uint64_t n = 0;
  check(s, OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &n), "global definitions");
  OTF2_Reader_CloseGlobalDefReader(reader, defs);
  if (!s.clock) throw InputError(s.prefix + ": the trace has no clock properties (expected its timer resolution)");

  const Group* world = nullptr;
  for (const auto& [ref, g] : s.groups)
    if (g.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && g.paradigm == OTF2_PARADIGM_MPI) world = &g;
  if (!world || world->members.empty())
    throw InputError(s.prefix + ": no MPI locations group (a COMM_LOCATIONS group of paradigm MPI naming each "
                                "rank's location); is this an MPI trace?");
  for (std::size_t i = 0; i < world->members.size(); ++i) {
    s.rank_of[world->members[i]] = static_cast<std::uint32_t>(i);
    MpiTraceRank rank;
    auto name = s.location_names.find(world->members[i]);
    rank.name = name == s.location_names.end() ? "" : name->second;
    s.trace.ranks.push_back(rank);
  }
  s.cursors.resize(world->members.size());
}

void read_events(OTF2_Reader* reader, State& s) {
  for (const auto& [location, rank] : s.rank_of) check(s, OTF2_Reader_SelectLocation(reader, location), "locations");
  check(s, OTF2_Reader_OpenDefFiles(reader), "local definitions");
  check(s, OTF2_Reader_OpenEvtFiles(reader), "event files");
  for (const auto& [location, rank] : s.rank_of) {
    // Reading a location's local definitions loads its mappings; a location may have none.
    if (OTF2_DefReader* d = OTF2_Reader_GetDefReader(reader, location)) {
      std::uint64_t n = 0;
      OTF2_Reader_ReadAllLocalDefinitions(reader, d, &n);
      OTF2_Reader_CloseDefReader(reader, d);
    }
    OTF2_Reader_GetEvtReader(reader, location);
  }
  OTF2_Reader_CloseDefFiles(reader);

  OTF2_GlobalEvtReader* events = OTF2_Reader_GetGlobalEvtReader(reader);
  if (!events) throw InputError(s.prefix + ": not a readable OTF2 archive (no events" + s.said() + ")");
  OTF2_GlobalEvtReaderCallbacks* cb = OTF2_GlobalEvtReaderCallbacks_New();
  OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_enter);
  OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
  OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_collective_begin);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_collective_end);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_request);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_complete);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, on_request_cancelled);
  OTF2_Reader_RegisterGlobalEvtCallbacks(reader, events, cb, &s);
  OTF2_GlobalEvtReaderCallbacks_Delete(cb);
  std::uint64_t n = 0;
  OTF2_ErrorCode code = OTF2_Reader_ReadAllGlobalEvents(reader, events, &n);
  check(s, code, "events");
  OTF2_Reader_CloseGlobalEvtReader(reader, events);
  OTF2_Reader_CloseEvtFiles(reader);
  for (std::size_t r = 0; r < s.cursors.size(); ++r) {
    if (s.cursors[r].depth != 0)
      throw InputError(fmt::format("{}: rank {} ends inside an MPI region (an Enter without its Leave)", s.prefix, r));
    if (!s.cursors[r].requests.empty()) {
      const auto& [request, call] = *s.cursors[r].requests.begin();
      const bool send = s.trace.ranks[r].calls[call].kind == MpiCallKind::kIsend;
      throw InputError(fmt::format("{}: rank {}: request {} ({}) never completes (expected its {} record, in the "
                                   "MPI_Wait or MPI_Test that completed it)",
                                   s.prefix, r, request, send ? "MpiIsend" : "MpiIrecvRequest",
                                   send ? "MpiIsendComplete" : "MpiIrecv"));
    }
  }
}

}  // namespace

MpiTrace read_otf2_trace(const std::string& anchor, const std::string& where) {
  State s;
  s.prefix = where.empty() ? anchor : where + ": " + anchor;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(anchor, ec))
    throw InputError(s.prefix + ": no such file (expected an OTF2 archive's anchor file, NAME.otf2)");
  struct Restore {
    OTF2_ErrorCallback former;
    ~Restore() { OTF2_Error_RegisterCallback(former, nullptr); }
  } restore{OTF2_Error_RegisterCallback(keep_otf2_message, &s.otf2_message)};
  ReaderHandle reader{OTF2_Reader_Open(anchor.c_str())};
  if (!reader.r) throw InputError(s.prefix + ": not a readable OTF2 archive" + s.said());
  check(s, OTF2_Reader_SetSerialCollectiveCallbacks(reader.r), "opening");
  read_definitions(reader.r, s);
  read_events(reader.r, s);
  s.trace.file = anchor;
  s.trace.timer_resolution = s.resolution;
  s.trace.global_offset = s.offset;
  s.trace.duration = trace_ticks_to_fs(s.length, s.resolution);
  set_compute_gaps(s.trace);
  return std::move(s.trace);
}

#endif

}  // namespace ibfsim
