#include "sim/output/result_writer.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "input/atomic_file.hpp"
#include "models/model_kind.hpp"
#include "result_format/event_type.hpp"
#include "result_format/sha256.hpp"
#include "sim/output/provenance.hpp"

namespace failsim::sim {

namespace {
// Shortest text that reads back as the same double: deterministic and lossless.
std::string number(double v) { return fmt::format("{}", v); }

/// exp(test loss): the perplexity of a language model's validation text (docs/result-format.md).
double perplexity(const EvalRecord& e) { return std::exp(e.test_loss); }

nlohmann::json eval_json(const EvalRecord& e) {
  return {{"time", e.time},
          {"version", e.version},
          {"test_accuracy", e.test_accuracy},
          {"test_loss", e.test_loss},
          {"test_perplexity", perplexity(e)},
          {"test_samples", e.test_samples}};
}

/// A collective run's own summary (docs/result-format.md, "summary.collective").
nlohmann::json collective_json(const CollectiveSummary& c) {
  nlohmann::json time = nlohmann::json::object();
  for (std::size_t k = 0; k < TIME_CAUSES; ++k)
    time[std::string(spelling(static_cast<TimeCause>(k)))] = c.seconds[k];
  const CollectiveCounts& n = c.counts;
  // A step's tokens are its samples' (sequences of one length): a smaller batch has fewer.
  const double tokens_per_sample =
      c.samples_per_step > 0 ? c.tokens_per_step / c.samples_per_step : 0.0;
  return {
      {"math", c.real_math ? "real" : "none"},
      {"ranks", c.ranks},
      {"nodes", c.nodes},
      {"ettr", c.ettr},
      {"time", time},
      {"steps",
       {{"completed", n.steps_completed},
        {"rolled_back", n.steps_rolled_back},
        {"kept", c.version}}},
      {"tokens", {{"per_step", c.tokens_per_step}, {"kept", tokens_per_sample * c.samples_kept}}},
      {"samples",
       {{"per_step", c.samples_per_step},
        {"completed", n.samples_completed},
        {"rolled_back", n.samples_rolled_back},
        {"kept", c.samples_kept}}},
      {"failures", n.failures},
      {"restarts", n.restarts},
      {"checkpoints", n.checkpoints},
      {"spares",
       {{"nodes", c.spare_nodes},
        {"swaps", n.spare_swaps},
        {"pool_node_hours", c.pool_node_hours}}},
      {"step",
       {{"nominal_seconds", n.nominal_step_seconds},
        {"compute_seconds", c.compute_seconds},
        {"bubble_fraction", c.bubble_fraction},
        {"tensor_parallel_seconds", n.tensor_parallel_seconds},
        {"pipeline_send_seconds", n.pipeline_send_seconds},
        {"data_parallel_seconds", n.data_parallel_seconds},
        {"flops", c.step_flops},
        {"flows", c.flows_per_step}}},
      {"device_memory_bytes", c.device_memory_bytes},
      {"checkpoint_bytes", c.checkpoint_bytes}};
}

/// The time of the first scheduled evaluation at or above each accuracy level: 0.5 .. 0.9 and
/// the stop's target accuracy (null: never reached).
nlohmann::json time_to_accuracy_json(const std::vector<EvalRecord>& evals,
                                     const std::optional<double>& target_accuracy) {
  nlohmann::json reached = nlohmann::json::object();
  std::vector<double> levels{0.5, 0.6, 0.7, 0.8, 0.9};
  if (target_accuracy) levels.push_back(*target_accuracy);
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  for (double level : levels) {
    const auto it = std::find_if(evals.begin(), evals.end(),
                                 [&](const auto& e) { return e.test_accuracy >= level; });
    reached[fmt::format("{}", level)] =
        it == evals.end() ? nlohmann::json(nullptr) : nlohmann::json(it->time);
  }
  return reached;
}

/// Each shard's parameter range and updates.
nlohmann::json shards_json(const RunResult& r) {
  nlohmann::json shards = nlohmann::json::array();
  for (std::size_t k = 0; k < r.shard_ranges.size(); ++k) {
    const auto n = static_cast<int>(k);
    shards.push_back({{"offset", r.shard_ranges[k].offset},
                      {"params", r.shard_ranges[k].size},
                      {"updates", r.recorder.updates(n)}});
  }
  return shards;
}

/// The applied gradients' staleness: mean, max and histogram.
nlohmann::json staleness_json(const Recorder& rec) {
  std::int64_t count = 0, max = 0;
  double sum = 0;
  nlohmann::json histogram = nlohmann::json::object();
  for (const auto& [staleness, n] : rec.staleness()) {
    count += n;
    sum += static_cast<double>(staleness * n);
    max = std::max(max, staleness);
    histogram[std::to_string(staleness)] = n;
  }
  return {{"mean", count ? sum / static_cast<double>(count) : 0.0},
          {"max", max},
          {"histogram", histogram}};
}

/// Each server host, then each worker host: its busy, recovery-wait, down and idle seconds.
nlohmann::json hosts_json(const RunResult& r) {
  const Recorder& rec = r.recorder;
  nlohmann::json hosts = nlohmann::json::array();
  auto add_hosts = [&](const std::vector<std::string>& names, const char* role) {
    auto seconds = [](const std::map<std::string, double>& m, const std::string& name) {
      const auto it = m.find(name);
      return it == m.end() ? 0.0 : it->second;
    };
    for (const std::string& name : names) {
      const double busy = seconds(rec.busy_seconds(), name);
      const double waiting = seconds(rec.recovery_wait_seconds(), name);
      const double down = seconds(rec.down_seconds(), name);
      hosts.push_back({{"host", name},
                       {"role", role},
                       {"busy_seconds", busy},
                       {"recovery_wait_seconds", waiting},
                       {"down_seconds", down},
                       {"idle_seconds", r.end_time - busy - waiting - down},
                       {"utilisation", r.end_time > 0 ? busy / r.end_time : 0.0}});
    }
  };
  add_hosts(r.server_hosts, "server");
  add_hosts(r.worker_hosts, "worker");
  return hosts;
}

nlohmann::json summary_json(const RunResult& r) {
  const Recorder& rec = r.recorder;
  nlohmann::json s;
  s["status"] = to_string(r.status);
  s["stop_reason"] = r.stop_reason;
  s["end_time"] = r.end_time;

  const auto& evals = rec.evaluations();
  const EvalRecord* last =
      r.final_evaluation ? &*r.final_evaluation : (evals.empty() ? nullptr : &evals.back());
  s["final"] = last ? eval_json(*last) : nlohmann::json(nullptr);
  const EvalRecord* best =
      best_evaluation(evals, models::input_of(r.scenario.model.kind) == models::ModelInput::TOKENS);
  s["best"] = best == nullptr ? nlohmann::json(nullptr) : eval_json(*best);
  s["time_to_accuracy"] = time_to_accuracy_json(evals, r.scenario.stop.target_accuracy);

  s["updates"] = rec.updates();
  s["updates_rolled_back"] = rec.updates_rolled_back();
  // computed = applied + dropped + lost + pending_at_end (run() checks it).
  s["gradients"] = {
      {"computed", rec.gradients_computed()},  {"applied", rec.gradients_applied()},
      {"dropped", rec.gradients_dropped()},    {"lost", rec.gradients_lost()},
      {"pending_at_end", r.gradients_pending}, {"rolled_back", rec.gradients_rolled_back()}};
  s["peak_pending_gradients"] = r.peak_pending;
  s["peak_pending_bytes"] = r.peak_pending_bytes;
  if (r.shard_ranges.size() > 1) s["shards"] = shards_json(r);

  const auto lead = rec.max_clock_lead();
  s["max_clock_lead"] = lead ? nlohmann::json(*lead) : nlohmann::json(nullptr);
  s["staleness"] = staleness_json(rec);
  s["hosts"] = hosts_json(r);
  s["model"] = {{"params", r.num_params},
                {"param_bytes", r.param_bytes},
                {"gradient_flops", r.gradient_flops}};
  if (r.collective) s["collective"] = collective_json(*r.collective);
  return s;
}

}  // namespace

const EvalRecord* best_evaluation(const std::vector<EvalRecord>& evaluations, bool language_model) {
  const EvalRecord* best = nullptr;
  for (const EvalRecord& e : evaluations) {
    // Strict comparisons keep the earliest of equals; a NaN loss is never lower than another.
    if (language_model ? std::isfinite(e.test_loss) && (!best || e.test_loss < best->test_loss)
                       : !best || e.test_accuracy > best->test_accuracy) {
      best = &e;
    }
  }
  return best;
}

std::string scenario_sha256(const Scenario& scenario) {
  return result_format::sha256_hex(to_json(scenario).dump());
}

nlohmann::json result_json(const RunResult& r, const std::vector<std::string>& command_line) {
  nlohmann::json j;
  j["format"] = "failsim-result";
  j["format_version"] = 1;
  j["scenario"] = to_json(r.scenario);
  j["scenario_sha256"] = result_format::sha256_hex(j["scenario"].dump());
  j["provenance"] = provenance_json(command_line);
  j["summary"] = summary_json(r);
  nlohmann::json events = nlohmann::json::array();
  for (const EventRecord& e : r.recorder.events()) {
    events.push_back({{"time", e.time},
                      {"type", std::string(result_format::spelling(e.type))},
                      {"subject", e.subject},
                      {"details", e.details}});
  }
  j["events"] = events;
  j["wall_clock"] = {{"setup_seconds", r.setup_seconds},
                     {"math_seconds", r.math_seconds},
                     {"total_seconds", r.wall_seconds}};
  return j;
}

std::string timeseries_csv(const RunResult& r) {
  std::string out =
      "time,version,test_accuracy,test_loss,test_perplexity,train_loss,test_samples,"
      "gradients_computed,gradients_applied,tokens\n";
  for (const EvalRecord& e : r.recorder.evaluations()) {
    out +=
        fmt::format("{},{},{},{},{},{},{},{},{},{}\n", number(e.time), e.version,
                    number(e.test_accuracy), number(e.test_loss), number(perplexity(e)),
                    e.train_loss ? number(*e.train_loss) : "", e.test_samples, e.gradients_computed,
                    e.gradients_applied, e.tokens ? number(*e.tokens) : "");
  }
  return out;
}

namespace {

/// A CSV field, quoted (inner quotes doubled, RFC 4180) only when it holds a comma, a quote or a
/// line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + '"';
}

/// A scalar of an event's details as events.csv writes it: a number as in result files, a
/// string as it is, true/false, null empty.
std::string scalar_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return v.dump();
  if (v.is_number()) return number(v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return "";
}

/// An event's details as (column, text) pairs: a member `k` is column `k`, a member of a
/// nested object `k.m`; a list of scalars is one field, its elements joined by a space (node
/// indices, checkpoint levels); a list holding objects or lists numbers its elements (`k.0.m`).
void flatten_details(const nlohmann::json& v, const std::string& column,
                     std::vector<std::pair<std::string, std::string>>& out) {
  if (v.is_object()) {
    for (const auto& [key, member] : v.items()) {
      flatten_details(member, column.empty() ? key : column + '.' + key, out);
    }
  } else if (v.is_array()) {
    const bool scalars = std::none_of(
        v.begin(), v.end(), [](const nlohmann::json& e) { return e.is_object() || e.is_array(); });
    if (scalars) {
      std::string joined;
      for (const auto& e : v) {
        if (!joined.empty()) joined += ' ';
        joined += scalar_text(e);
      }
      out.emplace_back(column, joined);
    } else {
      for (std::size_t i = 0; i < v.size(); ++i) {
        flatten_details(v[i], column + '.' + std::to_string(i), out);
      }
    }
  } else {
    out.emplace_back(column, scalar_text(v));
  }
}

}  // namespace

std::string events_csv(const RunResult& r) {
  // One column per detail that some event of the run has, in name order: every field is flat,
  // so a spreadsheet or pandas reads it without a JSON parser (docs/result-format.md).
  std::vector<std::vector<std::pair<std::string, std::string>>> details;
  details.reserve(r.recorder.events().size());
  std::map<std::string, std::size_t> columns;
  for (const EventRecord& e : r.recorder.events()) {
    details.emplace_back();
    flatten_details(e.details, "", details.back());
    for (const auto& [column, text] : details.back()) columns.emplace(column, 0);
  }
  std::string out = "time,type,subject";
  std::size_t index = 0;
  for (auto& [column, i] : columns) {
    i = index++;
    out += ',' + csv_field(column);
  }
  out += '\n';
  std::vector<std::string> row(columns.size());
  for (std::size_t k = 0; k < details.size(); ++k) {
    const EventRecord& e = r.recorder.events()[k];
    std::fill(row.begin(), row.end(), std::string());
    for (const auto& [column, text] : details[k]) row[columns.at(column)] = text;
    out += fmt::format("{},{},{}", number(e.time), result_format::spelling(e.type),
                       csv_field(e.subject));
    for (const std::string& field : row) out += ',' + csv_field(field);
    out += '\n';
  }
  return out;
}

std::string intervals_csv(const RunResult& r) {
  std::vector<const IntervalRecord*> rows;
  rows.reserve(r.recorder.intervals().size());
  for (const IntervalRecord& i : r.recorder.intervals()) rows.push_back(&i);
  // Recorded as they end; read as they begin (stable: ties keep the recording order).
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto* a, const auto* b) { return a->begin < b->begin; });
  std::string out = "host,state,begin,end\n";
  for (const IntervalRecord* i : rows) {
    out +=
        fmt::format("{},{},{},{}\n", i->host, spelling(i->state), number(i->begin), number(i->end));
  }
  return out;
}

namespace {
void remove_file(const std::filesystem::path& path) {
  std::error_code error;
  std::filesystem::remove(path, error);
  if (error) {
    throw std::runtime_error(
        fmt::format("{}: cannot be removed: {}", path.string(), error.message()));
  }
}
}  // namespace

void write_result_directory(const RunResult& result, const std::string& directory,
                            const std::vector<std::string>& command_line) {
  const std::filesystem::path dir(directory);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
    throw std::runtime_error(
        fmt::format("{}: cannot create directory: {}", directory, error.message()));
  // result.json marks a complete result directory: gone before any other file changes.
  remove_file(dir / "result.json");
  const struct {
    const char* name;
    bool written;
    std::string (*text)(const RunResult&);
  } data_files[] = {
      {"timeseries.csv", result.scenario.output.timeseries, timeseries_csv},
      {"events.csv", result.scenario.output.events, events_csv},
      {"intervals.csv", result.scenario.output.intervals, intervals_csv},
  };
  for (const auto& file : data_files) {
    if (file.written) {
      input::write_atomically(dir / file.name, file.text(result));
    } else {
      remove_file(dir / file.name);  // an earlier run's, which this result does not describe
    }
  }
  input::write_atomically(dir / "result.json", result_json(result, command_line).dump(2) + "\n");
}

void check_result_directory(const std::string& directory) {
  namespace fs = std::filesystem;
  fs::path existing = fs::absolute(fs::path(directory));
  std::error_code error;
  while (!fs::exists(existing, error) && existing.has_parent_path() &&
         existing != existing.parent_path()) {
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing, error)) {
    throw std::runtime_error(fmt::format("{}: cannot be a result directory ({} is not a directory)",
                                         directory, existing.string()));
  }
  // A real file, as the run will write one: permissions, read-only file systems and ACLs alike.
  const fs::path probe = existing / fmt::format(".failsim-write-check-{}", getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    const int reason = errno;
    throw std::runtime_error(fmt::format("{}: cannot write the result directory ({}: {})",
                                         directory, existing.string(), std::strerror(reason)));
  }
  ::close(fd);
  fs::remove(probe, error);
}

}  // namespace failsim::sim
