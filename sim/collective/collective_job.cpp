#include "sim/collective/collective_job.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>

#include "sim/log.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(collective_job, failsim,
                                "the collective job: steps, failures, restarts");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;
namespace {
constexpr double NEVER = std::numeric_limits<double>::infinity();

std::string node_name(int n) { return "node-" + std::to_string(n); }
}  // namespace

CollectiveJob::CollectiveJob(const Scenario& scenario, const CollectivePlan& plan,
                             StepNetwork& network, ReplicaMath* math, TrainingMath* training,
                             Recorder& recorder, Options options)
    : scenario_(scenario),
      plan_(plan),
      network_(network),
      math_(math),
      training_(training),
      recorder_(recorder),
      options_(std::move(options)),
      schedule_(scenario.collective.failures, scenario.collective.platform, scenario.seed),
      down_until_(static_cast<std::size_t>(scenario.collective.platform.nodes), 0.0),
      events_injected_(scenario.collective.failures.events.size(), false) {
  if (math_ != nullptr) durable_.state = math_->save();  // version 0: a restart from scratch
}

double CollectiveJob::now() const { return sg4::Engine::get_clock(); }

double CollectiveJob::deadline() const {
  const Outage* next = schedule_.next();
  double d = next != nullptr ? next->at : NEVER;
  d = std::min(d, scenario_.stop.time.value_or(NEVER));
  return std::min(d, stop_at_);
}

CollectiveJob::Interrupt CollectiveJob::interrupt_at_deadline() const {
  const Outage* next = schedule_.next();
  const double stop = std::min(scenario_.stop.time.value_or(NEVER), stop_at_);
  // A failure at the very moment of the stop does not happen: the run is over.
  if (next != nullptr && next->at < stop) return Interrupt::FAILURE;
  return Interrupt::STOP;
}

CollectiveJob::Interrupt CollectiveJob::sleep_until(double t) {
  const double d = deadline();
  if (d < t) {
    sg4::this_actor::sleep_until(d);
    return interrupt_at_deadline();
  }
  sg4::this_actor::sleep_until(t);
  return Interrupt::NONE;
}

CollectiveJob::Interrupt CollectiveJob::wait(FlowSet& flows) {
  if (flows.wait_until(deadline())) return Interrupt::NONE;
  flows.cancel();
  return interrupt_at_deadline();
}

// ---- Steps ------------------------------------------------------------------------------------

void CollectiveJob::set_clean_times(const StepTimes& times) {
  // Measured on the idle network (no background write): what the flows take then they take
  // whenever it is idle again, so later steps reuse these times (RunOptions can ask for every
  // step to be simulated instead: the results are the same).
  clean_ = times;
  counts_.tensor_parallel_seconds = times.tensor_parallel;
  counts_.pipeline_send_seconds = times.pipeline_send;
  counts_.data_parallel_seconds = times.data_parallel;
  counts_.nominal_step_seconds = step_seconds(times, 1.0);
}

double CollectiveJob::straggler_slowdown(double begin) const {
  // A straggler active at the step's start slows the step: the slowest rank sets its pace.
  double slowdown = 1.0;
  for (const StragglerEvent& s : scenario_.collective.failures.stragglers) {
    if (begin >= s.from && begin < s.to) slowdown = std::max(slowdown, s.slowdown);
  }
  return slowdown;
}

double CollectiveJob::step_seconds(const StepTimes& t, double slowdown) const {
  const auto slots = static_cast<double>(plan_.micro_batches + plan_.pp - 1);
  const double m = plan_.micro_batches;
  // (m + pp - 1) pipeline slots, each one micro-batch's compute at the slowest rank's pace, its
  // share of the tensor-parallel all-reduces and a send forward and back between stages; then
  // the data-parallel collectives, of which the last micro-batch's backward hides up to its own
  // length (2/3 of a micro-batch) when they overlap it.
  const double pipeline = slots * (plan_.micro_batch_seconds * slowdown + t.tensor_parallel / m +
                                   2.0 * t.pipeline_send);
  const double window =
      scenario_.collective.layout.overlap ? 2.0 / 3.0 * plan_.micro_batch_seconds * slowdown : 0.0;
  return pipeline + std::max(0.0, t.data_parallel - window);
}

CollectiveJob::Interrupt CollectiveJob::step() {
  const double begin = now();
  const double slowdown = straggler_slowdown(begin);
  // The step's flows run at its start when their times are not known for the network's state:
  // the first step, every step while a checkpoint is written in the background, or every step
  // when asked. Its end is then its length after its start (the flows' time is part of it).
  std::optional<StepTimes> measured;
  Interrupt i = Interrupt::NONE;
  if (!clean_ || persisting_ || options_.simulate_every_step) {
    measured = network_.measure(deadline());
    if (!measured) i = interrupt_at_deadline();
    if (measured && !clean_ && !persisting_) set_clean_times(*measured);
  }
  double seconds = 0.0, with_stragglers = 0.0;
  if (i == Interrupt::NONE) {
    with_stragglers = step_seconds(*clean_, slowdown);
    seconds = measured ? step_seconds(*measured, slowdown) : with_stragglers;
    // Flows timed at another moment end at another floating-point clock: a difference of a few
    // ulps is rounding, not contention (and must not make --simulate-every-step differ).
    if (std::abs(seconds - with_stragglers) <= 1e-12 * with_stragglers) seconds = with_stragglers;
    i = sleep_until(begin + seconds);
  }
  if (i != Interrupt::NONE) {
    // The step does not complete: a failure loses it, the stop leaves it unfinished.
    ledger_.add(i == Interrupt::FAILURE ? TimeCause::LOST_WORK : TimeCause::UNFINISHED,
                now() - begin);
    return i;
  }
  // The step completed: its update is applied.
  evaluate_through(now());
  if (math_ != nullptr) math_->step();
  ++version_;
  ++counts_.steps_completed;
  const double nominal = counts_.nominal_step_seconds;
  ledger_.step(version_, nominal, with_stragglers - nominal, seconds - with_stragglers);
  recorder_.update_applied(now(), "job");
  parameters_changed();
  return Interrupt::NONE;
}

// ---- Checkpoints ------------------------------------------------------------------------------

void CollectiveJob::make_durable(Checkpoint checkpoint) {
  ledger_.commit_through(checkpoint.version);
  ++counts_.checkpoints;
  recorder_.event(now(), EventType::CHECKPOINT_WRITTEN, "file-system",
                  {{"version", checkpoint.version}});
  durable_ = std::move(checkpoint);
}

void CollectiveJob::poll_persisting() {
  if (persisting_ && persisting_->writes.done()) {
    Checkpoint c = std::move(persisting_->checkpoint);
    persisting_.reset();
    make_durable(std::move(c));
  }
}

CollectiveJob::Interrupt CollectiveJob::checkpoint() {
  const CollectiveCheckpointConfig& config = scenario_.collective.recovery.checkpoint;
  Checkpoint c;
  c.version = version_;
  if (math_ != nullptr) c.state = math_->save();
  const double begin = now();
  if (persisting_) {
    // The previous write is still going on: training waits for it (one write at a time).
    if (const Interrupt i = wait(persisting_->writes); i != Interrupt::NONE) {
      ledger_.add(TimeCause::CHECKPOINT_STALL, now() - begin);
      return i;
    }
    poll_persisting();
  }
  if (config.mode == CheckpointMode::BLOCKING) {
    FlowSet writes(network_.checkpoint_writes());
    const Interrupt i = wait(writes);
    ledger_.add(TimeCause::CHECKPOINT_STALL, now() - begin);
    if (i != Interrupt::NONE) return i;
    make_durable(std::move(c));
    return Interrupt::NONE;
  }
  // SNAPSHOT: training waits for the copy of the largest shard to host memory, then the write
  // to the file system goes on in the background.
  const double largest =
      *std::max_element(plan_.checkpoint_write_bytes.begin(), plan_.checkpoint_write_bytes.end());
  const Interrupt i = sleep_until(now() + largest / config.host_copy_bandwidth);
  ledger_.add(TimeCause::CHECKPOINT_STALL, now() - begin);
  if (i != Interrupt::NONE) return i;
  recorder_.event(now(), EventType::CHECKPOINT_SNAPSHOT, "job", {{"version", c.version}});
  persisting_.emplace(Persisting{std::move(c), FlowSet(network_.checkpoint_writes())});
  return Interrupt::NONE;
}

// ---- Failures ---------------------------------------------------------------------------------

void CollectiveJob::take_due_outages() {
  while (schedule_.next() != nullptr && schedule_.next()->at <= now()) {
    Outage o = schedule_.take();
    if (o.event) events_injected_[*o.event] = true;
    for (int n : o.nodes) {
      auto& until = down_until_[static_cast<std::size_t>(n)];
      until = std::max(until, o.back);
    }
    ++counts_.failures;
    nlohmann::json details{{"target", to_string(o.target)},
                           {"index", o.index},
                           {"nodes", o.nodes},
                           {"down_for", std::isinf(o.back) ? nlohmann::json("forever")
                                                           : nlohmann::json(o.back - o.at)}};
    recorder_.event(o.at, EventType::FAILURE, node_name(o.nodes.front()), details);
    FAILSIM_INFO("{} {} failed at {:.3f} s ({} nodes)", to_string(o.target), o.index, o.at,
                 o.nodes.size());
    if (!failure_) failure_ = std::move(o);
  }
}

bool CollectiveJob::nodes_up() const {
  return std::all_of(down_until_.begin(), down_until_.end(),
                     [&](double until) { return until <= now(); });
}

double CollectiveJob::nodes_back() const {
  return *std::max_element(down_until_.begin(), down_until_.end());
}

bool CollectiveJob::recover() {
  take_due_outages();
  const double failed_at = failure_->at;
  const DetectionConfig& detection = scenario_.collective.failures.detection;
  // WATCHDOG: the survivors block in the next collective (at most a micro-batch away: taken as
  // the failure's time) and give up after the timeout. HEARTBEAT: the failed rank's last beat
  // was the last multiple of the interval since its processes started; `misses` beats later
  // its absence is noticed.
  double detected = failed_at + detection.timeout;
  if (detection.kind == DetectionKind::HEARTBEAT) {
    const double beats = std::floor((failed_at - incarnation_start_) / detection.interval);
    detected = incarnation_start_ + (beats + detection.misses) * detection.interval;
  }
  Interrupt i = sleep_until(detected);
  ledger_.add(TimeCause::DETECTION, now() - failed_at);
  while (i == Interrupt::FAILURE) {  // more failures while nobody noticed: the same outage
    take_due_outages();
    const double from = now();
    i = sleep_until(detected);
    ledger_.add(TimeCause::DETECTION, now() - from);
  }
  if (i == Interrupt::STOP) return false;
  recorder_.event(now(), EventType::DETECTED, node_name(failure_->nodes.front()),
                  {{"after", now() - failed_at}});
  // Every rank stops; what the file system holds is what the restart loads.
  if (persisting_) {
    persisting_->writes.cancel();
    persisting_.reset();
  }
  evaluate_through(now());
  const std::int64_t rolled = ledger_.roll_back_to(durable_.version);
  counts_.steps_rolled_back += rolled;
  if (rolled > 0) {
    recorder_.event(now(), EventType::ROLLED_BACK, "job",
                    {{"from_version", version_}, {"to_version", durable_.version}});
  }
  version_ = durable_.version;
  if (math_ != nullptr) math_->restore(*durable_.state);
  recorder_.training_stalled(failed_at);
  parameters_changed();

  // Wait for the failed nodes, restart, load; a failure meanwhile starts the wait again.
  while (true) {
    while (!nodes_up()) {
      if (std::isinf(nodes_back())) {
        recorder_.event(now(), EventType::HOST_LOST, "job",
                        {{"reason", "a node is down for good and there is no spare"}});
        const double from = now();
        i = sleep_until(NEVER);
        ledger_.add(TimeCause::REPAIR_WAIT, now() - from);
        if (i == Interrupt::STOP) return false;
        take_due_outages();
        continue;
      }
      const double from = now();
      i = sleep_until(nodes_back());
      ledger_.add(TimeCause::REPAIR_WAIT, now() - from);
      if (i == Interrupt::STOP) return false;
      take_due_outages();
    }
    const RestartConfig& restart = scenario_.collective.recovery.restart;
    ++counts_.restarts;
    recorder_.event(now(), EventType::RESTART, "job", {{"version", durable_.version}});
    const double from = now();
    i = sleep_until(now() + restart.scheduler_delay + restart.process_start +
                    plan_.restart_init_seconds);
    ledger_.add(TimeCause::RESTART, now() - from);
    if (i == Interrupt::STOP) return false;
    if (i == Interrupt::FAILURE) {
      take_due_outages();
      continue;
    }
    incarnation_start_ = now();
    if (durable_.version > 0) {
      const double load_from = now();
      FlowSet reads(network_.checkpoint_reads());
      i = wait(reads);
      ledger_.add(TimeCause::CHECKPOINT_LOAD, now() - load_from);
      if (i == Interrupt::STOP) return false;
      if (i == Interrupt::FAILURE) {
        take_due_outages();
        continue;
      }
      recorder_.event(now(), EventType::CHECKPOINT_LOADED, "job", {{"version", durable_.version}});
    }
    break;
  }
  failure_.reset();
  return true;  // the next update records training_resumed (Recorder::update_applied)
}

// ---- Evaluations and the stop -----------------------------------------------------------------

void CollectiveJob::evaluate_through(double t) {
  if (training_ == nullptr) return;
  const EvaluationConfig& eval = scenario_.evaluation;
  if (eval.interval <= 0) return;
  // Evaluation k happens at k x interval exactly; the parameters have not changed since the
  // last update or rollback, so measuring them now gives what was measured then.
  while (true) {
    const double at = static_cast<double>(evaluations_done_) * eval.interval;
    if (at > t || at >= scenario_.stop.time.value_or(NEVER) || at > stop_at_) break;
    const models::EvalResult r = training_->evaluate(math_->parameters(), eval.test_subset);
    EvalRecord record;
    record.time = at;
    record.version = math_->version();
    record.test_accuracy = r.accuracy;
    record.test_loss = r.loss;
    record.test_samples = r.samples;
    recorder_.evaluation(record);
    if (options_.on_evaluation) options_.on_evaluation(record);
    ++evaluations_done_;
    // A non-finite loss ends the run at the end of the step that found it (a numerical outcome).
    if (!std::isfinite(r.loss) && stop_at_reason_ != "target_accuracy") {
      stop_at_ = std::min(stop_at_, t);
      stop_at_reason_ = "diverged";
    }
  }
}

void CollectiveJob::parameters_changed() {
  // Would the next scheduled evaluation stop the run at a target accuracy? It sees these
  // parameters (nothing else changes them before it), so the stop's time is known now.
  const StopConfig& stop = scenario_.stop;
  if (training_ == nullptr || scenario_.evaluation.interval <= 0 || !stop.target_accuracy) return;
  if (stop_at_reason_ == "diverged") return;  // already ending
  const double next = static_cast<double>(evaluations_done_) * scenario_.evaluation.interval;
  const models::EvalResult r =
      training_->evaluate(math_->parameters(), scenario_.evaluation.test_subset);
  stop_at_ = NEVER;
  if (std::isfinite(r.loss) && r.accuracy >= *stop.target_accuracy) {
    stop_at_ = next;
    stop_at_reason_ = "target_accuracy";
  }
}

void CollectiveJob::stop(const std::string& reason) {
  stop_reason_ = reason;
  recorder_.event(now(), EventType::STOP, "", {{"reason", reason}});
  FAILSIM_INFO("stopping ({}) at version {}", reason, version_);
}

void CollectiveJob::operator()() {
  const StopConfig& stop_config = scenario_.stop;
  while (true) {
    poll_persisting();
    if (stop_config.version && version_ >= *stop_config.version) {
      stop("version");
      break;
    }
    if (stop_config.updates && counts_.steps_completed >= *stop_config.updates) {
      stop("updates");
      break;
    }
    Interrupt i = step();
    const std::int64_t every = scenario_.collective.recovery.checkpoint.every_steps;
    if (i == Interrupt::NONE && every > 0 && version_ % every == 0) i = checkpoint();
    if (i == Interrupt::NONE) continue;
    if (i == Interrupt::STOP) {
      evaluate_through(now());
      stop(now() >= stop_at_ ? stop_at_reason_ : "time");
      break;
    }
    if (!recover()) {
      evaluate_through(now());
      stop(now() >= stop_at_ ? stop_at_reason_ : "time");
      break;
    }
  }
  if (persisting_) persisting_->writes.cancel();
}

}  // namespace failsim::sim
