// How a run's partitions used their threads (calendar_process.h, "Partitions and windows"), for
// the run's summary line: the threads the partitions of a window ran on (the simulation's and its
// workers: partition_workers.h), and the windows handed to them (those in which more than one
// partition had events; the others ran on the simulation's thread alone).
#pragma once
#include <cstdint>

namespace ibfsim {

unsigned partition_threads();
std::uint64_t threaded_windows();

}  // namespace ibfsim
