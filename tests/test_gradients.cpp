// Analytic gradients of the dense models against central finite differences
// (the CNN has its own checks in test_cnn.cpp, using the same helper), and the list of models
// (models/models.def) against the factory, the scenario schema and the docs.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gradient_check.hpp"
#include "models/mlp.hpp"
#include "models/model_spec.hpp"
#include "models/rng.hpp"
#include "models/softmax_regression.hpp"

using namespace failsim::models;
using failsim::testing::check_gradient;
using failsim::testing::initial;
using failsim::testing::RandomBatch;

TEST_CASE("softmax regression gradient matches finite differences", "[gradients]") {
  SoftmaxRegression model(7, 4);
  const RandomBatch batch(5, 7, 4, 1);
  const auto result = check_gradient(model, initial(model, 2), batch.view(), 30, 1e-2f);
  CHECK(result.checked == 32);
  CHECK(result.max_rel_error < 1e-2);
}

TEST_CASE("MLP gradient matches finite differences", "[gradients]") {
  Mlp model(6, {9, 5}, 3);
  const RandomBatch batch(4, 6, 3, 3);
  // h = 1e-3: a larger step crosses ReLU kinks of units whose pre-activation is near zero.
  const auto result = check_gradient(model, initial(model, 4), batch.view(), 60, 1e-3f);
  CHECK(result.max_rel_error < 2e-2);
}

TEST_CASE("MLP without hidden layers is softmax regression", "[gradients]") {
  Mlp mlp(5, {}, 3);
  SoftmaxRegression softmax(5, 3);
  REQUIRE(mlp.num_params() == softmax.num_params());
  const auto p = initial(softmax, 9);
  const RandomBatch batch(3, 5, 3, 5);
  std::vector<float> g1(p.size()), g2(p.size());
  CHECK(mlp.loss_and_gradient(p, batch.view(), g1, 0) ==
        softmax.loss_and_gradient(p, batch.view(), g2, 0));
  CHECK(g1 == g2);
}

TEST_CASE("a broken gradient is caught by the check", "[gradients]") {
  // Guards the checker itself: a model whose gradient is off by a factor must fail it.
  struct Wrong : SoftmaxRegression {
    using SoftmaxRegression::SoftmaxRegression;
    float loss_and_gradient(std::span<const float> p, const Batch& b, std::span<float> g,
                            std::uint64_t s) override {
      const float loss = SoftmaxRegression::loss_and_gradient(p, b, g, s);
      for (float& v : g) v *= 1.1f;
      return loss;
    }
  } model(4, 3);
  const RandomBatch batch(3, 4, 3, 6);
  CHECK(check_gradient(model, initial(model, 1), batch.view(), 20, 1e-2f).max_rel_error > 4e-2);
}

TEST_CASE("initialisation is seeded and within the fan-in bound", "[models]") {
  Mlp model(16, {8}, 4);
  const auto a = initial(model, 11), b = initial(model, 11), c = initial(model, 12);
  CHECK(a == b);
  CHECK(a != c);
  for (std::size_t i = 0; i < 16 * 8; ++i) CHECK(std::abs(a[i]) <= 0.25f);  // 1/sqrt(16)
  CHECK(model.num_params() == 16 * 8 + 8 + 8 * 4 + 4);
  CHECK(model.name() == "mlp[8]");
  CHECK(model.forward_flops_per_sample() == 2.0 * 16 * 8 + 8 + 2.0 * 8 * 4 + 4);
}

namespace {

std::string read_source_file(const std::string& relative) {
  std::ifstream in(std::filesystem::path(FAILSIM_SOURCE_DIR) / relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The list's spellings as the docs write them: "`a`, `b` or `c`", each inside quote + ` marks.
std::string listed(const std::string& quote) {
  std::string out;
  for (std::size_t i = 0; i < MODEL_KINDS.size(); ++i) {
    if (i > 0) out += i + 1 == MODEL_KINDS.size() ? " or " : ", ";
    out += "`" + quote + std::string(MODEL_KINDS[i].first) + quote + "`";
  }
  return out;
}

}  // namespace

TEST_CASE("the list of models, the factory, the schema and the docs agree", "[models]") {
  std::set<std::string> spellings;
  for (const auto& [spelling, kind] : MODEL_KINDS) {
    INFO(spelling);
    spellings.insert(std::string(spelling));
    CHECK(to_string(kind) == spelling);
    ModelSpec spec;
    spec.kind = kind;
    spec.hidden = {8};
    spec.transformer = {1, 8, 2, 4, 4, true};
    // Its own input, and one error for the other (a window of text is no image).
    DataShape image{0, 1, 28, 28, 10, false};
    DataShape text{0, 1, 1, 5, 256, true};
    const bool tokens = input_of(kind) == ModelInput::TOKENS;
    const auto model = make_model(spec, tokens ? text : image);
    REQUIRE(model != nullptr);
    CHECK(model->num_params() > 0);
    CHECK(model->input_dim() == (tokens ? 5 : 28 * 28));
    CHECK_THROWS_WITH(make_model(spec, tokens ? image : text),
                      Catch::StartsWith("model \"" + std::string(spelling) + "\" takes "));
  }
  CHECK(spellings.size() == MODEL_KINDS.size());
  const auto schema = nlohmann::json::parse(read_source_file("scenarios/schema.json"));
  CHECK(schema["properties"]["model"]["properties"]["kind"]["enum"].get<std::set<std::string>>() ==
        spellings);
  CHECK_THAT(read_source_file("docs/scenario-format.md"),
             Catch::Contains("| `kind` | " + listed("\"") + " |"));
  CHECK_THAT(read_source_file("docs/cli.md"),
             Catch::Contains("| `--model` | " + listed("") + " |"));
}
