#include "sim/collective/job/collective_job.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>

#include "sim/engine/log.hpp"
#include "sim/engine/never.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(collective_job, failsim,
                                "the collective job: steps, failures, restarts");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;
namespace {
// The resolution of an activity's end: SimGrid's surf/precision (1e-9 s unless --cfg says).
double timing_precision() { return simgrid::config::get_value<double>("surf/precision"); }

std::string node_name(int n) { return "node-" + std::to_string(n); }

/// Platform nodes: the plan's, then any spares.
int platform_nodes(const StepNetwork& network) {
  return static_cast<int>(network.platform().accelerators.size() /
                          static_cast<std::size_t>(network.platform().accelerators_per_node));
}

/// The platform without its spares: an idle spare's slow spells slow no step (stragglers are
/// drawn for the job's nodes).
ClusterPlatformConfig job_nodes_only(ClusterPlatformConfig platform) {
  platform.spares = 0;
  return platform;
}
}  // namespace

CollectiveJob::CollectiveJob(const Scenario& scenario, const CollectivePlan& plan,
                             StepNetwork& network, ReplicaMath* math, TrainingMath* training,
                             Recorder& recorder, std::unique_ptr<CollectiveRecovery> recovery,
                             Options options)
    : scenario_(scenario),
      plan_(plan),
      network_(network),
      math_(math),
      training_(training),
      recorder_(recorder),
      options_(std::move(options)),
      nodes_(scenario, platform_nodes(network)),
      stragglers_(scenario.collective.failures, job_nodes_only(scenario.collective.platform),
                  scenario.seed),
      recovery_(std::move(recovery)),
      spares_(nodes_, recorder, counts_),
      evaluations_(scenario, math, training, recorder, options_.on_evaluation,
                   [this] { return tokens_kept(); }) {
  reassign(network.assignment());
}

CollectiveJob::~CollectiveJob() = default;

double CollectiveJob::now() const { return sg4::Engine::get_clock(); }

std::optional<double> CollectiveJob::tokens_kept() const {
  // Evaluations come before the step that completes at their time is counted, so the kept
  // steps are those of the parameters evaluated (DiLoCo's: with the inner steps of the round).
  if (models::input_of(scenario_.model.kind) != models::ModelInput::TOKENS ||
      plan_.samples_per_step <= 0)
    return std::nullopt;
  return ledger_.samples_kept() * plan_.tokens_per_step / plan_.samples_per_step;
}

double CollectiveJob::deadline() const {
  const Outage* next = nodes_.next_outage();
  double d = next != nullptr ? next->at : NEVER;
  d = std::min(d, scenario_.stop.time.value_or(NEVER));
  return std::min(d, stop_at());
}

Interrupt CollectiveJob::interrupt_at_deadline() const {
  const Outage* next = nodes_.next_outage();
  const double stop = std::min(scenario_.stop.time.value_or(NEVER), stop_at());
  // A failure at the very moment of the stop does not happen: the run is over.
  if (next != nullptr && next->at < stop) return Interrupt::FAILURE;
  return Interrupt::STOP;
}

// Both waits go on through outages of nodes not in use (a dropped replica's, a spare's): they
// only mark those nodes down.
std::optional<Interrupt> CollectiveJob::at_deadline() {
  if (interrupt_at_deadline() == Interrupt::STOP || over_work_limit()) return Interrupt::STOP;
  if (take_due_outages()) return Interrupt::FAILURE;
  return std::nullopt;
}

Deadlines CollectiveJob::deadlines(Interrupt& cut) {
  // The first answer is the deadline as it is; later ones come when it has been reached (by
  // then, an earlier part of the step may have ended exactly at it).
  return [this, &cut, first = true]() mutable -> std::optional<double> {
    while (true) {
      const double d = deadline();
      if (first || d > now()) {
        first = false;
        return d;
      }
      if (const auto i = at_deadline()) {
        cut = *i;
        return std::nullopt;
      }
    }
  };
}

Interrupt CollectiveJob::sleep_raw(double t) {
  while (true) {
    const double d = deadline();
    if (d >= t) break;
    sg4::this_actor::sleep_until(d);
    if (const auto i = at_deadline()) return *i;
  }
  sg4::this_actor::sleep_until(t);
  return Interrupt::NONE;
}

Interrupt CollectiveJob::wait_raw(FlowSet& flows) {
  while (!flows.wait_until(deadline())) {
    if (const auto i = at_deadline()) {
      flows.cancel();
      return *i;
    }
  }
  return Interrupt::NONE;
}

Interrupt CollectiveJob::sleep_until(double t, TimeCause cause) {
  const double from = now();
  const Interrupt i = sleep_raw(t);
  ledger_.add(cause, now() - from);
  return i;
}

Interrupt CollectiveJob::wait(FlowSet& flows, TimeCause cause) {
  const double from = now();
  const Interrupt i = wait_raw(flows);
  ledger_.add(cause, now() - from);
  return i;
}

Interrupt CollectiveJob::transfer(const std::vector<Flow>& flows, TimeCause cause,
                                  const std::string& what) {
  return transfer(flows, nullptr, cause, what);
}

Interrupt CollectiveJob::transfer(const TrackedFlows& flows, TimeCause cause,
                                  const std::string& what) {
  return transfer(flows.flows(), &flows, cause, what);
}

Interrupt CollectiveJob::transfer(const std::vector<Flow>& flows, const TrackedFlows* tracked,
                                  TimeCause cause, const std::string& what) {
  const bool idle = !recovery_->network_busy();
  MeasuredTimes::Transfer known;
  if (idle) {
    known = tracked != nullptr ? measured_.transfer(what, assignment_, *tracked)
                               : measured_.transfer(what, assignment_, flows);
    if (known.seconds) return sleep_until(now() + *known.seconds, cause);
  }
  const double start = now();
  FAILSIM_VERBOSE("{} of {} flows simulated{}", what, flows.size(), idle ? "" : " (network busy)");
  FlowSet set(flows);
  const Interrupt i = wait(set, cause);
  if (i == Interrupt::NONE && idle)
    measured_.add_transfer(what, assignment_, now() - start, known.shape, flows, tracked);
  return i;
}

std::vector<FlowSet> CollectiveJob::start_background(const std::vector<BackgroundSet>& sets) {
  const double begin = now();
  return background_.start(sets, {assignment_, stragglers_.slowdown_at(begin),
                                  stragglers_.next_change(), options_.simulate_every_step});
}

// ---- Steps ------------------------------------------------------------------------------------

void CollectiveJob::reassign(const Assignment& assignment) {
  spares_.map(assignment, now());
  assignment_ = assignment;
  network_.assign(assignment);
  node_in_use_ = assignment.in_use(plan_, static_cast<std::size_t>(nodes_.size()));
  clean_times_ = measured_.step(assignment);
}

bool CollectiveJob::in_use(const Outage& o) const {
  return std::any_of(o.nodes.begin(), o.nodes.end(),
                     [&](int n) { return node_in_use_[static_cast<std::size_t>(n)] != 0; });
}

void CollectiveJob::set_clean_times(const StepTimes& times, const MeasuredTimes::StepParts& parts) {
  // Measured on the idle network (no background write): what the flows take then they take
  // whenever it is idle again under the same assignment, so later steps reuse these times
  // (RunOptions can ask for every step to be simulated instead: the results are the same).
  const bool first = measured_.add_step(assignment_, times, parts);
  clean_times_ = measured_.step(assignment_);
  if (!first) return;
  // The first: the full assignment's, the nominal step the summary reports.
  counts_.tensor_parallel_seconds = times.tensor_parallel;
  counts_.pipeline_send_seconds = times.pipeline_send;
  counts_.data_parallel_seconds = times.data_parallel;
  counts_.nominal_step_seconds = step_seconds(times, 1.0).total;
}

bool CollectiveJob::reassigns() const {
  // The first assignment's part shapes (route computations, about 9 doubles a flow) are worth
  // keeping only when a spare swap may come; a job that moved once may move again.
  return scenario_.collective.platform.spares > 0 || measured_.any_step();
}

CollectiveJob::StepLength CollectiveJob::step_seconds(const StepTimes& t, double slowdown) const {
  // Replicas that take several batches run all their micro-batches in one schedule (gradient
  // accumulation): m x rounds of them, the tensor-parallel all-reduces growing alike.
  const double m = static_cast<double>(plan_.micro_batches) * assignment_.rounds();
  const double slots = m + plan_.pp - 1;
  // (m + pp - 1) pipeline slots, each one micro-batch's compute at the slowest rank's pace, its
  // share of the tensor-parallel all-reduces and a send forward and back between stages; then
  // the data-parallel collectives, of which the last micro-batch's backward hides up to its own
  // length (2/3 of a micro-batch) when they overlap it.
  const double pipeline = slots * (plan_.micro_batch_seconds * slowdown +
                                   t.tensor_parallel / plan_.micro_batches + 2.0 * t.pipeline_send);
  const bool overlap = scenario_.collective.layout.overlap && !assignment_.data_parallel;
  const double window = overlap ? 2.0 / 3.0 * plan_.micro_batch_seconds * slowdown : 0.0;
  return {pipeline, pipeline + std::max(0.0, t.data_parallel - window)};
}

std::optional<StepTimes> CollectiveJob::measure_step(Interrupt& cut) {
  // The step's flows run at its start when their times are not known for the network's state:
  // the first step of an assignment, every step while a design's traffic is on the network, or
  // every step when asked. Its end is then its length after its start (the flows' time is part
  // of it).
  const bool busy = recovery_->network_busy();
  const bool fresh = clean_times() == nullptr && !busy;
  if (!fresh && !busy && !options_.simulate_every_step) return std::nullopt;
  // A new assignment on the idle network: its parts of a shape measured before (under another
  // assignment) take that time, and only the others are simulated; every part is simulated when
  // asked (then compared with the times taken by shape, as every step is).
  // A design's write in the background: its steps as recorded when the episode is replayed.
  if (busy) {
    if (const std::optional<StepTimes> replayed = background_.step(now())) return replayed;
  }
  MeasuredTimes::StepParts parts;
  if (fresh && reassigns()) parts = measured_.step_parts(network_);
  const double begin = now();
  // On the idle network a phase takes the time of one group of its flows of each kind; every
  // flow runs while a design's traffic shares the links, and when asked (then compared with the
  // time taken from the representatives, as every step is).
  std::optional<StepTimes> measured =
      network_.measure(deadlines(cut), options_.simulate_every_step ? KnownParts{} : parts.seconds,
                       fresh ? StepFlows::REPRESENTATIVES : StepFlows::EVERY);
  if (measured && busy) {
    const double rounding =
        1e-12 * (measured->tensor_parallel + measured->pipeline_send + measured->data_parallel) +
        timing_precision() * static_cast<double>(network_.phases_per_step());
    measured = background_.measured(begin, *measured, rounding);
  }
  if (measured && fresh) {
    FAILSIM_VERBOSE("step of a new assignment: {} of {} parts taken by shape",
                    std::count_if(parts.seconds.begin(), parts.seconds.end(),
                                  [](const std::optional<double>& s) { return s.has_value(); }),
                    STEP_PARTS);
    set_clean_times(with_known(*measured, parts.seconds), parts);
  }
  return measured;
}

Interrupt CollectiveJob::step() {
  const double begin = now();
  // A straggler active at the step's start slows the step: the slowest rank sets its pace.
  const double slowdown = stragglers_.slowdown_at(begin);
  Interrupt i = Interrupt::NONE;
  const std::optional<StepTimes> measured = measure_step(i);
  StepLength length, with_stragglers;
  double nominal = 0.0;
  if (i == Interrupt::NONE) {
    // A network never seen idle (a new assignment while a design's traffic runs): its
    // contention counts as the step's own.
    const StepTimes& clean = clean_times() != nullptr ? *clean_times() : *measured;
    nominal = step_seconds(clean, 1.0).total;
    with_stragglers = step_seconds(clean, slowdown);
    length = measured ? step_seconds(*measured, slowdown) : with_stragglers;
    // Flows timed at another moment end at another clock: SimGrid rounds the end of each
    // phase of flows to its timing precision (surf/precision, 1e-9 s by default), so a step
    // measured later may differ by that much per phase without any contention. That is rounding
    // (and must not make --simulate-every-step differ); interference is what exceeds it.
    const double rounding = 1e-12 * with_stragglers.total +
                            timing_precision() * static_cast<double>(network_.phases_per_step());
    if (std::abs(length.total - with_stragglers.total) <= rounding) length = with_stragglers;
    i = sleep_raw(begin + length.total);
  }
  double spent = now() - begin;
  if (i == Interrupt::NONE) {
    // The time a design makes the update wait goes to the ledger there.
    i = recovery_->before_update(*this, {begin, begin + length.pipeline, begin + length.total});
  }
  if (i != Interrupt::NONE) {
    // The step does not complete: a failure loses it, the stop leaves it unfinished.
    ledger_.add(i == Interrupt::FAILURE ? TimeCause::LOST_WORK : TimeCause::UNFINISHED, spent);
    return i;
  }
  complete_step(now(), nominal, length, with_stragglers);
  return Interrupt::NONE;
}

void CollectiveJob::complete_step(double end, double nominal, const StepLength& length,
                                  const StepLength& with_stragglers) {
  // The step completed: its update is applied.
  evaluations_.through(end);
  const std::vector<int>& streams = assignment_.streams;
  recovery_->apply_update(*this);
  ++version_;
  ++counts_.steps_completed;
  const double samples =
      static_cast<double>(streams.size()) * plan_.samples_per_step / static_cast<double>(plan_.dp);
  counts_.samples_completed += samples;
  ledger_.step(version_, nominal, with_stragglers.total - nominal,
               length.total - with_stragglers.total, samples);
  recorder_.update_applied(end, "job");
  evaluations_.after_update(end, version_);
  evaluations_.parameters_changed();
}

std::int64_t CollectiveJob::quiet_steps() {
  const StepTimes* clean = clean_times();
  if (clean == nullptr || recovery_->network_busy() || options_.simulate_every_step) return 0;
  const StopConfig& stop = scenario_.stop;
  std::int64_t limit = recovery_->next_action_version(*this) - version_;
  if (stop.version) limit = std::min(limit, *stop.version - version_);
  if (stop.updates) limit = std::min(limit, *stop.updates - counts_.steps_completed);
  // The progress line and Ctrl-C (both on the clock's advance) come at least every
  // MAX_MATH_STEPS steps with real math (a step costs wall time), every MAX_QUIET_STEPS without:
  // about a quarter of a second at the 250,000 quiet steps a wall second measured
  // (sim/scenario/collective/work.hpp), so a signal is answered within a second.
  constexpr std::int64_t MAX_MATH_STEPS = 256;
  constexpr std::int64_t MAX_QUIET_STEPS = 1 << 16;
  limit = std::min(limit, math_ != nullptr ? MAX_MATH_STEPS : MAX_QUIET_STEPS);
  const double begin = now();
  const double slowdown = stragglers_.slowdown_at(begin);
  const double change = stragglers_.next_change();
  const StepLength length = step_seconds(*clean, slowdown);
  const double nominal = step_seconds(*clean, 1.0).total;
  // Each step ends where step()'s sleep would put the clock: SimGrid sleeps until a date by
  // sleeping its difference from now, so the end is the start plus (date - start).
  std::int64_t taken = 0;
  double t = begin;
  while (taken < limit) {
    if (taken > 0 && change <= t) break;  // a straggler starts or ends: step() decides
    const double end = t + ((t + length.total) - t);
    // step() completes a step that ends at its deadline, not one beyond it; the deadline may
    // move as the steps change the parameters (a target accuracy reached, a divergence).
    if (end > deadline()) break;
    complete_step(end, nominal, length, length);
    t = end;
    ++taken;
  }
  if (taken > 0) {
    FAILSIM_VERBOSE("{} quiet steps at once, {:.6f} s to {:.6f} s", taken, begin, t);
    sg4::this_actor::sleep_until(t);
  }
  return taken;
}

// ---- Failures ---------------------------------------------------------------------------------

bool CollectiveJob::take_due_outages() {
  bool hit = false;
  while (std::optional<Outage> o = nodes_.take_due(now())) {
    ++counts_.failures;
    record(*o);
    if (!in_use(*o)) continue;
    hit = true;
    if (!failure_) failure_ = std::move(o);
  }
  return hit;
}

void CollectiveJob::record(const Outage& o) {
  nlohmann::json details{
      {"target", to_string(o.target)},
      {"index", o.index},
      {"nodes", o.nodes},
      {"down_for", std::isinf(o.back) ? nlohmann::json("forever") : nlohmann::json(o.back - o.at)}};
  if (!o.cause.empty()) details["cause"] = o.cause;
  recorder_.event(o.at, EventType::FAILURE, node_name(o.nodes.front()), details);
  FAILSIM_INFO("{} {} failed at {:.3f} s ({} nodes)", to_string(o.target), o.index, o.at,
               o.nodes.size());
}

bool CollectiveJob::nodes_up() const {
  for (int n = 0; n < nodes_.size(); ++n) {
    if (node_in_use_[static_cast<std::size_t>(n)] != 0 && nodes_.back(n) > now()) return false;
  }
  return true;
}

double CollectiveJob::nodes_back() const {
  double back = 0.0;
  for (int n = 0; n < nodes_.size(); ++n) {
    if (node_in_use_[static_cast<std::size_t>(n)] != 0) back = std::max(back, nodes_.back(n));
  }
  return back;
}

bool CollectiveJob::detect() {
  take_due_outages();
  const double failed_at = failure_->at;
  const DetectionConfig& detection = scenario_.collective.failures.detection;
  // WATCHDOG: the survivors block in the next collective (at most a micro-batch away: taken as
  // the failure's time) and give up after the timeout. HEARTBEAT: the failed rank's last beat
  // was the last multiple of the interval since its processes started; `misses` beats later
  // its absence is noticed.
  double detected = failed_at + detection.timeout;
  if (const std::optional<double> known = recovery_->detected_at(*this)) {
    detected = *known;
  } else if (detection.kind == DetectionKind::HEARTBEAT) {
    const double beats = std::floor((failed_at - incarnation_start_) / detection.interval);
    detected = incarnation_start_ + (beats + detection.misses) * detection.interval;
  }
  // Every wait ends at the next failure's time: the job stands at failed_at.
  Interrupt i = sleep_until(detected, TimeCause::DETECTION);
  while (i == Interrupt::FAILURE) {  // more failures while nobody noticed: the same outage
    take_due_outages();
    i = sleep_until(detected, TimeCause::DETECTION);
  }
  if (i == Interrupt::STOP) return false;
  recorder_.event(now(), EventType::DETECTED, node_name(failure_->nodes.front()),
                  {{"after", now() - failed_at}});
  recorder_.training_stalled(failed_at);
  evaluations_.through(now());
  return true;
}

void CollectiveJob::roll_back_to(std::int64_t version,
                                 const std::optional<ReplicaMath::State>& state) {
  const double samples_before = ledger_.samples_kept();
  const std::int64_t rolled = ledger_.roll_back_to(version);
  counts_.steps_rolled_back += rolled;
  counts_.samples_rolled_back += samples_before - ledger_.samples_kept();
  if (rolled > 0) {
    recorder_.event(now(), EventType::ROLLED_BACK, "job",
                    {{"from_version", version_}, {"to_version", version}});
  }
  version_ = version;
  if (math_ != nullptr) math_->restore(*state);
  evaluations_.parameters_changed();
}

int CollectiveJob::swap_in_spares() {
  Assignment a = assignment_;
  const int swapped = spares_.swap_in(a, node_in_use_, now());
  if (swapped > 0) reassign(a);
  return swapped;
}

Interrupt CollectiveJob::wait_for_nodes() {
  swap_in_spares();
  while (!nodes_up()) {
    if (std::isinf(nodes_back()) && std::isinf(spares_.back(now()))) {
      recorder_.event(now(), EventType::HOST_LOST, "job",
                      {{"reason", "a node is down for good and there is no spare"}});
      if (std::isinf(std::min(scenario_.stop.time.value_or(NEVER), stop_at()))) {
        // The job can never restart (later failures and repairs do not bring this node back)
        // and no stop time will come: the run ends here.
        evaluations_.stop_at(now(), "nodes_lost");
        return Interrupt::STOP;
      }
    }
    // Until the failed nodes are back, or a node of the pool is (it takes their place).
    const Interrupt i =
        sleep_until(std::min(nodes_back(), spares_.back(now())), TimeCause::REPAIR_WAIT);
    if (i == Interrupt::STOP) return i;
    take_due_outages();
    swap_in_spares();
  }
  return Interrupt::NONE;
}

Interrupt CollectiveJob::restart_processes() {
  const RestartConfig& restart = scenario_.collective.recovery.restart;
  ++counts_.restarts;
  recorder_.event(now(), EventType::RESTART, "job", {{"version", version_}});
  const Interrupt i = sleep_until(
      now() + restart.scheduler_delay + restart.process_start + plan_.restart_init_seconds,
      TimeCause::RESTART);
  if (i == Interrupt::FAILURE) take_due_outages();
  if (i == Interrupt::NONE) incarnation_start_ = now();
  return i;
}

// ---- The stop ---------------------------------------------------------------------------------

void CollectiveJob::stop(const std::string& reason) {
  stop_reason_ = reason;
  recorder_.event(now(), EventType::STOP, "", {{"reason", reason}});
  FAILSIM_INFO("stopping ({}) at version {}", reason, version_);
}

bool CollectiveJob::over_work_limit() {
  if (over_work_limit_) return true;
  const auto failures = static_cast<double>(counts_.failures);
  const auto restarts = static_cast<double>(counts_.restarts);
  const auto checkpoints = static_cast<double>(counts_.checkpoints);
  over_work_limit_ =
      collective_wall_seconds(static_cast<double>(counts_.steps_completed), failures + restarts,
                              0.0, checkpoints) > options_.max_work_seconds ||
      static_cast<double>(recorder_.events().size()) > options_.max_event_rows;
  return over_work_limit_;
}

void CollectiveJob::operator()() {
  const StopConfig& stop_config = scenario_.stop;
  recovery_->start(*this);
  while (true) {
    recovery_->poll(*this);
    if (!recovery_->network_busy()) background_.idle();
    if (over_work_limit()) {
      stop("work limit");
      break;
    }
    if (stop_config.version && version_ >= *stop_config.version) {
      stop("version");
      break;
    }
    if (stop_config.updates && counts_.steps_completed >= *stop_config.updates) {
      stop("updates");
      break;
    }
    Interrupt i = recovery_->before_step(*this);
    // Steps nothing can tell apart are taken at once; the next one is taken alone.
    if (i == Interrupt::NONE && quiet_steps() == 0) i = step();
    if (i == Interrupt::NONE) i = recovery_->after_step(*this);
    if (i == Interrupt::NONE) continue;
    background_.cut();  // a failure or the stop cut the writes under way
    if (i == Interrupt::FAILURE && detect() && recovery_->recover(*this)) {
      failure_.reset();  // the next update records training_resumed (Recorder::update_applied)
      continue;
    }
    // The stop came first (of the step, the detection or the recovery).
    evaluations_.through(now());
    stop(over_work_limit_     ? "work limit"
         : now() >= stop_at() ? evaluations_.stop_reason()
                              : "time");
    break;
  }
  recovery_->finish(*this);
}

}  // namespace failsim::sim
