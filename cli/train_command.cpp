// `failsim train`: sequential mini-batch SGD with no simulation around it. It checks the math
// on its own (e.g. one epoch of the study's CNN on Fashion-MNIST) and prints test accuracy.
#include <fmt/core.h>
#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "cli/commands.hpp"
#include "input/option_checks.hpp"
#include "models/idx.hpp"
#include "models/model_spec.hpp"
#include "models/trainer.hpp"

namespace failsim::cli {

namespace {
struct TrainOptions {
  models::ModelKind model = models::ModelKind::CNN;
  std::vector<int> hidden{128};
  int epochs = 1;
  int batch = 32;
  float lr = 0.01f;
  std::uint64_t seed = 1;
  int train_limit = -1;
  std::string data_dir = models::FASHION_MNIST_DIR;
};

/// Prints `failsim train: OPTION: expected EXPECTED, found FOUND` (the style of every input
/// error, input/input_error.hpp) and returns BAD_INPUT.
int refuse(const std::string& option, const std::string& expected, const std::string& found) {
  fmt::print(stderr, "failsim train: {}: expected {}, found {}\n", option, expected, found);
  return BAD_INPUT;
}

int run_train(const TrainOptions& o) {
  // Every option is checked before the data is read, then the batch against the data.
  if (o.train_limit == 0 || o.train_limit < -1) {
    return refuse("--train-limit", "-1 (every training sample) or an integer >= 1",
                  std::to_string(o.train_limit));
  }
  if (models::input_of(o.model) == models::ModelInput::TOKENS) {
    return refuse("--model",
                  "a model of images (`failsim train` reads Fashion-MNIST only; a model of text "
                  "trains in a scenario with data kind \"text\")",
                  models::to_string(o.model));
  }
  for (const int width : o.hidden) {
    if (width <= 0 && o.model == models::ModelKind::MLP) {
      return refuse("--hidden", "layer widths >= 1", fmt::format("{}", fmt::join(o.hidden, " ")));
    }
  }
  models::Dataset train_set, test_set;
  try {
    train_set =
        models::load_idx_split(o.data_dir, models::Split::TRAIN, "fashion-mnist", o.train_limit);
    test_set = models::load_idx_split(o.data_dir, models::Split::TEST, "fashion-mnist");
  } catch (const models::DataError& e) {
    return refuse("--data-dir", "a directory of Fashion-MNIST IDX files that load", e.what());
  }
  if (o.batch > train_set.size()) {
    return refuse("--batch",
                  fmt::format("at most the {} training samples{}", train_set.size(),
                              o.train_limit > 0 ? " of --train-limit" : ""),
                  std::to_string(o.batch));
  }
  try {
    models::ModelSpec spec;
    spec.kind = o.model;
    spec.hidden = o.hidden;
    auto model = models::make_model(spec, train_set.shape());
    models::TrainConfig config;
    config.epochs = o.epochs;
    config.batch_size = o.batch;
    config.sgd.learning_rate = o.lr;
    config.seed = o.seed;
    fmt::print("training {} ({} parameters) on {} samples, batch {}, lr {}, seed {}\n",
               model->name(), model->num_params(), train_set.size(), o.batch, o.lr, o.seed);
    models::train(*model, train_set, test_set, config, [&](const models::EpochReport& r) {
      fmt::print(
          "epoch {}: train loss {:.4f}, test loss {:.4f}, test accuracy {:.4f} ({:.1f} s of "
          "math)\n",
          r.epoch, r.train_loss, r.test.loss, r.test.accuracy, r.math_seconds);
    });
  } catch (const std::invalid_argument& e) {
    // A model that does not suit the data (checked above for what an option can cause).
    return refuse("--model", "a model for the data's samples", e.what());
  }
  return OK;
}
}  // namespace

Command add_train_command(CLI::App& app) {
  auto options = std::make_shared<TrainOptions>();
  CLI::App* sub =
      app.add_subcommand("train", "Train a model with plain SGD on Fashion-MNIST (no simulation)");
  std::vector<std::string> names;
  for (const auto& [spelling, kind] : models::MODEL_KINDS) names.emplace_back(spelling);
  sub->add_option_function<std::string>(
         "--model",
         [options](const std::string& name) {
           for (const auto& [spelling, kind] : models::MODEL_KINDS) {
             if (spelling == name) options->model = kind;
           }
         },
         fmt::format("{} (default: cnn, the study's CNN)", fmt::join(names, ", ")))
      ->check(input::one_of(names));
  sub->add_option("--hidden", options->hidden, "MLP hidden layer sizes")->capture_default_str();
  sub->add_option("--epochs", options->epochs, "passes over the training set")
      ->check(input::whole_number<int>(1))
      ->capture_default_str();
  sub->add_option("--batch", options->batch, "mini-batch size")
      ->check(input::whole_number<int>(1))
      ->capture_default_str();
  sub->add_option("--lr", options->lr, "learning rate")
      ->check(input::positive("a learning rate"))
      ->capture_default_str();
  sub->add_option("--seed", options->seed, "seed of initialisation, shuffling and dropout")
      ->check(input::whole_number<std::uint64_t>(0))
      ->capture_default_str();
  sub->add_option("--train-limit", options->train_limit,
                  "use only the first N training samples (-1: all)")
      ->capture_default_str();
  sub->add_option("--data-dir", options->data_dir, "directory with the IDX files")
      ->capture_default_str();
  return {sub, [options] { return run_train(*options); }};
}

}  // namespace failsim::cli
