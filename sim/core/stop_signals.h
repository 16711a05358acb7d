// SIGINT, SIGTERM and SIGHUP stop a run the same way: the simulation stops at its next instant,
// the results so far are written complete and marked partial, and the process exits with
// 128 + the signal's number. A process ended by a signal leaves no temporary file behind.
//
// The first signal asks for the stop (CalendarProcess::request_stop). A second one, while nothing
// is there to keep yet (before the simulation started: reading input, building the fabric),
// removes the temporaries and ends the process at once by that signal; once the simulation has
// started the results are moments away and a second signal waits for them. A third signal ends
// the process at once in any case.
#pragma once
#include <sys/types.h>

#include <string>

namespace ibfsim {

// Installs the handler for SIGINT, SIGTERM and SIGHUP (not restarting interrupted system calls:
// a blocking waitpid returns EINTR). Until enable_graceful_stop(), a signal removes the
// temporaries and ends the process at once (commands with nothing partial to keep: topo, routes).
void install_stop_signal_handlers();
void enable_graceful_stop();

// The first stop signal received (0: none), and its name ("SIGTERM"; empty for 0).
int stop_signal();
std::string signal_name(int sig);

// From here on a second signal waits for the results (see above).
void set_results_pending();

// Child processes to which every stop signal is forwarded (ibfsim sweep's points). The table is
// fixed-size; add returns false when it is full.
bool add_signal_forward(pid_t pid);
void remove_signal_forward(pid_t pid);

}  // namespace ibfsim
