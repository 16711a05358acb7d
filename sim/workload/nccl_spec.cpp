#include "sim/workload/nccl_spec.h"

#include <array>
#include <cctype>
#include <set>

#include "sim/fabric/yaml_input.h"
#include "sim/workload/scenario.h"

namespace ibfsim {

namespace {

struct TypeName {
  const char* yaml;     // as the scenario may write it
  const char* printed;  // as nccl-tests prints it
  std::uint32_t bytes;
};
constexpr std::array<TypeName, 15> kTypes = {{
    {"float", "float", 4},     {"float32", "float", 4}, {"half", "half", 2},         {"float16", "half", 2},
    {"double", "double", 8},   {"float64", "double", 8}, {"bfloat16", "bfloat16", 2}, {"int8", "int8", 1},
    {"uint8", "uint8", 1},     {"int32", "int32", 4},   {"uint32", "uint32", 4},     {"int64", "int64", 8},
    {"uint64", "uint64", 8},   {"char", "int8", 1},     {"int", "int32", 4},
}};

constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 40;

// A byte count as nccl-tests takes it: a number, or one with K, M or G (powers of 1024; "KiB",
// "MiB", "GiB" too).
std::uint64_t byte_count(const YamlValue& v, std::uint64_t lo) {
  const std::string expected = "a byte count in " + std::to_string(lo) + "..2^40 (a number, or with K, M or G)";
  const std::string text = v.as<std::string>();
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 13) v.fail(expected, "'" + text + "'");
  std::uint64_t n = std::stoull(text.substr(0, digits));
  std::string unit = text.substr(digits);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  if (unit == "K" || unit == "KiB") n <<= 10;
  else if (unit == "M" || unit == "MiB") n <<= 20;
  else if (unit == "G" || unit == "GiB") n <<= 30;
  else if (!unit.empty() && unit != "B") v.fail(expected, "'" + text + "'");
  if (n < lo || n > kMaxBytes) v.fail(expected, "'" + text + "'");
  return n;
}

NcclOp parse_op(const YamlValue& v) {
  const std::string s = v.as<std::string>();
  if (s == "allreduce") return NcclOp::kAllReduce;
  if (s == "allgather") return NcclOp::kAllGather;
  if (s == "reducescatter") return NcclOp::kReduceScatter;
  if (s == "alltoall") return NcclOp::kAllToAll;
  if (s == "broadcast") return NcclOp::kBroadcast;
  v.fail("allreduce, allgather, reducescatter, alltoall or broadcast", "'" + s + "'");
}

NcclAlgorithm parse_algorithm(const YamlValue& v, NcclOp op) {
  const std::string s = v.as<std::string>();
  if (s == "sharp" || s == "collnet") {
    if (op != NcclOp::kAllReduce) v.fail("ring (SHARP reduces allreduce only)", "'" + s + "'");
    return NcclAlgorithm::kSharp;
  }
  if (s == "collnet_direct" || s == "collnet_chain" || s == "nvls" || s == "nvls_tree")
    v.fail("ring, tree or sharp (" + s + " is not modelled yet)", "'" + s + "'");
  if (s == "tree") {
    if (op != NcclOp::kAllReduce) v.fail("ring (tree is NCCL's algorithm for allreduce only)", "'tree'");
    return NcclAlgorithm::kTree;
  }
  if (s != "ring") v.fail("ring, tree or sharp", "'" + s + "'");
  return NcclAlgorithm::kRing;
}

NcclCollectiveSpec parse_one(const YamlValue& item, const Scenario& s) {
  const YamlMap m = item.as_map();
  m.check_no_unknown_keys({"name", "ranks", "op", "algorithm", "channels", "chunk_size", "min_bytes", "max_bytes",
                           "factor", "iterations", "warmup_iterations", "datatype", "root", "reduce_bandwidth", "sl",
                           "mtu", "sharp", "redop"});
  NcclCollectiveSpec c;
  c.op = parse_op(m.get("op"));
  if (auto v = m.find("algorithm")) c.algorithm = parse_algorithm(*v, c.op);
  c.name = m.optional<std::string>("name", std::string(nccl_op_name(c.op)) + "_" + nccl_algorithm_name(c.algorithm));
  if (m.has("ranks")) {
    const YamlValue list = m.get("ranks");
    std::set<std::string> seen;
    for (const YamlValue& v : list.as_list()) {
      const std::string name = v.as<std::string>();
      const auto n = s.topology.find_node(name);
      if (!n || s.topology.nodes[*n].type != NodeType::kHca)
        v.fail("the name of an HCA in " + s.topology_file, "'" + name + "'");
      if (!seen.insert(name).second) v.fail("each rank's HCA once", "'" + name + "' again");
      c.ranks.push_back(name);
    }
    if (c.ranks.size() < 2) list.fail("at least two ranks", std::to_string(c.ranks.size()));
  } else {
    for (std::size_t n : s.topology.hcas()) c.ranks.push_back(s.topology.nodes[n].name);
  }
  c.channels = m.optional_in_range<std::uint32_t>("channels", c.channels, 1, 64);
  if (auto v = m.find("redop")) {
    if (c.op != NcclOp::kAllReduce && c.op != NcclOp::kReduceScatter)
      v->fail(std::string("no redop with op: ") + nccl_op_name(c.op) + " (only allreduce and reducescatter reduce)",
              "redop");
    const std::string name = v->as<std::string>();
    const auto op = sharp_op_from_name(name);
    if (!op) v->fail("sum, min or max", "'" + name + "'");
    c.redop = *op;
  }
  if (auto v = m.find("datatype")) {
    const std::string t = v->as<std::string>();
    bool found = false;
    for (const TypeName& k : kTypes)
      if (t == k.yaml) c.datatype = k.printed, c.type_bytes = k.bytes, found = true;
    if (!found)
      v->fail("int8, uint8, int32, uint32, int64, uint64, half (float16), bfloat16, float (float32) or double (float64)",
              "'" + t + "'");
  }
  if (auto v = m.find("chunk_size")) c.chunk_size = byte_count(*v, c.type_bytes);
  if (auto v = m.find("min_bytes")) c.min_bytes = byte_count(*v, 1);
  if (auto v = m.find("max_bytes")) c.max_bytes = byte_count(*v, 1);
  if (c.max_bytes < c.min_bytes)
    m.get(m.has("max_bytes") ? "max_bytes" : "min_bytes")
        .fail("max_bytes >= min_bytes", std::to_string(c.max_bytes) + " < " + std::to_string(c.min_bytes));
  c.factor = m.optional_in_range<std::uint64_t>("factor", c.factor, 2, 1024);
  c.iterations = m.optional_in_range<std::uint32_t>("iterations", c.iterations, 1, 1000000);
  c.warmup_iterations = m.optional_in_range<std::uint32_t>("warmup_iterations", c.warmup_iterations, 0, 1000000);
  if (auto v = m.find("root")) {
    if (c.op != NcclOp::kBroadcast) v->fail("no root (only broadcast has one)", "root");
    c.root = v->as_in_range<std::uint32_t>(0, static_cast<std::uint32_t>(c.ranks.size() - 1));
  }
  if (auto v = m.find("reduce_bandwidth")) c.reduce_gbps = v->as_double(0, 1e6);
  c.sl = m.optional_in_range<std::uint8_t>("sl", 0, 0, 15);
  if (auto v = m.find("mtu")) {
    c.mtu = v->as<std::uint32_t>();
    if (c.mtu != 256 && c.mtu != 512 && c.mtu != 1024 && c.mtu != 2048 && c.mtu != 4096)
      v->fail("256, 512, 1024, 2048 or 4096", std::to_string(c.mtu));
  }
  if (auto v = m.find("sharp")) {
    if (c.algorithm != NcclAlgorithm::kSharp) v->fail("no sharp settings (algorithm: sharp has them)", "sharp");
    const YamlMap sm = v->as_map();
    sm.check_no_unknown_keys({"latency", "bandwidth", "max_operations", "buffer", "mad_latency", "max_trees", "timeout", "mad_timeout",
                              "mad_retries"});
    c.sharp.latency = sm.duration("latency", c.sharp.latency);
    if (auto b = sm.find("bandwidth")) c.sharp.bandwidth_gbps = b->as_double(0, 1e6);
    c.sharp.max_operations = sm.optional_in_range<std::uint32_t>("max_operations", c.sharp.max_operations, 1, 65536);
    if (auto b = sm.find("buffer")) c.sharp.buffer_bytes = static_cast<std::uint32_t>(byte_count(*b, 64));
    if (c.sharp.buffer_bytes > (1u << 20)) sm.get("buffer").fail("a buffer of 64 B to 1M", std::to_string(c.sharp.buffer_bytes));
    c.sharp.mad_latency = sm.duration("mad_latency", c.sharp.mad_latency);
    c.sharp.max_trees = sm.optional_in_range<std::uint32_t>("max_trees", c.sharp.max_trees, 1, 255);
    c.sharp_timeout = sm.duration("timeout", c.sharp_timeout);
    if (c.sharp_timeout <= 0) sm.get("timeout").fail("a timeout above 0", "0");
    c.sharp_mad_timeout = sm.duration("mad_timeout", c.sharp_mad_timeout);
    if (c.sharp_mad_timeout <= 0) sm.get("mad_timeout").fail("a timeout above 0", "0");
    c.sharp_mad_retries = sm.optional_in_range<unsigned>("mad_retries", c.sharp_mad_retries, 0, 100);
  }
  if (c.algorithm == NcclAlgorithm::kSharp) {
    // SHARP streams operations of min(mtu, sharp.buffer) bytes to the switches, which reduce: a
    // ring's channels, chunks and host reduction rate mean nothing there, so they are refused.
    for (const char* key : {"channels", "chunk_size", "reduce_bandwidth"})
      if (auto v = m.find(key))
        v->fail(std::string("no ") + key + " with algorithm: sharp (operations are min(mtu, sharp.buffer) bytes, "
                "reduced in the switches)", key);
    if (c.datatype == "float") c.sharp_type = SharpType::kFloat32;
    else if (c.datatype == "half") c.sharp_type = SharpType::kFloat16;
    else if (c.datatype == "int32") c.sharp_type = SharpType::kInt32;
    else
      m.get("datatype").fail("int32, float (float32) or half (float16): what SHARP reduces", "'" + c.datatype + "'");
  }
  // The largest size must carry at least one element (per rank, where the op splits the buffer by rank).
  const std::uint64_t unit = nccl_round_size(c.plan(), c.max_bytes) == 0 ? c.max_bytes + 1 : 0;
  if (unit != 0) {
    const bool per_rank = c.op == NcclOp::kAllGather || c.op == NcclOp::kReduceScatter || c.op == NcclOp::kAllToAll;
    const std::uint64_t need = std::uint64_t{c.type_bytes} * (per_rank ? c.ranks.size() : 1);
    (m.has("max_bytes") ? m.get("max_bytes") : m.get("op"))
        .fail("a max_bytes of at least " + std::to_string(need) + " (one " + c.datatype +
                  (per_rank ? " per rank)" : ")"),
              std::to_string(c.max_bytes));
  }
  return c;
}

}  // namespace

std::vector<std::uint64_t> NcclCollectiveSpec::sizes() const {
  std::vector<std::uint64_t> out;
  for (std::uint64_t b = min_bytes; b <= max_bytes; b *= factor) {
    out.push_back(b);
    if (b > max_bytes / factor) break;
  }
  return out;
}

NcclPlan NcclCollectiveSpec::plan() const {
  NcclPlan p;
  p.op = op;
  p.algorithm = algorithm;
  p.ranks = static_cast<std::uint32_t>(ranks.size());
  p.channels = channels;
  p.chunk_bytes = chunk_size;
  p.type_bytes = type_bytes;
  p.root = root;
  return p;
}

std::vector<NcclCollectiveSpec> parse_collectives(const std::vector<YamlValue>& list, const Scenario& s) {
  std::vector<NcclCollectiveSpec> out;
  for (const YamlValue& item : list) {
    NcclCollectiveSpec c = parse_one(item, s);
    for (const NcclCollectiveSpec& other : out)
      if (c.algorithm == NcclAlgorithm::kSharp && other.algorithm == NcclAlgorithm::kSharp &&
          (c.sharp.latency != other.sharp.latency || c.sharp.bandwidth_gbps != other.sharp.bandwidth_gbps ||
           c.sharp.max_operations != other.sharp.max_operations || c.sharp.buffer_bytes != other.sharp.buffer_bytes ||
           c.sharp.mad_latency != other.sharp.mad_latency || c.sharp.max_trees != other.sharp.max_trees ||
           c.sharp_mad_timeout != other.sharp_mad_timeout || c.sharp_mad_retries != other.sharp_mad_retries)) {
        const YamlMap m = item.as_map();
        (m.has("sharp") ? m.get("sharp") : item)
            .fail("the same sharp settings as '" + other.name + "' (they are the switches' aggregation nodes and "
                  "their aggregation manager)",
                  "other settings");
      }
    for (const NcclCollectiveSpec& other : out)
      if (other.name == c.name) {
        const YamlMap m = item.as_map();
        (m.has("name") ? m.get("name") : item).fail("each collective's name once (give it a name:)", "'" + c.name + "' again");
      }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ibfsim
