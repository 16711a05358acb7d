// What every fuzz target shares (fuzz/README.md).
//
// A parser of user input may refuse it only with an InputError (exit code 2, a located message):
// any other exception escaping it is a finding (a library's raw message would reach the user, or
// exit code 1 would call bad input a simulator bug), and so are crashes, sanitizer reports, hangs
// and unbounded memory, which libFuzzer reports itself.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "sim/core/error.h"

namespace ibfsim::fuzz {

inline bool has_nul(const std::uint8_t* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i)
    if (data[i] == 0) return true;
  return false;
}

// Runs f(); returns normally if it returned or threw InputError, aborts (a finding) otherwise.
// `check_message`: the message must say what was expected (not checked when the input holds a NUL
// byte, which what() cannot carry past: messages quote what they read).
template <class F>
void expect_input_errors_only(F&& f, bool check_message = true) {
  try {
    f();
  } catch (const InputError& e) {
    // Every message says where and what was expected.
    const std::string m = e.what();
    if (check_message && m.find("expected") == std::string::npos) {
      std::fprintf(stderr, "InputError without 'expected': %s\n", m.c_str());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception (not an InputError): %s\n", e.what());
    std::abort();
  }
}

}  // namespace ibfsim::fuzz
