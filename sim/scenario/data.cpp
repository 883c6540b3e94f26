// The `data` section: the Fashion-MNIST files or the synthetic data set's parameters.
#include <filesystem>

#include <fmt/format.h>

#include "sim/scenario/sections.hpp"

namespace failsim::sim {
namespace fs = std::filesystem;
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

const Choices<DatasetKind> DATASET_KINDS{{"fashion-mnist", DatasetKind::FASHION_MNIST},
                                         {"synthetic", DatasetKind::SYNTHETIC}};

}  // namespace

std::string to_string(DatasetKind kind) { return spelling_of(kind, DATASET_KINDS); }

namespace detail {

DataConfig read_data(const ObjectReader& top, const std::string& file_label) {
  const ObjectReader r =
      top.object("data", {"kind", "dir", "train_limit", "test_limit", "num_classes", "dim",
                          "train_size", "test_size", "separation", "noise_sigma"});
  DataConfig d;
  d.kind = r.choice("kind", DATASET_KINDS);
  if (d.kind == DatasetKind::FASHION_MNIST) {
    for (const char* key :
         {"num_classes", "dim", "train_size", "test_size", "separation", "noise_sigma"}) {
      r.forbid(key, "it applies only to kind \"synthetic\"");
    }
    const std::string written = r.string_or("dir", models::FASHION_MNIST_DIR);
    if (r.has("dir")) check_path(r.at("dir"), written);
    d.dir = resolve_path(written, file_label);
    if (!fs::is_directory(d.dir)) {
      const std::string found =
          r.has("dir") ? fmt::format("\"{}\" (resolved to {}, not a directory)", written, d.dir)
                       : fmt::format(
                             "nothing, and the default {} does not exist (install the "
                             "Debian package dataset-fashion-mnist)",
                             d.dir);
      r.at("dir").fail("an existing directory holding the Fashion-MNIST IDX files", found);
    }
    d.train_limit = to_int(r.integer_or("train_limit", 0, 0, INT_LIMIT));
    d.test_limit = to_int(r.integer_or("test_limit", 0, 0, INT_LIMIT));
  } else {
    r.forbid("dir", "it applies only to kind \"fashion-mnist\"");
    r.forbid("train_limit", "kind \"synthetic\" sets its size with train_size");
    r.forbid("test_limit", "kind \"synthetic\" sets its size with test_size");
    SyntheticData& s = d.synthetic;
    s.dim = to_int(r.integer_or("dim", s.dim, 1, INT_LIMIT));
    s.num_classes = to_int(r.integer_or("num_classes", s.num_classes, 2, INT_LIMIT));
    if (s.num_classes > s.dim) {
      r.at("num_classes")
          .fail(fmt::format("an integer in [2, dim = {}] (the class means are orthonormal "
                            "directions, so there are at most dim classes)",
                            s.dim),
                std::to_string(s.num_classes));
    }
    s.train_size = to_int(r.integer_or("train_size", s.train_size, 1, INT_LIMIT));
    s.test_size = to_int(r.integer_or("test_size", s.test_size, 1, INT_LIMIT));
    s.separation = r.number_or("separation", s.separation, Interval::non_negative());
    s.noise_sigma = r.number_or("noise_sigma", s.noise_sigma, Interval::positive());
  }
  return d;
}

nlohmann::json data_to_json(const DataConfig& d) {
  nlohmann::json data{{"kind", to_string(d.kind)}};
  if (d.kind == DatasetKind::FASHION_MNIST) {
    data["dir"] = d.dir;
    data["train_limit"] = d.train_limit;
    data["test_limit"] = d.test_limit;
  } else {
    const SyntheticData& syn = d.synthetic;
    data["num_classes"] = syn.num_classes;
    data["dim"] = syn.dim;
    data["train_size"] = syn.train_size;
    data["test_size"] = syn.test_size;
    data["separation"] = syn.separation;
    data["noise_sigma"] = syn.noise_sigma;
  }
  return data;
}

}  // namespace detail
}  // namespace failsim::sim
