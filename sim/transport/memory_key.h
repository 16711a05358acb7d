// Memory keys (IBA Vol1 10.6): an L_Key or R_Key is 32 bits, a 24-bit index naming an entry of
// the HCA's protection table (a memory region or a memory window; both share the index space) and
// an 8-bit key in the low byte. The index is the HCA's; the key byte is the consumer's for a
// type 2 memory window (it names the new key in each bind) and the verbs provider's otherwise
// (libibverbs' ibv_bind_mw increments it for a type 1 window; a reregistered region gets a new
// one), so a stale key (a window rebound or invalidated, a region reregistered) names the entry but
// no longer matches it.
//
// How an HCA draws the key byte (`hca_model.memory_keys`, docs/scenario.md):
//   - kSequential: a fixed byte (0x5A in L_Keys, 0xA5 in R_Keys and windows), the index counting
//     up: the keys ConnectX hands out, which a peer can guess (the ReDMArk study, USENIX Security
//     2021);
//   - kKeyByte: the index counting up, the key byte drawn from the run's seed: a guess of a
//     live index hits with probability 1/256;
//   - kRandom: 32 random bits for each region key (never 0, never one in use), the index hidden
//     behind them: a guess hits one of n live keys with probability n / 2^32. A window's 24 upper
//     bits are random too (shared with no live key), its key byte as above.
#pragma once
#include <cstdint>

namespace ibfsim {

enum class MemoryKeyMode : std::uint8_t { kSequential, kKeyByte, kRandom };
// As written in YAML: sequential, key_byte, random.
const char* memory_key_mode_name(MemoryKeyMode m);

// The random stream of an HCA's memory keys: RngStream(seed, kMemoryKeyStream + node index).
constexpr std::uint64_t kMemoryKeyStream = std::uint64_t{0x4D4B} << 48;  // "MK"

// The fixed key bytes of sequential keys.
constexpr std::uint8_t kSequentialLkeyByte = 0x5A;
constexpr std::uint8_t kSequentialRkeyByte = 0xA5;

constexpr std::uint32_t key_index(std::uint32_t key) { return key >> 8; }
constexpr std::uint8_t key_byte(std::uint32_t key) { return static_cast<std::uint8_t>(key & 0xFF); }
constexpr std::uint32_t make_memory_key(std::uint32_t index, std::uint8_t byte) { return index << 8 | byte; }
// The largest index a key can name.
constexpr std::uint32_t kMaxKeyIndex = 0xFFFFFF;

// The verdict of a protection check on a key: a remote access by R_Key, a local one by L_Key.
// kWrongQp: a type 2 window reached through a QP other than the one it is bound to.
enum class MrCheck : std::uint8_t { kOk, kBadKey, kWrongPd, kOutOfBounds, kNoAccess, kWrongQp };

}  // namespace ibfsim
