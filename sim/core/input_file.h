// Reading an input file (scenario, topology, LFT dump) whole, with a clear error for anything that
// is not one: a folder, a device (/dev/zero would be read until memory runs out), a socket, or
// a file (or pipe) larger than any input ibfsim reads.
#pragma once
#include <cstddef>
#include <string>

namespace ibfsim {

// Larger than any real input: an ibnetdiscover dump of an 11,664-host fat tree is a few MiB.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{256} << 20;

// Reads `path` whole. Regular files and pipes (`<(command)`) are read; anything else is an
// InputError "PATH: expected WHAT, got a folder" ("... got a character device", "... got no such
// file", "... got a file larger than 256 MiB"). `what` says what the file should be: "a topology
// file". `max_bytes` is for tests.
std::string read_input_file(const std::string& path, const std::string& what,
                            std::size_t max_bytes = kMaxInputFileBytes);

}  // namespace ibfsim
