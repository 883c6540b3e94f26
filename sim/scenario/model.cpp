// The `model` section: which network, and its kind's own fields.
#include "sim/scenario/sections.hpp"

namespace failsim::sim {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

const Choices<ModelKind> MODEL_KINDS(models::MODEL_KINDS.begin(), models::MODEL_KINDS.end());

}  // namespace

namespace detail {

ModelSpec read_model(const ObjectReader& top) {
  const ObjectReader r = top.object("model", {"kind", "hidden", "dropout"});
  ModelSpec m;
  m.kind = r.choice("kind", MODEL_KINDS);
  if (m.kind == ModelKind::MLP) {
    m.hidden = r.list("hidden", 1, "layer widths (integers >= 1)",
                      [](const nlohmann::json& v, const JsonLocation& where) {
                        return to_int(read_integer(v, where, 1, INT_LIMIT));
                      });
  } else {
    r.forbid("hidden", "it applies only to kind \"mlp\"");
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
  return model;
}

}  // namespace detail
}  // namespace failsim::sim
