// The points of a sweep: `--set key=a,b,c` (a list) or `--set key=lo:hi:step` (a numeric range)
// per swept key; several keys give their cartesian product, the first key varying slowest. Pure,
// no SystemC: the sweep command runs one `ibfsim run` per point.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ibfsim {

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;  // as they are passed to --set, in order
};

struct SweepPoint {
  std::size_t index = 0;
  std::vector<std::pair<std::string, std::string>> sets;  // one per axis, in axis order
};

// The values of one `--set` argument's right-hand side: a comma-separated list (commas inside []
// or {} do not split: "[1,2],[3]" is two values) whose items are values, or ranges "lo:hi:step":
// the numbers lo, lo+step, ... up to hi (inclusive, to within a millionth of a step), printed with
// as many decimals as the three numbers use ("0.1:0.3:0.05" -> 0.1, 0.15, 0.2, 0.25, 0.3;
// "0.01,0.1:0.3:0.1" -> 0.01, 0.1, 0.2, 0.3). A single value is a list of one.
// Throws InputError for an empty value, a step <= 0, lo > hi or more than 100,000 values.
std::vector<std::string> sweep_values(const std::string& key, const std::string& text);

// Every point of the product of `axes` (first axis slowest), numbered from 0.
std::vector<SweepPoint> sweep_points(const std::vector<SweepAxis>& axes);

// The folder of point i under a sweep's output folder: "points/p0007" (at least 4 digits).
std::string sweep_point_dir(std::size_t index);

// The resources of every task of `ibfsim sweep --slurm` (its --slurm-* options).
struct SlurmOptions {
  std::string time = "1:00:00", mem = "2G", partition, account;  // empty: the cluster's default
  unsigned cpus = 1, max_running = 0;                             // 0: no limit on tasks at once
  std::vector<std::string> extra;                                 // more #SBATCH options, as given
};

// The sbatch script of `sweep --slurm`: a job array of `points` tasks, task i running line i + 1
// of `commands_file` (one self-contained, shell-quoted `ibfsim run` per point), its output in
// `dir`/points/pNNNN/run.log; the resources from `o`.
std::string slurm_script(const SlurmOptions& o, const std::string& dir, const std::string& commands_file,
                         std::size_t points, const std::string& job_name);

// A word for a POSIX shell: unchanged if it is made only of safe characters, else single-quoted.
std::string shell_quote(const std::string& word);

}  // namespace ibfsim
