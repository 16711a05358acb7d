// Times as text for tables (CSV files): exact decimal nanoseconds.
#pragma once
#include <string>

#include "sim/core/time.h"

namespace ibfsim {

// Time in nanoseconds as exact decimal text: "1234", "1234.56" (up to 6 decimals, trailing zeros
// dropped; a femtosecond is 0.000001 ns). Every table's `_ns` column that must be exact uses it.
std::string ns_text(Time t);

}  // namespace ibfsim
