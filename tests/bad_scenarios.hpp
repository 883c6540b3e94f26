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

/// One bad scenario: MINIMAL with `input` merged in as a JSON merge patch (RFC 7386: null
/// deletes a key), or, when `whole_text`, `input` is the entire file. "@EXAMPLES@" in the
/// input stands for the examples directory.
struct BadScenario {
  const char* what;
  const char* input;
  const char* json_path;
  std::vector<std::string> message_parts;
  bool whole_text = false;
};

inline std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

/// Every case; "bad.json" is the file label the messages name.
const std::vector<BadScenario>& catalogue();

}  // namespace failsim::testing
