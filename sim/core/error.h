// The kinds of failure a run can end with; the CLI maps them to exit codes 2, 3 and 1.
#pragma once
#include <stdexcept>
#include <string>

namespace ibfsim {

// Bad user input (YAML, command line). what() names the file, line, column and what was expected.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A result that could not be written (disk full, an I/O error, a folder that became unwritable
// during the run): what() names the file and the system's reason. The CLI exits with code 3.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A broken simulation invariant (negative credits, a lost packet, ...): a bug, never user error.
class SimError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// Checks an invariant; throws SimError naming it when it does not hold.
#define IBFSIM_CHECK(cond, ...)                                                                \
  do {                                                                                         \
    if (!(cond)) ::ibfsim::fail_invariant(#cond, __FILE__, __LINE__, ::std::string(__VA_ARGS__)); \
  } while (0)

[[noreturn]] void fail_invariant(const char* cond, const char* file, int line, const std::string& what);

}  // namespace ibfsim
