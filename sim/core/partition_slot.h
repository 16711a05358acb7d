// Which partition's window the running thread is in (calendar_process.h, docs/architecture.md
// "Partitions"): 0 outside any (the simulation's thread at barriers, in global instants, during
// set-up and in runs without windows), k + 1 while it runs partition k's events. Set by
// CalendarProcess; read by what keeps one copy of its counts per partition so that partitions
// running on threads of their own never write the same memory (PacketPool, PacketLedger).
#pragma once

namespace ibfsim {

inline thread_local unsigned partition_slot = 0;

}  // namespace ibfsim
