#include "sim/collective/recovery/levelled/levelled_checkpoints.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/collective/job/collective_job.hpp"

namespace failsim::sim {

namespace {
/// Bytes each node of the plan keeps of a checkpoint: its ranks' states (what they read back).
std::vector<double> node_bytes(const CollectivePlan& plan) {
  std::vector<double> out(static_cast<std::size_t>(plan.node_of_rank.back()) + 1, 0.0);
  for (int r = 0; r < plan.ranks(); ++r) {
    out[static_cast<std::size_t>(plan.node_of_rank[static_cast<std::size_t>(r)])] +=
        plan.checkpoint_read_bytes[static_cast<std::size_t>(r)];
  }
  return out;
}

/// The accelerator of platform node `node` with rank `rank`'s local index.
simgrid::s4u::Host* same_slot(CollectiveJob& job, int node, int rank) {
  return job.network().platform().accelerator(node, rank % job.plan().accelerators_per_node);
}

/// The platform node that keeps plan node `i`'s partner copy.
int partner_of(const CollectiveJob& job, int i, int offset) {
  const std::vector<int>& nodes = job.assignment().node;
  return nodes[static_cast<std::size_t>(i + offset) % nodes.size()];
}

}  // namespace

const char* LevelledCheckpoints::name_of(Source source) {
  switch (source) {
    case Source::HOST_MEMORY:
      return "host-memory";
    case Source::PARTNER_MEMORY:
      return "partner-memory";
    case Source::LOCAL_DISK:
      return "local-disk";
    case Source::FILE_SYSTEM:
      break;
  }
  return "file-system";
}

LevelledCheckpoints::Snapshot LevelledCheckpoints::Snapshot::copy() const {
  Snapshot s;
  s.version = version;
  s.state = state;
  s.host = host;
  s.partner = partner;
  s.disk = disk;
  s.file_system = file_system;
  s.nodes = nodes;
  s.complete = complete;
  return s;
}

double LevelledCheckpoints::Snapshot::local_end() const {
  double end = 0.0;
  for (double level : {host, disk}) {
    if (std::isfinite(level)) end = std::max(end, level);
  }
  return end;
}

void LevelledCheckpoints::start(CollectiveJob& job) {
  levels_ = levels(job);
  // Version 0: what a restart with no usable checkpoint starts from (nothing to load).
  if (job.math() != nullptr) durable_.state = job.math()->save();
  durable_.file_system = 0.0;
}

Interrupt LevelledCheckpoints::after_step(CollectiveJob& job) {
  if (job.version() % levels_.every_steps == 0) return checkpoint(job);
  return Interrupt::NONE;
}

Interrupt LevelledCheckpoints::checkpoint(CollectiveJob& job) {
  if (latest_) {
    // One checkpoint at a time: the previous one's writes end first (the host buffer it reads
    // from is the one this copy would overwrite).
    if (const Interrupt i = finish_writes(job); i != Interrupt::NONE) return i;
    previous_ = std::move(latest_);
    latest_.reset();
  }
  const CollectivePlan& plan = job.plan();
  const std::vector<double>& shares = plan.checkpoint_read_bytes;
  Snapshot s;
  s.version = job.version();
  s.nodes = job.assignment().node;
  if (job.math() != nullptr) s.state = job.math()->save();
  // Every rank copies its state at once, each over its own host link: the largest share sets
  // the copy's end.
  s.host =
      job.now() + *std::max_element(shares.begin(), shares.end()) / levels_.host_copy_bandwidth;
  // The writes streaming from host memory, started together (replayed when they went the same
  // way before: CollectiveJob::start_background).
  std::vector<BackgroundSet> writes;
  if (levels_.partner_offset > 0) {
    std::vector<Flow> flows;
    for (int r = 0; r < plan.ranks(); ++r) {
      const int i = plan.node_of_rank[static_cast<std::size_t>(r)];
      flows.push_back({job.network().host(r),
                       same_slot(job, partner_of(job, i, levels_.partner_offset), r),
                       shares[static_cast<std::size_t>(r)]});
    }
    writes.push_back({"partner copy", std::move(flows)});
  }
  if (levels_.disk_write_bandwidth > 0) {
    const std::vector<double> bytes = node_bytes(plan);
    s.disk = std::max(s.host, job.now() + *std::max_element(bytes.begin(), bytes.end()) /
                                              levels_.disk_write_bandwidth);
  }
  ++taken_;
  if (levels_.file_system_every > 0 && taken_ % levels_.file_system_every == 0) {
    writes.push_back({"file-system copy", job.network().checkpoint_writes().flows()});
  }
  std::vector<FlowSet> started;
  if (!writes.empty()) started = job.start_background(writes);
  for (std::size_t w = 0; w < writes.size(); ++w) {
    (writes[w].what == "partner copy" ? s.partner_writes : s.file_system_writes)
        .emplace(std::move(started[w]));
  }
  job.recorder().event(job.now(), EventType::CHECKPOINT_SNAPSHOT, "job", {{"version", s.version}});
  latest_ = std::move(s);
  return Interrupt::NONE;
}

Interrupt LevelledCheckpoints::before_update(CollectiveJob& job, const StepSpan& /*span*/) {
  // The parameters the copy reads do not change until this update: it waits for the copy's end
  // (nothing when the step was longer than the copy).
  if (!latest_ || latest_->host <= job.now() || std::isinf(latest_->host)) return Interrupt::NONE;
  return job.sleep_until(latest_->host, TimeCause::CHECKPOINT_STALL);
}

void LevelledCheckpoints::settle(CollectiveJob& job, Snapshot& s) {
  const auto ended = [&](std::optional<FlowSet>& writes, double& level, Source source) {
    if (!writes || !writes->done()) return;
    level = std::max(s.host, writes->end_time());
    writes.reset();
    job.recorder().event(job.now(), EventType::CHECKPOINT_WRITTEN, name_of(source),
                         {{"version", s.version}});
  };
  ended(s.partner_writes, s.partner, Source::PARTNER_MEMORY);
  ended(s.file_system_writes, s.file_system, Source::FILE_SYSTEM);
  if (std::isfinite(s.file_system) && s.version > durable_.version) make_durable(job, s);
  const bool disk_done = levels_.disk_write_bandwidth == 0 || s.disk <= job.now();
  if (!s.complete && !s.writing() && s.host <= job.now() && disk_done) {
    s.complete = true;
    ++job.counts().checkpoints;
  }
}

void LevelledCheckpoints::poll(CollectiveJob& job) {
  if (latest_) settle(job, *latest_);
}

void LevelledCheckpoints::make_durable(CollectiveJob& job, const Snapshot& s) {
  // No failure can roll back past the file system's copy.
  job.ledger().commit_through(s.version);
  durable_ = s.copy();
  // Host memory and the disks keep the two newest versions only: once s is older than those,
  // the file system is where it is.
  durable_.host = durable_.partner = durable_.disk = NEVER;
}

Interrupt LevelledCheckpoints::finish_writes(CollectiveJob& job) {
  Snapshot& s = *latest_;
  for (std::optional<FlowSet>* writes : {&s.partner_writes, &s.file_system_writes}) {
    if (!*writes) continue;
    if (const Interrupt i = job.wait(**writes, TimeCause::CHECKPOINT_STALL); i != Interrupt::NONE)
      return i;
  }
  if (s.local_end() > job.now()) {
    if (const Interrupt i = job.sleep_until(s.local_end(), TimeCause::CHECKPOINT_STALL);
        i != Interrupt::NONE)
      return i;
  }
  settle(job, s);
  return Interrupt::NONE;
}

std::int64_t LevelledCheckpoints::next_action_version(const CollectiveJob& job) const {
  if (latest_) {
    // The copy to host memory not over: the next step's update may wait for it (before_update),
    // so that step is taken alone.
    if (std::isfinite(latest_->host) && latest_->host > job.now()) return job.version();
    // A level still to complete (its writes keep the network busy, so the steps are taken alone
    // anyway; the local disk's flush does not): poll notes it at the first step boundary after
    // its end, so every step until then. One cut short by a failure never completes.
    const bool disk_cut = levels_.disk_write_bandwidth > 0 && std::isinf(latest_->disk);
    if (!latest_->complete && !disk_cut) return job.version() + 1;
  }
  // Then the next checkpoint, after the step of the next multiple of every_steps.
  return (job.version() / levels_.every_steps + 1) * levels_.every_steps;
}

bool LevelledCheckpoints::network_busy() const { return latest_ && latest_->writing(); }

void LevelledCheckpoints::cut_at(CollectiveJob& job, Snapshot& s, double failed_at) {
  // The writes are the processes' work: they stop with them. What ended by the failure is
  // complete (noticed now if the step under way hid it); the rest is lost.
  for (std::optional<FlowSet>* writes : {&s.partner_writes, &s.file_system_writes}) {
    if (*writes && (!(*writes)->done() || (*writes)->end_time() > failed_at)) {
      (*writes)->cancel();
      writes->reset();
    }
  }
  for (double* level : {&s.host, &s.disk}) {
    if (*level > failed_at) *level = NEVER;
  }
  settle(job, s);
}

std::optional<std::vector<LevelledCheckpoints::Source>> LevelledCheckpoints::sources(
    const CollectiveJob& job, const Snapshot& s) const {
  const std::vector<int>& nodes = job.assignment().node;
  std::vector<Source> out;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const int n = nodes[static_cast<std::size_t>(i)];
    // A copy in host memory survives unless the node lost its memory since it was made; a
    // local disk survives unless its node is gone for good; the file system always does. A
    // node (or partner) that is not the one the copies were made on (a spare swapped in since)
    // holds none of them.
    const bool same = s.nodes.empty() || s.nodes[static_cast<std::size_t>(i)] == n;
    const int partner = partner_of(job, i, levels_.partner_offset);
    const bool same_partner =
        s.nodes.empty() ||
        s.nodes[static_cast<std::size_t>(i + levels_.partner_offset) % s.nodes.size()] == partner;
    if (same && std::isfinite(s.host) && job.nodes().host_memory_lost_at(n) < s.host) {
      out.push_back(Source::HOST_MEMORY);
    } else if (same_partner && std::isfinite(s.partner) &&
               job.nodes().host_memory_lost_at(partner) < s.partner) {
      out.push_back(Source::PARTNER_MEMORY);
    } else if (same && std::isfinite(s.disk) && std::isfinite(job.nodes().back(n))) {
      out.push_back(Source::LOCAL_DISK);
    } else if (std::isfinite(s.file_system)) {
      out.push_back(Source::FILE_SYSTEM);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

LevelledCheckpoints::Choice LevelledCheckpoints::choose(const CollectiveJob& job) const {
  for (const std::optional<Snapshot>* s : {&latest_, &previous_}) {
    if (!*s) continue;
    if (auto from = sources(job, **s)) return {&**s, std::move(*from)};
  }
  if (durable_.version == 0) return {&durable_, {}};
  return {&durable_, *sources(job, durable_)};
}

Interrupt LevelledCheckpoints::load(CollectiveJob& job, const Choice& choice) {
  const std::int64_t version = choice.snapshot->version;
  if (version != job.version()) job.roll_back_to(version, choice.snapshot->state);
  // Copies of later versions belong to the steps rolled back.
  if (latest_ && latest_->version > version) latest_.reset();
  if (previous_ && previous_->version > version) previous_.reset();
  if (version == 0) return Interrupt::NONE;  // from scratch: nothing to load
  // Every node loads from its own source at once: local copies at their bandwidth, the others
  // as flows to the ranks' accelerators.
  const CollectivePlan& plan = job.plan();
  const std::vector<double> per_node = node_bytes(plan);
  std::vector<Flow> flows;
  double local = 0.0;
  for (int r = 0; r < plan.ranks(); ++r) {
    const int i = plan.node_of_rank[static_cast<std::size_t>(r)];
    const double bytes = plan.checkpoint_read_bytes[static_cast<std::size_t>(r)];
    switch (choice.sources[static_cast<std::size_t>(i)]) {
      case Source::HOST_MEMORY:
        local = std::max(local, bytes / levels_.host_copy_bandwidth);
        break;
      case Source::LOCAL_DISK:
        local =
            std::max(local, per_node[static_cast<std::size_t>(i)] / levels_.disk_read_bandwidth);
        break;
      case Source::PARTNER_MEMORY:
        flows.push_back({same_slot(job, partner_of(job, i, levels_.partner_offset), r),
                         job.network().host(r), bytes});
        break;
      case Source::FILE_SYSTEM:
        if (bytes > 0) {
          flows.push_back({job.network().platform().file_system, job.network().host(r), bytes});
        }
        break;
    }
  }
  const double local_end = job.now() + local;
  // The flows are a function of the assignment and of each node's source: the transfer is
  // named by the sources, so a load from the same levels under the same assignment reuses the
  // time of the first (CollectiveJob::transfer; the writes were cut at the failure, so the
  // network is idle).
  Interrupt i = Interrupt::NONE;
  if (!flows.empty()) {
    std::string what = "checkpoint load from ";
    for (Source s : choice.sources) what += name_of(s)[0];  // h, p, l, f: one a node
    i = job.transfer(flows, TimeCause::CHECKPOINT_LOAD, what);
  }
  if (i == Interrupt::NONE && local_end > job.now())
    i = job.sleep_until(local_end, TimeCause::CHECKPOINT_LOAD);
  if (i != Interrupt::NONE) return i;
  nlohmann::json from = nlohmann::json::array();
  for (Source s : choice.sources) from.push_back(name_of(s));
  job.recorder().event(job.now(), EventType::CHECKPOINT_LOADED, "job",
                       {{"version", version}, {"from", from}});
  return Interrupt::NONE;
}

bool LevelledCheckpoints::recover(CollectiveJob& job) {
  if (latest_) {
    cut_at(job, *latest_, job.failure().at);
    if (std::isinf(latest_->host)) latest_.reset();  // its copy never reached host memory
  }
  // Roll back now to what the nodes can load; a failure during the restart or the load may
  // lose more copies: each attempt chooses again.
  const Choice first = choose(job);
  if (first.snapshot->version != job.version()) {
    job.roll_back_to(first.snapshot->version, first.snapshot->state);
  }
  return restart_and_load(job, [&] { return load(job, choose(job)); });
}

void LevelledCheckpoints::finish(CollectiveJob& /*job*/) {
  if (!latest_) return;
  for (std::optional<FlowSet>* writes : {&latest_->partner_writes, &latest_->file_system_writes}) {
    if (*writes) (*writes)->cancel();
  }
}

}  // namespace failsim::sim
