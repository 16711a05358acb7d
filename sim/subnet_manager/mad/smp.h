// Subnet management packets (IBA Vol1 14.2.1): the 256-byte MADs of classes 0x01 and 0x81.
//   LID-routed (0x01):     header 24 | M_Key 8 | reserved 32 | SMP data 64 | reserved 128
//   directed route (0x81): header 24 | M_Key 8 | DrSLID 2 | DrDLID 2 | reserved 28 |
//                          SMP data 64 | InitialPath 64 | ReturnPath 64
// In a directed-route SMP the header's Status bit 15 is the direction bit D (0 outgoing, 1
// returning) and ClassSpecific holds HopPointer (byte 6) and HopCount (byte 7).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/mad_header.h"

namespace ibfsim {

constexpr std::size_t kSmpMKeyAt = 24;
constexpr std::size_t kSmpDrSlidAt = 32;
constexpr std::size_t kSmpDrDlidAt = 34;
constexpr std::size_t kSmpDataAt = 64;
constexpr std::size_t kSmpDataBytes = 64;
constexpr std::size_t kSmpInitialPathAt = 128;
constexpr std::size_t kSmpReturnPathAt = 192;
constexpr std::size_t kSmpPathBytes = 64;   // IB_SUBNET_PATH_HOPS_MAX
constexpr std::uint8_t kSmpMaxHopCount = 63;  // entry 0 of each path is unused

constexpr std::uint16_t IB_SMP_DIRECTION = 0x8000;
constexpr std::uint16_t IB_SMP_STATUS_MASK = 0x7FFF;

// The 64-byte attribute area of an SMP (bytes 64-127 of the MAD); attribute codecs encode into it.
using SmpData = std::array<std::uint8_t, kSmpDataBytes>;
// Port numbers indexed by hop: InitialPath[i] is the port the SMP leaves by at hop i going out,
// ReturnPath[i] the port it arrived on there (and so leaves by coming back).
using SmpPath = std::array<PortNum, kSmpPathBytes>;

// A decoded SMP of either class. The fields marked DR exist only in class 0x81: a LID-routed SMP
// encodes them as reserved zeros and decodes them as direction false, hops 0, DrSLID/DrDLID 0 and
// zero paths. `status` is 15 bits in a DR SMP (D is `direction`), 16 bits in a LID-routed one.
struct Smp {
  std::uint8_t mgmt_class = IB_MCLASS_SUBN_DIR;
  std::uint8_t base_version = kMadBaseVersion;
  std::uint8_t class_version = 1;
  std::uint8_t method = IB_MAD_METHOD_GET;
  std::uint16_t status = IB_MAD_STATUS_SUCCESS;
  bool direction = false;         // DR: D bit
  std::uint8_t hop_pointer = 0;   // DR
  std::uint8_t hop_count = 0;     // DR
  std::uint64_t transaction_id = 0;
  std::uint16_t attribute_id = 0;
  std::uint32_t attribute_modifier = 0;
  std::uint64_t m_key = 0;
  Lid dr_slid = kLidPermissive;   // DR
  Lid dr_dlid = kLidPermissive;   // DR
  SmpData data{};
  SmpPath initial_path{};         // DR
  SmpPath return_path{};          // DR

  bool directed() const { return mgmt_class == IB_MCLASS_SUBN_DIR; }
};

// Encodes the whole MAD; reserved bytes are 0. A DR status is masked to 15 bits.
Mad encode_smp(const Smp& smp);

// Decodes a 256-byte MAD; nullopt unless its MgmtClass is 0x01 or 0x81.
std::optional<Smp> decode_smp(const std::uint8_t* mad256);

// The response an agent returns for `request`: Get and Set are answered by GetResp, Trap by
// TrapRepress; a DR response has D = 1 and keeps the hop fields, paths and DrSLID/DrDLID so it can
// walk back. Everything else (TID, attribute, modifier, M_Key, data) is copied; the agent then
// writes its attribute into `data`. Throws std::invalid_argument for any other method.
Smp make_smp_response(const Smp& request, std::uint16_t status = IB_MAD_STATUS_SUCCESS);

}  // namespace ibfsim
