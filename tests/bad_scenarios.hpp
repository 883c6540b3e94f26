// The catalogue of bad scenarios: each is one mistake a user makes, with the JSON Pointer and the
// words of the one message it must get. tests/test_scenario.cpp checks the parser's message
// for each; tests/test_resolve.cpp checks that `failsim validate` and `failsim run` refuse each
// with it alike.
#pragma once

#include <string>
#include <vector>

namespace failsim::testing {

/// A small valid scenario: the base the catalogue's patches apply to.
inline const char* const MINIMAL = R"({
  "name": "base",
  "data": { "kind": "synthetic", "train_size": 1000, "test_size": 200 },
  "model": { "kind": "softmax" },
  "cluster": {
    "workers": { "count": 2, "speed": "1Gf" },
    "servers": { "speed": "2Gf" }
  },
  "consistency": { "mode": "async" },
  "stop": { "time": "10s" }
})";

/// A small valid collective scenario (docs/cluster.md): 2 nodes of the h100-8x preset in dp 16,
/// posing as a 1B transformer, softmax math on synthetic data. The collective cases' base.
inline const char* const MINIMAL_COLLECTIVE = R"({
  "protocol": "collective",
  "name": "base",
  "data": { "kind": "synthetic", "train_size": 1000, "test_size": 200 },
  "model": { "kind": "softmax" },
  "platform": {
    "node": "h100-8x",
    "nodes": 2,
    "file_system": { "write_bandwidth": "10GBps", "read_bandwidth": "10GBps" }
  },
  "layout": { "dp": 16 },
  "workload": {
    "transformer": { "parameters": 1e9, "layers": 16, "hidden": 2048, "sequence": 2048,
                     "global_batch_tokens": 65536 }
  },
  "stop": { "time": "1min" }
})";

/// The step that refuses a case: the parser, or the resolve step (the checks that need the
/// data's and the model's sizes, and a collective job's plan: sim/scenario/collective/plan.hpp).
enum class Stage { PARSE, RESOLVE };

/// One bad scenario: `base` with `input` merged in as a JSON merge patch (RFC 7386: null
/// deletes a key), or, when `whole_text`, `input` is the entire file. "@EXAMPLES@" in the
/// input stands for the examples directory, "@FIXTURES@" for tests/fixtures.
struct BadScenario {
  const char* what;
  const char* input;
  const char* json_path;
  std::vector<std::string> message_parts;
  bool whole_text = false;
  const char* base = MINIMAL;
  Stage stage = Stage::PARSE;
  /// The file the message names: the scenario's ("bad.json" in the parser's tests), or another
  /// one it reads (a node preset), with the input's placeholders.
  const char* file = "bad.json";
};

inline std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

/// `text` with the placeholders "@EXAMPLES@" and "@FIXTURES@" of the source tree `source_dir`.
std::string expand(const std::string& text, const std::string& source_dir);

/// The text of case `c`'s scenario file.
std::string scenario_text(const BadScenario& c, const std::string& source_dir);

/// Every case; "bad.json" is the file label the messages name.
const std::vector<BadScenario>& catalogue();

}  // namespace failsim::testing
