// RED/ECN marking at a switch's egress (RFC 3168 with RED's profile, as DCQCN's congestion point
// uses it): when a frame joins an output queue, the bytes already in that queue decide the chance
// that it leaves marked Congestion Experienced:
//   queue < Kmin: 0;  Kmin <= queue <= Kmax: Pmax x (queue - Kmin) / (Kmax - Kmin);  queue > Kmax: 1.
// Only ECN-capable frames (ECT(0) or ECT(1)) are marked; Not-ECT frames pass unchanged (no drop:
// a full buffer is the switch's business), and CE stays CE. Marking rewrites the IP header's two
// ECN bits (IPv4: and its header checksum); RoCE v2's ICRC masks the traffic class, so it stays
// good, and the switch recomputes the FCS with its next-hop rewrite.
//
// The draw comes from one seeded stream per switch (RngStream) and is taken only when the chance
// lies strictly between 0 and 1, so a run with the same seed marks the same frames.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/rng.h"

namespace ibfsim {

// The random stream of a switch's marking: RngStream(seed, kEcnMarkStream + switch node index).
constexpr std::uint64_t kEcnMarkStream = std::uint64_t{0x454E} << 48;  // "EN"

// One switch's marking profile, the same at every egress queue. Defaults: the DCQCN paper's
// (Zhu et al., SIGCOMM 2015, section 5): Kmin 5 KB, Kmax 200 KB, Pmax 1 %.
struct EcnMarkingConfig {
  bool enabled = false;
  std::uint64_t kmin_bytes = 5 * 1024;
  std::uint64_t kmax_bytes = 200 * 1024;
  double pmax = 0.01;
};

// The chance that a frame finding `queue_bytes` in its egress queue is marked.
double ecn_mark_probability(const EcnMarkingConfig& c, std::uint64_t queue_bytes);

// Whether such a frame is marked, given a uniform draw in [0, 1) (used only when the chance is
// strictly between 0 and 1: mark when draw < chance).
bool ecn_should_mark(const EcnMarkingConfig& c, std::uint64_t queue_bytes, double draw);

// The ECN bits of an Ethernet frame's IP header (destination MAC onwards, `len` bytes), or -1 when
// the frame is not IPv4 (without options) or IPv6.
int frame_ecn(const std::uint8_t* frame, std::size_t len);
// Rewrites an ECN-capable frame's ECN bits to CE (IPv4: with the header checksum). Returns whether
// it did (false for Not-ECT, CE already, or not IP). The FCS is the caller's.
bool mark_frame_ce(std::uint8_t* frame, std::size_t len);

// The marking state of one switch: the bytes in each egress queue (a frame counts from when it
// joins its queue, at its head's decision, until its last byte has left), the stream of draws, and
// per port how many frames it marked. Plain data; the switch calls it.
class EcnMarker {
 public:
  EcnMarker(const EcnMarkingConfig& c, unsigned num_ports, std::uint64_t seed, std::uint64_t stream);
  const EcnMarkingConfig& config() const { return config_; }
  // A frame of `bytes` (header `frame`, `len` bytes) joins queue (out, priority): marks it (if
  // marking is on and the draw says so) and counts its bytes in. Returns whether it was marked.
  bool enqueue(std::uint8_t* frame, std::size_t len, PortNum out, std::uint8_t priority, std::uint64_t bytes);
  // A frame of `bytes` has left queue (out, priority).
  void dequeue(PortNum out, std::uint8_t priority, std::uint64_t bytes);
  std::uint64_t queue_bytes(PortNum out, std::uint8_t priority) const { return bytes_[out - 1][priority]; }
  std::uint64_t queue_peak_bytes(PortNum out) const { return peak_[out - 1]; }
  // Frames marked CE on their way out of port `out`.
  std::uint64_t marked(PortNum out) const { return marked_[out - 1]; }
  std::uint64_t marked_total() const;

 private:
  EcnMarkingConfig config_;
  RngStream rng_;
  std::vector<std::array<std::uint64_t, 8>> bytes_;  // [port-1][priority]
  std::vector<std::uint64_t> peak_;                  // [port-1]: the most any one of its queues held
  std::vector<std::uint64_t> marked_;                // [port-1]
};

}  // namespace ibfsim
