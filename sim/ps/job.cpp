#include "sim/ps/job.hpp"

#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/engine/log.hpp"
#include "sim/ps/actors/worker.hpp"
#include "sim/ps/recovery/elastic.hpp"
#include "sim/ps/recovery/strategies.hpp"
#include "sim/ps/recovery/strategy.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(job, failsim, "shards, strategies and elastic resume");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

namespace {
/// A strategy of a job that resizes: elastic, since only strategies with an elastic patience
/// resize (RecoveryConfig::elastic_patience), and the scenario grants one only to those that
/// implement ElasticStrategy (Strategy::elastic()).
ElasticStrategy& elastic(Strategy& strategy) {
  ElasticStrategy* e = strategy.elastic();
  if (e == nullptr)
    throw std::logic_error("elastic resume needs the single-level checkpoint strategy");
  return *e;
}

/// Shard `index` of `count` on `hosts`: its range and costs as resolve.hpp's share_shards gives
/// them.
Shard make_shard(int index, int count, const ShardShare& share, std::vector<sg4::Host*> hosts) {
  Shard shard;
  shard.index = index;
  shard.count = count;
  shard.range = share.range;
  shard.bytes = share.bytes;
  shard.update_flops = share.update_flops;
  shard.hosts = std::move(hosts);
  return shard;
}

/// Generation 0 (docs/strategies.md, "Sharded servers"): the resolved partition of the model's
/// parameters, shard k's server hosts (the k-th group of cluster.servers.count), and version 0.
std::vector<Shard> first_generation(const RunContext& context) {
  const std::vector<ShardShare>& shares = context.first_shards;
  const int count = static_cast<int>(shares.size());
  const auto per_shard = context.roles.servers.size() / shares.size();
  const SnapshotPtr initial = context.math.initial_snapshot();
  std::vector<Shard> shards;
  for (int k = 0; k < count; ++k) {
    const auto first = context.roles.servers.begin() +
                       static_cast<std::ptrdiff_t>(per_shard * static_cast<std::size_t>(k));
    const ShardShare& share = shares[static_cast<std::size_t>(k)];
    shards.push_back(
        make_shard(k, count, share, {first, first + static_cast<std::ptrdiff_t>(per_shard)}));
    shards.back().initial = count == 1 ? initial : slice(*initial, share.range);
  }
  return shards;
}

bool overlap(const ShardRange& a, const ShardRange& b) {
  return a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}
}  // namespace

Job::Job(RunContext& context)
    : context_(context),
      stopped_(static_cast<std::size_t>(context.scenario.cluster.num_workers())) {
  install(first_generation(context));
}

Job::~Job() = default;

void Job::start() {
  for (Strategy* s : context_.strategies) s->start();
}

bool Job::resizes_for(const Strategy& owner, double host_back) {
  const std::optional<double> patience = context_.scenario.recovery.elastic_patience();
  if (!patience) return false;
  if (owner.retired()) return true;  // a resize retired it: the job takes care of its shard
  if (host_back - sg4::Engine::get_clock() <= *patience) return false;
  if (!resizing_) {
    schedule_resize(std::isinf(host_back) ? "host lost for good"
                                          : "host down longer than the patience");
  }
  return true;
}

void Job::host_up(sg4::Host* host) {
  if (!context_.scenario.recovery.elastic_patience() || resizing_) return;
  const auto& servers = context_.roles.servers;
  if (std::find(servers.begin(), servers.end(), host) == servers.end()) return;
  if (std::find(in_use_.begin(), in_use_.end(), host) != in_use_.end()) return;  // restarts there
  schedule_resize("a server host is back");
}

void Job::stop_workers() {
  for (const auto& w : context_.workers) {
    if (!w->alive()) continue;  // failed: the failure injector restarts it
    w->stop();
    stopped_[static_cast<std::size_t>(w->index())] = true;
  }
}

void Job::schedule_resize(const std::string& reason) {
  resizing_ = true;
  sg4::Actor::create("resize", context_.roles.coordinator, [this, reason] { resize(reason); });
}

void Job::resize(const std::string& reason) {
  const double now = sg4::Engine::get_clock();
  context_.recorder.event(now, EventType::RESIZE, "",
                          {{"reason", reason}, {"shards", context_.strategies.size()}});
  FAILSIM_INFO("resizing the job ({}): its {} shards stop", reason, context_.strategies.size());
  // Training stops everywhere: the first updates of the next generation end the outage.
  for (Strategy* s : context_.strategies) context_.recorder.training_stalled(now, s->shard().index);
  stop_workers();
  std::vector<sg4::ActorPtr> writers;
  for (Strategy* s : context_.strategies) {
    if (sg4::ActorPtr writer = elastic(*s).drain()) writers.push_back(writer);
  }
  for (const sg4::ActorPtr& writer : writers) writer->join();
  in_use_.clear();

  sg4::this_actor::sleep_for(context_.scenario.failures.restart_delay);  // new processes start
  std::vector<sg4::Host*> hosts;
  for (sg4::Host* h : context_.roles.servers) {
    if (h->is_on()) hosts.push_back(h);
  }
  resizing_ = false;
  if (hosts.empty()) {
    // Nothing to run on: the job waits for a server host to come back (host_up).
    context_.recorder.event(sg4::Engine::get_clock(), EventType::NO_REPLACEMENT, "",
                            {{"reason", "no server host is up"}});
    FAILSIM_INFO("no server host is up: the job waits for one");
    return;
  }
  install(reshard(hosts));
}

std::vector<Shard> Job::reshard(const std::vector<sg4::Host*>& hosts) const {
  // The old shards' checkpoints put together: the whole model as one universal checkpoint.
  const std::size_t n = context_.math.model().num_params();
  models::FloatBuffer params(n);
  std::vector<models::FloatBuffer> moments;  // the optimiser state's, whole
  std::vector<ServerState> old;
  for (Strategy* s : context_.strategies) {
    old.push_back(elastic(*s).latest_checkpoint());
    const ShardRange& r = s->shard().range;
    const auto at = static_cast<std::ptrdiff_t>(r.offset);
    std::copy(old.back().snapshot->params.begin(), old.back().snapshot->params.end(),
              params.begin() + at);
    if (const auto& state = old.back().optimizer) {
      moments.resize(state->moments.size(), models::FloatBuffer(n, 0.0f));
      for (std::size_t m = 0; m < moments.size(); ++m) {
        std::copy(state->moments[m].begin(), state->moments[m].end(), moments[m].begin() + at);
      }
    }
  }
  const int count = static_cast<int>(hosts.size());
  const int generation = context_.shards.front().generation + 1;
  const std::vector<ShardShare> shares =
      share_shards(context_.math.model().tensors(), n, context_.time, count);
  std::vector<Shard> shards;
  for (int j = 0; j < count; ++j) {
    const ShardRange& range = shares[static_cast<std::size_t>(j)].range;
    Shard shard = make_shard(j, count, shares[static_cast<std::size_t>(j)],
                             {hosts[static_cast<std::size_t>(j)]});
    shard.generation = generation;
    // Its version 0 counts what every old shard it is made of had reached: the fewest (and so
    // do AdamW's steps, whose bias corrections they set).
    auto initial = std::make_shared<Snapshot>();
    std::int64_t steps = 0;
    bool first = true;
    for (std::size_t k = 0; k < old.size(); ++k) {
      if (!overlap(context_.strategies[k]->shard().range, range)) continue;
      const Snapshot& piece = *old[k].snapshot;
      initial->version = first ? piece.version : std::min(initial->version, piece.version);
      initial->gradients = first ? piece.gradients : std::min(initial->gradients, piece.gradients);
      const std::int64_t taken = old[k].optimizer ? old[k].optimizer->steps : 0;
      steps = first ? taken : std::min(steps, taken);
      first = false;
    }
    const auto begin = static_cast<std::ptrdiff_t>(range.offset);
    const auto end = begin + static_cast<std::ptrdiff_t>(range.size);
    initial->params.assign(params.begin() + begin, params.begin() + end);
    shard.initial = initial;
    if (!moments.empty()) {
      auto state = std::make_shared<models::OptimizerState>();
      for (const models::FloatBuffer& m : moments)
        state->moments.emplace_back(m.begin() + begin, m.begin() + end);
      state->steps = steps;
      shard.initial_optimizer = std::move(state);
    }
    shards.push_back(std::move(shard));
  }
  return shards;
}

void Job::install(std::vector<Shard> shards) {
  const bool first = generations_.empty();
  // A worker restarted during the resize (its failure's restart came due) knows the old shards,
  // and must not run while they change.
  stop_workers();
  // The old generation's lost updates count now that training resumes from its checkpoints.
  for (Strategy* s : context_.strategies) elastic(*s).handed_over();
  generations_.push_back(std::move(shards));
  const std::vector<Shard>& now = generations_.back();
  std::vector<Strategy*> running;
  in_use_.clear();
  for (const Shard& shard : now) {
    strategies_.push_back(make_strategy(context_, shard));
    running.push_back(strategies_.back().get());
    in_use_.insert(in_use_.end(), shard.hosts.begin(), shard.hosts.end());
  }
  // Both at once: making a strategy creates mailboxes, SimGrid calls during which other actors
  // of this instant (the observer) run and must see one whole generation.
  context_.shards = now;
  context_.strategies = std::move(running);
  if (first) return;  // started by start() at time 0, with the workers

  context_.coordinator.reshape(static_cast<int>(now.size()));
  context_.recorder.resized(static_cast<int>(now.size()));
  nlohmann::json hosts = nlohmann::json::array();
  for (const sg4::Host* h : in_use_) hosts.push_back(h->get_name());
  context_.recorder.event(
      sg4::Engine::get_clock(), EventType::RESIZED, "",
      {{"shards", now.size()}, {"generation", now.front().generation}, {"hosts", hosts}});
  FAILSIM_INFO("resized to {} shards (generation {}) on {}", now.size(), now.front().generation,
               hosts.dump());
  start();
  for (const auto& w : context_.workers) {
    const auto i = static_cast<std::size_t>(w->index());
    if (!stopped_[i]) continue;
    stopped_[i] = false;
    sg4::Host* host = context_.roles.workers[i];
    if (host->is_on()) {
      w->launch();
      continue;
    }
    // Its host failed while it was stopped: nobody else knows to restart it.
    context_.coordinator.set_worker_live(w->index(), false);
    sg4::Actor::create("restarter", context_.roles.coordinator, [this, host, worker = w.get()] {
      if (context_.repairs.wait_until_up(host) && !worker->alive())
        context_.restarts.restart_worker(*worker);
    });
  }
}

}  // namespace failsim::sim
