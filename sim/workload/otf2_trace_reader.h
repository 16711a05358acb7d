// Reads an MPI application's OTF2 trace (as Score-P or python3-otf2 write it) into plain data
// (mpi_trace.h). The only file that includes OTF2; built without it (libotf2-trace-dev absent) it
// refuses every trace with an InputError.
//
// What it takes from the archive: the clock properties (timer resolution, global offset, length:
// every time is converted to femtoseconds from the trace's start); the MPI locations group
// (COMM_LOCATIONS, paradigm MPI: its i-th location is world rank i); the communicators (their
// groups map a rank of the communicator to a world rank); per location, its MpiSend, MpiRecv and
// MpiCollectiveEnd records, each timed by the MPI region (paradigm MPI) around it (its Enter and
// Leave), or by the record itself when there is none. Non-blocking calls (MpiIsend, MpiIrecv,
// their requests) and collectives other than barrier, bcast, reduce, allreduce, allgather and
// alltoall are refused, naming the file, the rank and the record. Other records are ignored.
#pragma once
#include <string>

#include "sim/workload/mpi_trace.h"

namespace ibfsim {

// Whether this build reads OTF2.
bool otf2_supported();

// `anchor`: the archive's .otf2 file. `where`: what to name in messages before the file (the
// scenario's location of the key, or empty). Throws InputError.
MpiTrace read_otf2_trace(const std::string& anchor, const std::string& where = "");

}  // namespace ibfsim
