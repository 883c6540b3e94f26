// The `data` section: the Fashion-MNIST files, the synthetic data set's parameters or the text
// corpus.
#include <filesystem>

#include <fmt/format.h>

#include "sim/scenario/sections.hpp"

namespace failsim::sim {
namespace fs = std::filesystem;
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

const Choices<DatasetKind> DATASET_KINDS{{"fashion-mnist", DatasetKind::FASHION_MNIST},
                                         {"synthetic", DatasetKind::SYNTHETIC},
                                         {"text", DatasetKind::TEXT}};

constexpr const char* SYNTHETIC_KEYS[] = {"num_classes", "dim",        "train_size",
                                          "test_size",   "separation", "noise_sigma"};

}  // namespace

std::string to_string(DatasetKind kind) { return spelling_of(kind, DATASET_KINDS); }

namespace detail {
namespace {

/// The directory a data kind reads from (`key`: "dir" or "corpus"), resolved against the
/// scenario file: refused at the field unless it is a directory, naming the Debian package that
/// installs the default.
std::string read_directory(const ObjectReader& r, const std::string& file_label, const char* key,
                           const char* fallback, const char* holding, const char* package) {
  const std::string written = r.string_or(key, fallback);
  if (r.has(key)) check_path(r.at(key), written);
  const std::string dir = resolve_path(written, file_label);
  if (!fs::is_directory(dir)) {
    const std::string found =
        r.has(key) ? fmt::format("\"{}\" (resolved to {}, not a directory)", written, dir)
                   : fmt::format(
                         "nothing, and the default {} does not exist (install the Debian package "
                         "{})",
                         dir, package);
    r.at(key).fail(fmt::format("an existing directory holding {}", holding), found);
  }
  return dir;
}

}  // namespace

DataConfig read_data(const ObjectReader& top, const std::string& file_label) {
  const ObjectReader r =
      top.object("data", {"kind", "dir", "corpus", "train_limit", "test_limit", "num_classes",
                          "dim", "train_size", "test_size", "separation", "noise_sigma"});
  DataConfig d;
  d.kind = r.choice("kind", DATASET_KINDS);
  if (d.kind != DatasetKind::SYNTHETIC) {
    for (const char* key : SYNTHETIC_KEYS) r.forbid(key, "it applies only to kind \"synthetic\"");
    if (d.kind == DatasetKind::FASHION_MNIST) {
      r.forbid("corpus", "it applies only to kind \"text\" (Fashion-MNIST's is `dir`)");
      d.dir = read_directory(r, file_label, "dir", models::FASHION_MNIST_DIR,
                             "the Fashion-MNIST IDX files", "dataset-fashion-mnist");
    } else {
      r.forbid("dir", "it applies only to kind \"fashion-mnist\" (the text's is `corpus`)");
      d.dir = read_directory(r, file_label, "corpus", models::FORTUNES_DIR,
                             "the plain-text files of the corpus", "fortunes");
    }
    d.train_limit = to_int(r.integer_or("train_limit", 0, 0, INT_LIMIT));
    d.test_limit = to_int(r.integer_or("test_limit", 0, 0, INT_LIMIT));
  } else {
    r.forbid("dir", "it applies only to kind \"fashion-mnist\"");
    r.forbid("corpus", "it applies only to kind \"text\"");
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
  if (d.kind != DatasetKind::SYNTHETIC) {
    data[d.kind == DatasetKind::TEXT ? "corpus" : "dir"] = d.dir;
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
