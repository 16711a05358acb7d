// packets.csv: one row per packet a source put on the wire, with the header fields it wrote, so
// captures and external tools can be checked against what the simulator says it sent.
#pragma once
#include <string>

#include "sim/transport/hca.h"

namespace ibfsim {

class PacketLog : public SendObserver {
 public:
  PacketLog();
  void on_injected(Hca& hca, const Packet& p) override;
  // The CSV text: header line, then rows in injection order.
  const std::string& csv() const { return text_; }

 private:
  std::string text_;
};

}  // namespace ibfsim
