// The `model` section: which network, and its kind's own fields.
#include <fmt/format.h>

#include "sim/scenario/sections.hpp"

namespace failsim::sim {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

const Choices<ModelKind> MODEL_KINDS(models::MODEL_KINDS.begin(), models::MODEL_KINDS.end());

}  // namespace

namespace detail {
namespace {

constexpr const char* TRANSFORMER_KEYS[] = {"layers",    "heads", "sequence",
                                            "mlp_ratio", "tied",  "gradient_parts"};

/// The transformer's sizes. The bounds keep every size and product of the model's scratch (e.g.
/// the attention's T x T per head) far inside its integers; the memory check (resolve.hpp)
/// refuses a model too large for the machine well before them.
ModelSpec::Transformer read_transformer(const ObjectReader& r, int batch_size) {
  ModelSpec::Transformer t;
  t.layers = to_int(r.integer("layers", 1, 1024));
  t.hidden = to_int(r.integer("hidden", 1, 65536));
  t.heads = to_int(r.integer("heads", 1, 65536));
  if (t.hidden % t.heads != 0) {
    r.at("heads").fail(fmt::format("a divisor of hidden = {} (each head takes hidden / heads "
                                   "features)",
                                   t.hidden),
                       std::to_string(t.heads));
  }
  t.sequence = to_int(r.integer("sequence", 1, 65536));
  t.mlp_ratio = to_int(r.integer_or("mlp_ratio", t.mlp_ratio, 1, 64));
  t.tied = r.boolean_or("tied", t.tied);
  t.gradient_parts = to_int(r.integer_or("gradient_parts", t.gradient_parts, 1, 65536));
  // A part is at least one window.
  if (t.gradient_parts > batch_size) {
    r.at("gradient_parts")
        .fail(fmt::format("at most optimizer.batch_size = {} (each part is at least one window)",
                          batch_size),
              std::to_string(t.gradient_parts));
  }
  return t;
}

}  // namespace

ModelSpec read_model(const ObjectReader& top, int batch_size) {
  const ObjectReader r = top.object("model", {"kind", "hidden", "dropout", "layers", "heads",
                                              "sequence", "mlp_ratio", "tied", "gradient_parts"});
  ModelSpec m;
  m.kind = r.choice("kind", MODEL_KINDS);
  if (m.kind == ModelKind::MLP) {
    m.hidden = r.list("hidden", 1, "layer widths (integers >= 1)",
                      [](const nlohmann::json& v, const JsonLocation& where) {
                        return to_int(read_integer(v, where, 1, INT_LIMIT));
                      });
  } else if (m.kind != ModelKind::TRANSFORMER) {
    r.forbid("hidden", "it applies only to kinds \"mlp\" and \"transformer\"");
  }
  if (m.kind == ModelKind::TRANSFORMER) {
    m.transformer = read_transformer(r, batch_size);
  } else {
    for (const char* key : TRANSFORMER_KEYS) {
      r.forbid(key, "it applies only to kind \"transformer\"");
    }
  }
  if (m.kind == ModelKind::CNN) {
    m.dropout = r.number_or("dropout", m.dropout, Interval{0.0, 1.0, false, true});
  } else {
    r.forbid("dropout", "it applies only to kind \"cnn\"");
  }
  return m;
}

nlohmann::json model_to_json(const ModelSpec& m) {
  nlohmann::json model{{"kind", to_string(m.kind)}};
  if (m.kind == ModelKind::MLP) model["hidden"] = m.hidden;
  if (m.kind == ModelKind::CNN) model["dropout"] = m.dropout;
  if (m.kind == ModelKind::TRANSFORMER) {
    const ModelSpec::Transformer& t = m.transformer;
    model["layers"] = t.layers;
    model["hidden"] = t.hidden;
    model["heads"] = t.heads;
    model["sequence"] = t.sequence;
    model["mlp_ratio"] = t.mlp_ratio;
    model["tied"] = t.tied;
    // Written when split, so an unsplit run's resolved scenario is what it was before the field.
    if (t.gradient_parts > 1) model["gradient_parts"] = t.gradient_parts;
  }
  return model;
}

}  // namespace detail
}  // namespace failsim::sim
