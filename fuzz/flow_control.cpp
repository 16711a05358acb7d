// Flow-control packets (IBA Vol1 7.9.4): six bytes, as the link layer receives them.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "sim/link/flow_control_packet.h"

using namespace ibfsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < kFlowControlPacketBytes) return 0;
  const auto fc = decode_flow_control(data);
  if (fc) {
    // What decodes re-encodes to a packet that decodes the same.
    const auto again = decode_flow_control(encode_flow_control(*fc).data());
    if (!again || again->op != fc->op || again->vl != fc->vl || again->fctbs != fc->fctbs || again->fccl != fc->fccl) {
      std::fprintf(stderr, "flow-control packet does not survive encode(decode(x))\n");
      std::abort();
    }
  }
  return 0;
}
