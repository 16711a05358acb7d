// waves.vcd (scenario `outputs.vcd`): per data VL of the listed ports, the credits the transmitter
// has (blocks it may still send) and the depth of the receive buffer (blocks held), written with
// SystemC's sc_trace so GTKWave opens it. Nothing ticks to sample them: the values are refreshed
// after every calendar wake, i.e. exactly when something in the fabric changed.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "sim/fabric/fabric.h"
#include "sim/report/atomic_file.h"

namespace sc_core { class sc_trace_file; }

namespace ibfsim {

class WaveformTracer {
 public:
  // `base` is the path without ".vcd"; `ports` are "node/port" names (empty: every switch port).
  // Must be created before sc_start. Throws InputError for a port that does not exist.
  WaveformTracer(Fabric& fabric, const std::string& base, const std::vector<std::string>& ports);
  ~WaveformTracer();
  // Closes the file and moves it to its final name.
  void close();

 private:
  struct Probe {
    LinkPort* port;
    std::uint8_t vl;
    unsigned credits = 0;
    unsigned depth = 0;
  };
  void sample();

  std::string base_;
  // SystemC appends ".vcd" to the name it is given: it writes BASE.tmp-PID.vcd, renamed to
  // BASE.vcd when closed.
  AtomicFileGuard guard_;
  sc_core::sc_trace_file* file_ = nullptr;
  std::vector<std::unique_ptr<Probe>> probes_;
};

}  // namespace ibfsim
