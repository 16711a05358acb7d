// GUID list files in the format OpenSM reads for its root_guid_file (-a), cn_guid_file (-u) and
// io_guid_file (its complib's parse_node_map): one GUID per line, written as C's strtoull with base
// 0 reads it (0x... hex, a leading 0 octal, else decimal), optionally followed by white space and
// anything (a node name, ignored); blank lines and lines starting with '#' (after leading white
// space) are skipped; a GUID must end at white space, '#' or the end of the line.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/ids.h"

namespace ibfsim {

// The GUIDs of `text`, in order (duplicates kept). `source` names the file in messages. Throws
// InputError "SOURCE:LINE:COL: expected a GUID ..., got '...'" for a line that is not one, and
// "SOURCE: expected at least one GUID, got none" for a file without any.
std::vector<Guid> parse_guid_list(std::string_view text, const std::string& source);
// The same, read from `path` (InputError naming it if it cannot be read).
std::vector<Guid> read_guid_list_file(const std::string& path);

}  // namespace ibfsim
