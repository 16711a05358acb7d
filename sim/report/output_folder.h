// The folder a command writes its results into (`ibfsim run -o DIR`, `ibfsim sweep -o DIR`).
#pragma once
#include <string>
#include <vector>

namespace ibfsim {

// Creates `dir` if needed and checks that files can be made in it. `flag` names where the folder
// came from in messages ("-o" or "the default results folder"). Throws InputError (exit code 2):
//   "-o out.txt: expected a folder for the results, got a regular file"
//   "-o /proc/x: expected a folder for the results that can be created, got: No such file or directory"
//   "-o /ro: expected a folder for the results that ibfsim can write, got: Read-only file system"
void prepare_output_folder(const std::string& dir, const std::string& flag);

// What prepare_results_folder found and removed.
struct EarlierOutputs {
  std::vector<std::string> removed;      // files of an earlier run (names within dir)
  std::vector<std::string> temporaries;  // temporaries of a process that was killed
};

// Before a run writes into `dir`: removes the temporaries killed processes left there
// (temporary_files.h) and, when `marker` (e.g. "results.json") shows that an earlier run wrote
// into it, every file named in `outputs` (the earlier run's results, which the new run might not
// all write again: they would otherwise stay beside the new ones). Files it does not know are left
// alone. A file that cannot be removed is an InputError naming it.
EarlierOutputs clear_earlier_outputs(const std::string& dir, const std::string& marker,
                                     const std::vector<std::string>& outputs);

}  // namespace ibfsim
