#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/core/error.h"
#include "sim/fabric/yaml_input.h"

using namespace ibfsim;

namespace {

// The message of the InputError that f throws, or "" if it throws none.
template <typename F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

YamlMap map_of(const std::string& text) { return YamlMap(YAML::Load(text), "s.yaml"); }

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("YamlMap reads typed required and optional values", "[fabric][yaml]") {
  const YamlMap m = map_of("n: 12\nhex: 0x1F\nneg: -3\ns: hello\nb: true\nd: 2.5us\nx: 0.25\n");
  CHECK(m.require<unsigned>("n") == 12);
  CHECK(m.require<std::uint64_t>("hex") == 31);
  CHECK(m.require<int>("neg") == -3);
  CHECK(m.require<std::string>("s") == "hello");
  CHECK(m.require<bool>("b"));
  CHECK(m.duration("d") == 2'500 * kNs);
  CHECK(m.require<double>("x") == 0.25);
  CHECK(m.optional<unsigned>("absent", 7) == 7);
  CHECK(m.duration("absent", 3 * kNs) == 3 * kNs);
  CHECK(m.require_in_range<unsigned>("n", 1, 12) == 12);
  CHECK(m.has("s"));
  CHECK_FALSE(m.has("absent"));
  m.check_no_unknown_keys({"n", "hex", "neg", "s", "b", "d", "x"});
}

TEST_CASE("YamlMap type and range errors name line, column and what was expected", "[fabric][yaml]") {
  const YamlMap m = map_of("a: 1\nn: many\nq: '12'\nr: 300\nm: {x: 1}\nd: 100\ne:\n");
  CHECK(input_error([&] { m.require<unsigned>("n"); }) == "s.yaml:2:4: expected a non-negative integer, got 'many'");
  CHECK(input_error([&] { m.require<int>("q"); }) == "s.yaml:3:4: expected an integer, got the string '12'");
  CHECK(input_error([&] { m.require_in_range<unsigned>("r", 1, 254); }) ==
        "s.yaml:4:4: expected an integer in 1..254, got '300'");
  CHECK(input_error([&] { m.require<std::uint8_t>("r"); }) == "s.yaml:4:4: expected an integer in 0..255, got '300'");
  CHECK(input_error([&] { m.require<std::string>("m"); }) == "s.yaml:5:4: expected a string, got a map");
  CHECK(input_error([&] { m.map("a"); }) == "s.yaml:1:4: expected a map, got '1'");
  CHECK(input_error([&] { m.list("a"); }) == "s.yaml:1:4: expected a list, got '1'");
  CHECK(input_error([&] { m.duration("d"); }) ==
        "s.yaml:6:4: expected a duration with a unit (fs, ps, ns, us, ms, s), e.g. 100ns, got '100'");
  // An empty value is located at its key, not at the next line.
  CHECK(input_error([&] { m.require<unsigned>("e"); }) ==
        "s.yaml:7:1: expected a non-negative integer, got an empty value");
  CHECK(input_error([&] { m.require<unsigned>("zz"); }) == "s.yaml:1:1: expected key 'zz', got a map without it");
  CHECK(input_error([&] { YamlMap(YAML::Load("[1, 2]"), "s.yaml"); }) == "s.yaml:1:1: expected a map, got a list");
  // Absent or empty maps still locate missing-key errors in the file.
  CHECK(input_error([&] { m.optional_map("absent").require<int>("k"); }) ==
        "s.yaml:1:1: expected key 'k', got a map without it");
  CHECK(input_error([&] { m.map("e").require<int>("k"); }) == "s.yaml:7:1: expected key 'k', got a map without it");
  CHECK(m.node()["e"].IsNull());  // reading never changes the document
}

TEST_CASE("check_no_unknown_keys names the key and lists the allowed ones", "[fabric][yaml]") {
  const YamlMap m = map_of("name: a\nprots: 3\n");
  CHECK(input_error([&] { m.check_no_unknown_keys({"name", "ports"}); }) ==
        "s.yaml:2:1: expected one of the keys name, ports, got unknown key 'prots'");
  const YamlMap dup = map_of("name: a\nname: b\n");
  CHECK(input_error([&] { dup.check_no_unknown_keys({"name"}); }) ==
        "s.yaml:2:1: expected each key once, got 'name' a second time");
}

TEST_CASE("load_yaml_file reports a missing file", "[fabric][yaml]") {
  CHECK(input_error([] { load_yaml_file("/nonexistent/dir/x.yaml"); }) ==
        "/nonexistent/dir/x.yaml: expected a YAML file, got no such file");
}

TEST_CASE("load_yaml_file reports syntax errors with file, line and column", "[fabric][yaml]") {
  const std::string path = write_temp("ibfsim_yaml_syntax_test.yaml", "a: 1\nb: [1, 2\nc: 3\n");
  const std::string msg = input_error([&] { load_yaml_file(path); });
  std::filesystem::remove(path);
  CHECK(msg == path + ":3:2: expected valid YAML, got a syntax error: end of sequence flow not found");
}

TEST_CASE("load_yaml_file reads a file and rejects a second document", "[fabric][yaml]") {
  const std::string ok = write_temp("ibfsim_yaml_ok_test.yaml", "a: 1\n");
  CHECK(load_yaml_file(ok)["a"].as<int>() == 1);
  std::filesystem::remove(ok);
  const std::string two = write_temp("ibfsim_yaml_two_test.yaml", "a: 1\n---\nb: 2\n");
  const std::string msg = input_error([&] { load_yaml_file(two); });
  std::filesystem::remove(two);
  // Reported at the '---' that starts the second document.
  CHECK(msg == two + ":2:1: expected a single YAML document, got a second document after '---'");
  // A leading '---' is fine, and so is a lone ',' (yaml-cpp's LoadAll never returns on it).
  const std::string lead = write_temp("ibfsim_yaml_lead_test.yaml", "--- # the one document\na: 1\n");
  CHECK(load_yaml_file(lead)["a"].as<int>() == 1);
  std::filesystem::remove(lead);
  const std::string comma = write_temp("ibfsim_yaml_comma_test.yaml", ",");
  CHECK_NOTHROW(load_yaml_file(comma));
  std::filesystem::remove(comma);
}

TEST_CASE("apply_override replaces values, creates map levels and indexes lists", "[fabric][yaml]") {
  YAML::Node root = YAML::Load("a: {b: 1}\nphases: [{d: 1us}, {d: 2us}]\nempty:\n");
  apply_override(root, "a.b", "2");
  apply_override(root, "x.y.z", "5us");
  apply_override(root, "phases.1.d", "7us");
  apply_override(root, "empty.k", "v");
  apply_override(root, "link", "{speed: HDR, width: 4x}");
  apply_override(root, "phases.0", "[1, 2]");
  const YamlMap m(root, "s.yaml");
  CHECK(m.map("a").require<int>("b") == 2);
  CHECK(m.map("x").map("y").duration("z") == 5 * kUs);
  CHECK(m.list("phases")[1].as_map().duration("d") == 7 * kUs);
  CHECK(m.list("phases")[0].as_list().size() == 2);
  CHECK(m.map("empty").require<std::string>("k") == "v");
  CHECK(m.map("link").require<std::string>("speed") == "HDR");
  // The untouched parts keep their file positions; overridden values have none.
  CHECK(m.map("a").location() == "s.yaml:1:4");
  CHECK(input_error([&] { m.map("x").map("y").require<int>("z"); }) ==
        "s.yaml (--set on the command line): expected an integer, got '5us'");
}

TEST_CASE("apply_override keeps quoted values strings", "[fabric][yaml]") {
  YAML::Node root = YAML::Load("a: 1\n");
  apply_override(root, "a", "'12'");
  const YamlMap m(root, "s.yaml");
  CHECK(m.require<std::string>("a") == "12");
  CHECK(input_error([&] { m.require<int>("a"); }) ==
        "s.yaml (--set on the command line): expected an integer, got the string '12'");
}

TEST_CASE("apply_override rejects bad paths", "[fabric][yaml]") {
  YAML::Node root = YAML::Load("a: {b: 1}\nphases: [{d: 1us}, {d: 2us}]\nnone: []\n");
  CHECK(input_error([&] { apply_override(root, "phases.2.d", "1us"); }) ==
        "--set phases.2.d=1us: expected an index 0..1 into the list 'phases', got '2'");
  CHECK(input_error([&] { apply_override(root, "phases.x", "1"); }) ==
        "--set phases.x=1: expected an index 0..1 into the list 'phases', got 'x'");
  CHECK(input_error([&] { apply_override(root, "none.0", "1"); }) ==
        "--set none.0=1: expected an existing element, but the list 'none' is empty, got '0'");
  CHECK(input_error([&] { apply_override(root, "a.b.c", "1"); }) ==
        "--set a.b.c=1: expected 'a.b' to be a map or a list, got the scalar '1'");
  CHECK(input_error([&] { apply_override(root, "a..b", "1"); }) ==
        "--set a..b=1: expected a dotted key such as a.b.c, got an empty part in 'a..b'");
  CHECK(input_error([&] { apply_override(root, "a", "[1, 2"); }) ==
        "--set a=[1, 2: expected a YAML value such as 10, 2.5us, [1, 2] or {a: 1}, got a syntax error: end of "
        "sequence flow not found");
  // Nothing was changed by the failed overrides.
  CHECK(root["a"]["b"].as<int>() == 1);
  CHECK(root["phases"].size() == 2);
}

TEST_CASE("split_override splits at the first '='", "[fabric][yaml]") {
  CHECK(split_override("a.b=c=d") == std::pair<std::string, std::string>("a.b", "c=d"));
  CHECK(split_override("a=") == std::pair<std::string, std::string>("a", ""));
  CHECK(input_error([] { split_override("a.b"); }) ==
        "--set a.b: expected KEY=VALUE, e.g. phases.0.duration=10us, got no '='");
}
