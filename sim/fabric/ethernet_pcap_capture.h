// A capture of an Ethernet fabric (roce_hca_fabric.h) as one pcap of LINKTYPE_ETHERNET: every frame
// a port starts, from its destination MAC to its FCS, stamped with the time its first byte after
// the preamble and SFD enters the wire; the sidecar CSV (pcap_writer.h) names each cable direction
// as "from/port->to/port". The InfiniBand fabric's capture (fabric.cpp) is the same with ERF records.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/ethernet/ethernet_port.h"
#include "sim/report/pcap_writer.h"

namespace ibfsim {

class EthernetPcapCapture final : public FrameCaptureSink {
 public:
  // snaplen: bytes kept of each frame (PcapWriter), 0 whole frames.
  explicit EthernetPcapCapture(const std::string& path, std::uint32_t snaplen = 0)
      : writer_(path, PcapLinkType::kEthernet, snaplen) {}
  void name_link(std::uint32_t id, std::string name) { writer_.set_link_name(id, std::move(name)); }
  void capture_frame(Time start, const Packet& p, std::uint32_t link_id) override;
  // Writes what is pending and renames both files to their final names.
  void close() { writer_.close(); }
  std::uint64_t frames_written() const { return writer_.frames_written(); }

 private:
  PcapWriter writer_;
  std::vector<std::uint8_t> frame_;
};

}  // namespace ibfsim
