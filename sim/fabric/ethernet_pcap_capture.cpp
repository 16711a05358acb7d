#include "sim/fabric/ethernet_pcap_capture.h"

#include "sim/core/scheduled_module.h"

namespace ibfsim {

void EthernetPcapCapture::capture_frame(Time start, const Packet& p, std::uint32_t link_id) {
  // Nothing earlier than now will be added any more: what is pending before it can be written.
  writer_.flush_until(ScheduledModule::now());
  p.write_frame(frame_);
  writer_.add_ethernet(start, frame_.data(), frame_.size(), link_id);
}

}  // namespace ibfsim
