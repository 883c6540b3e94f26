// The `optimizer` section: SGD's or AdamW's settings and the batch size.
#include <fmt/format.h>

#include "sim/scenario/sections.hpp"

namespace failsim::sim {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

const Choices<OptimizerKind> OPTIMIZER_KINDS{{"sgd", OptimizerKind::SGD},
                                             {"adamw", OptimizerKind::ADAMW}};

constexpr const char* ADAMW_ONLY[] = {"beta1",       "beta2",        "eps",      "warmup_steps",
                                      "decay_steps", "min_lr_ratio", "clip_norm"};

// AdamW's defaults where they differ from SGD's (models::AdamWConfig's, nanoGPT's and GPT-3's).
constexpr double ADAMW_LEARNING_RATE = 6e-4;
constexpr double ADAMW_WEIGHT_DECAY = 0.1;

OptimizerConfig read_adamw(const ObjectReader& r, OptimizerConfig o) {
  r.forbid("momentum", "it applies only to kind \"sgd\"; AdamW's is beta1");
  const Interval fraction{0.0, 1.0, false, true};
  o.learning_rate = r.number_or("learning_rate", ADAMW_LEARNING_RATE, Interval::positive());
  o.weight_decay = r.number_or("weight_decay", ADAMW_WEIGHT_DECAY, Interval::non_negative());
  o.beta1 = r.number_or("beta1", o.beta1, fraction);
  o.beta2 = r.number_or("beta2", o.beta2, fraction);
  o.eps = r.number_or("eps", o.eps, Interval::positive());
  o.warmup_steps = r.integer_or("warmup_steps", o.warmup_steps, 0);
  o.decay_steps = r.integer_or("decay_steps", o.decay_steps, 0);
  if (o.decay_steps != 0 && o.decay_steps <= o.warmup_steps) {
    r.at("decay_steps")
        .fail(fmt::format("0 (no decay) or an integer > warmup_steps ({})", o.warmup_steps),
              std::to_string(o.decay_steps));
  }
  o.min_lr_ratio = r.number_or("min_lr_ratio", o.min_lr_ratio, {0.0, 1.0, false, false});
  o.clip_norm = r.number_or("clip_norm", o.clip_norm, Interval::non_negative());
  return o;
}

}  // namespace

std::string to_string(OptimizerKind kind) { return spelling_of(kind, OPTIMIZER_KINDS); }

namespace detail {

OptimizerConfig read_optimizer(const ObjectReader& top) {
  const ObjectReader r = top.object_or_empty(
      "optimizer", {"kind", "learning_rate", "momentum", "weight_decay", "batch_size", "beta1",
                    "beta2", "eps", "warmup_steps", "decay_steps", "min_lr_ratio", "clip_norm"});
  OptimizerConfig o;
  o.kind = r.choice_or("kind", OptimizerKind::SGD, OPTIMIZER_KINDS);
  o.batch_size = to_int(r.integer_or("batch_size", o.batch_size, 1, INT_LIMIT));
  if (o.kind == OptimizerKind::ADAMW) return read_adamw(r, o);
  for (const char* key : ADAMW_ONLY) r.forbid(key, "it applies only to kind \"adamw\"");
  o.learning_rate = r.number_or("learning_rate", o.learning_rate, Interval::positive());
  o.momentum = r.number_or("momentum", o.momentum, Interval{0.0, 1.0, false, true});
  o.weight_decay = r.number_or("weight_decay", o.weight_decay, Interval::non_negative());
  return o;
}

// SGD's section is written without its kind, as it was before AdamW: an SGD scenario's resolved
// copy, and so its result files, stay byte for byte what they were.
nlohmann::json optimizer_to_json(const OptimizerConfig& o) {
  if (o.kind == OptimizerKind::SGD) {
    return {{"learning_rate", o.learning_rate},
            {"momentum", o.momentum},
            {"weight_decay", o.weight_decay},
            {"batch_size", o.batch_size}};
  }
  return {{"kind", to_string(o.kind)},
          {"learning_rate", o.learning_rate},
          {"beta1", o.beta1},
          {"beta2", o.beta2},
          {"eps", o.eps},
          {"weight_decay", o.weight_decay},
          {"warmup_steps", o.warmup_steps},
          {"decay_steps", o.decay_steps},
          {"min_lr_ratio", o.min_lr_ratio},
          {"clip_norm", o.clip_norm},
          {"batch_size", o.batch_size}};
}

}  // namespace detail
}  // namespace failsim::sim
