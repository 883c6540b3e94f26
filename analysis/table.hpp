// `failsim table`: per-run metrics computed from result directories (run_summary.hpp), runs
// grouped into configurations (scenario.name) and seeds, and one table rendered as Markdown,
// CSV or LaTeX with the mean and 95% confidence interval over seeds (stats.hpp). Every column
// is defined in docs/tables.md. Engine-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/cost_model.hpp"
#include "analysis/run_summary.hpp"
#include "result_format/failure_window.hpp"

namespace failsim::analysis {

/// One failure of a run (result_format/failure_window.hpp: a `failure` or `link_failure` event, as
/// a window [begin, end) clipped to the run's end) and what it hit.
struct FailureWindow : result_format::FailureWindow {
  /// The host's role in summary.hosts is "server" (every chain host is one). Failures of
  /// hosts summary.hosts does not list count as not server-side.
  bool server_side = false;
  /// A `failure` that killed a parameter server process (details.process "server-<n>", or
  /// "shard-<k>.server-<n>" with sharded servers): the parameters stop moving until a
  /// `training_resumed` event (of that shard).
  bool killed_server = false;
  /// The killed server's shard prefix ("shard-<k>."; "" without shards): its shard's
  /// `training_resumed` subjects start with it.
  std::string shard_prefix{};
};

/// Every failure of `run`, in event order.
std::vector<FailureWindow> failure_windows(const RunSummary& run);

/// Per host of summary.hosts (once per host name, with the role of its first entry), the
/// intervals it was down: from each `failure` with down_for > 0 to the host's next `host_up`,
/// or to the run's end if none (a "forever" loss, or an outage still going on). A crash
/// (down_for 0) does not turn the host off. Link failures do not either.
std::vector<HostTimeline> host_timelines(const RunSummary& run);

/// A collective run's nodes (summary.collective.nodes and spares.nodes: a spare is billed like a
/// job node; named "node-<n>", role "node"), each
/// down from a `failure` whose details.nodes lists it for details.down_for (to the run's end
/// for "forever"), except under a `switch` failure: a leaf switch cuts its nodes off, but the
/// instances are intact and still held. Overlapping outages of one node are merged. Empty for a
/// parameter-server run. docs/cost-model.md#collective-runs.
std::vector<HostTimeline> node_timelines(const RunSummary& run);

/// Time of the first evaluation with test_accuracy >= target; none if never reached.
std::optional<double> time_to_accuracy(const std::vector<EvaluationPoint>& evaluations,
                                       double target);
/// The first evaluation with a (finite) test_loss <= target; nullptr if none reached it.
const EvaluationPoint* first_at_or_below_loss(const std::vector<EvaluationPoint>& evaluations,
                                              double target);
/// Accuracy of the last evaluation at time <= t; none if there is none.
std::optional<double> accuracy_at_or_before(const std::vector<EvaluationPoint>& evaluations,
                                            double t);
/// Lowest accuracy over the evaluations with time in (after, until]; none if there is none.
std::optional<double> lowest_accuracy_in(const std::vector<EvaluationPoint>& evaluations,
                                         double after, double until);
/// Total length of the union of `windows`' [begin, end) intervals (overlaps counted once).
double union_length(std::vector<FailureWindow> windows);

/// What happened around one server-side failure.
struct FailureOutcome {
  double time = 0.0;                      ///< s
  std::optional<double> accuracy_before;  ///< accuracy_at_or_before(time)
  /// lowest_accuracy_in(time, the next server-side failure's time or the run's end)
  std::optional<double> lowest_after;
  /// Recovery time: from the failure to the first `training_resumed` event at or after it (the
  /// first update applied since); none when the failure killed no server process (a worker's,
  /// a chain replica's, a link's) or training never resumed before the run's end.
  std::optional<double> recovery;
};

/// The metrics of one run (docs/tables.md defines each; runs.csv shows some, docs/sweeps.md).
struct RunMetrics {
  std::string configuration;  ///< scenario.name
  std::uint64_t seed = 0;
  std::filesystem::path directory;
  std::size_t root_index = 0;  ///< index of the DIR argument it was found under
  std::string status;
  std::optional<double> final_accuracy;
  std::optional<double> final_loss;             ///< nat: summary.final.test_loss
  bool language_model = false;                  ///< scenario.model.kind "transformer"
  std::vector<FailureOutcome> server_failures;  ///< in time order
  std::size_t failures = 0;                     ///< every failure, server-side or not
  std::optional<double> time_to_target;         ///< s
  /// The first evaluation at or below the target loss (first_at_or_below_loss): its time (s)
  /// and tokens; none without a target loss, if never reached, or (tokens) for a classifier.
  std::optional<double> time_to_target_loss;
  std::optional<double> tokens_to_target_loss;
  double end_time = 0.0;  ///< s: summary.end_time
  std::int64_t gradients_computed = 0;
  std::int64_t gradients_applied = 0;
  std::int64_t gradients_dropped = 0;
  std::int64_t gradients_lost = 0;
  std::int64_t gradients_pending_at_end = 0;
  std::int64_t updates = 0;
  std::int64_t updates_rolled_back = 0;
  std::int64_t gradients_rolled_back = 0;
  /// sum over workers of recovery_wait_seconds / (workers x union length of the server-side
  /// failure windows); none without a server-side window of positive length, or without workers.
  std::optional<double> idle_fraction;
  // The costs: none without a price book (run_metrics).
  std::optional<double> host_hours;          ///< Cost::host_hours of the whole run
  std::optional<double> cost_usd;            ///< Cost::usd of the whole run
  std::optional<double> cost_to_target_usd;  ///< Cost::usd until time_to_target
  /// cost_usd / (gradients_applied - gradients_rolled_back): the cost of each gradient the final
  /// parameters are made of (a stateless pile of 500 counts 500, not 1 update); none when 0.
  std::optional<double> cost_per_useful_gradient_usd;
  /// summary.collective of a collective run (its ETTR, time by cause, steps, tokens); none for
  /// a parameter-server run.
  std::optional<CollectiveRun> collective;
};

/// The metrics of `run` for a target accuracy in (0, 1] and a target validation loss (nat; none:
/// no loss target), but the costs, which stay none.
RunMetrics run_metrics(const RunSummary& run, double target,
                       std::optional<double> target_loss = std::nullopt);

/// run_metrics and the costs under a plan of `book` (cost_of_run's std::invalid_argument for an
/// unknown plan).
RunMetrics compute_metrics(const RunSummary& run, const PriceBook& book, const std::string& plan,
                           double target, std::optional<double> target_loss = std::nullopt);

/// The runs of one configuration, by increasing seed.
struct Configuration {
  std::string name;
  std::vector<RunMetrics> runs;
};

/// Groups runs by configuration. Configurations are ordered by the first DIR argument they
/// appear under, then by name in natural order (natural_order.hpp: 25 before 100). Two runs of one
/// configuration with the same seed throw input::InputError naming both directories.
std::vector<Configuration> group_runs(std::vector<RunMetrics> runs);

enum class TableFormat { MARKDOWN, CSV, LATEX };

/// "md", "csv", "latex"; std::nullopt for anything else.
std::optional<TableFormat> parse_table_format(const std::string& name);

/// What a table shows besides the runs.
struct TableLayout {
  double target = 0.70;
  /// The target validation loss (nat) of the time and tokens to it (`--target-loss`); none: no
  /// such columns.
  std::optional<double> target_loss;
  std::string plan;  ///< shown in the caption and the CSV
  /// The plan collective runs were priced with, when not `plan` (a price file's
  /// default_collective_plan); "": `plan`.
  std::string collective_plan;
  std::string prices;            ///< the price file, shown in the caption
  std::size_t max_failures = 3;  ///< at most this many "failure k" column triples
  bool per_run = false;          ///< CSV: one row per run instead of per configuration
  /// The metric columns to show, by key, in this order (`--columns`); {"all"}: every column of
  /// the table; empty: the default columns (MetricColumn::by_default) in Markdown and LaTeX,
  /// every column in CSV (docs/tables.md#columns).
  std::vector<std::string> columns;
};

/// One column of metrics.
struct MetricColumn {
  std::string key{};     ///< CSV name (with its unit), e.g. "time_to_target_s"
  std::string header{};  ///< human header without unit, e.g. "time to 0.7"
  std::string unit{};    ///< human unit, e.g. "s"; "" for a count
  double scale = 1.0;    ///< Markdown/LaTeX show value x scale (e.g. 1e6 for µUSD); CSV never
  /// Markdown/LaTeX always show how many runs have a value, "(m/n)"; otherwise only when some
  /// runs have none.
  bool show_count = false;
  std::function<std::optional<double>(const RunMetrics&)> value{};
  /// A column of the tables (selectable with --columns); false: a figure only runs.csv shows
  /// (sweep/aggregate.hpp picks its columns from this list by key).
  bool in_table = true;
  /// Shown without --columns in Markdown and LaTeX: the columns that answer the usual question
  /// (which configuration trained best, how much work was lost, how fast training resumed).
  bool by_default = false;
  /// A cost under the price plan: the caption names the plan only when such a column is shown.
  bool priced = false;
  /// A figure of collective runs only (summary.collective): a table without a collective run
  /// has no such column.
  bool collective = false;
  /// Shown without --columns when the table has a collective run: the columns that answer the
  /// collective question (ETTR, goodput, time lost, steps rolled back, restarts, final accuracy
  /// and cost when some run has one). docs/tables.md#collective-runs.
  bool collective_default = false;
  /// Shown without --columns in Markdown and LaTeX when some run is a language model (its
  /// validation loss and perplexity), whatever the protocol.
  bool language_model_default = false;
};

/// Every metric column, in table order: those of the tables, with `failure_triples` triples of
/// failure columns (accuracy before, lowest after, recovery time), `target` in the headers, the
/// time and tokens to `target_loss` when there is one, and those of runs.csv only. The one list
/// of the metrics a run is shown with.
std::vector<MetricColumn> all_metric_columns(std::size_t failure_triples, double target,
                                             std::optional<double> target_loss = std::nullopt);

/// The tables' columns of all_metric_columns, with K = min(layout.max_failures, the most
/// server-side failures of any run) triples of failure columns.
std::vector<MetricColumn> metric_columns(const std::vector<Configuration>& configurations,
                                         const TableLayout& layout);

/// "mean ± half-width" rounded to the half-width's second significant digit, e.g.
/// "0.8431 ± 0.0041". When there is no interval (n = 1) or it is 0: the mean to 3 significant
/// digits, a whole number without decimals ("0.0120 ± 0", "48 ± 0", "0.812").
std::string format_mean_interval(double mean, std::optional<double> half_width);

/// The whole table as text (ending in a newline). Throws TableOptionError when
/// layout.columns names a key that is not one of these runs' columns, or "all" with others.
std::string render_table(const std::vector<Configuration>& configurations, TableFormat format,
                         const TableLayout& layout);

/// A bad option of `failsim table` (format, target, plan, price file): what() names the option,
/// the expectation and the found value.
class TableOptionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Everything `failsim table` is asked (docs/cli.md).
struct TableRequest {
  std::vector<std::filesystem::path> directories;
  std::string format = "md";
  double target = 0.70;
  std::optional<double> target_loss;  ///< `--target-loss`, nat
  std::filesystem::path prices;
  /// `prices` is the built-in default (the source tree's analysis/prices.json), not the user's.
  bool prices_is_default = false;
  /// "" = the price book's default_plan, and its default_collective_plan for collective runs
  std::string plan;
  std::size_t max_failures = 3;
  bool per_run = false;
  std::vector<std::string> columns;  ///< TableLayout::columns
};

/// Checks the options, reads the price file and every result directory, and renders the table.
/// Throws TableOptionError for a bad option and input::InputError for a bad file (a price file,
/// a result directory, a duplicate seed). Writes nothing.
std::string make_table(const TableRequest& request);

/// make_table as a command calls it: the table, or the message of the TableOptionError or
/// input::InputError it threw (the user's options or files are wrong: exit status 2,
/// docs/cli.md). Other exceptions pass through.
struct TableOrError {
  std::string table;
  std::optional<std::string> error;
};
TableOrError make_table_or_error(const TableRequest& request);

}  // namespace failsim::analysis
