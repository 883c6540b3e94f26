#include "sim/collective/network/flows.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include "sim/collective/network/link_numbers.hpp"
#include "sim/collective/network/topology/platform_zone.hpp"
#include "sim/engine/log.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(flows, failsim, "flows of the collective protocol's network");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

namespace {
void sleep_until(double time) {
  if (time > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(time);
}

std::uint64_t whole_bytes(const Flow& flow) {
  return static_cast<std::uint64_t>(std::llround(std::max(0.0, flow.bytes)));
}

// The endpoints cost about ten simcalls and their allocations per host, the list walk grows with
// the flows: measured, sets of 4,096 flows ran 1.5 times slower from endpoints, sets of 16,384
// 20 times faster (docs/performance.md, "Flows without SimGrid's list walk").
std::size_t endpoint_threshold_ = 8192;
// An endpoint actor's stack (KiB): it only posts comms and waits. Measured with guard pages on
// (an overflow is then a crash): 5 KiB crashed, 6 KiB ran the 16,384-accelerator job, and every
// shipped collective scenario ran with 8 KiB and every set from endpoints. A set of 600,000
// flows has as many actors, each stack in resident memory (without guard pages SimGrid clears
// it: prepare_endpoint_stacks): 16 KiB is 9 GiB there, 64 KiB would be 37.
constexpr unsigned ENDPOINT_STACK_KIB = 16;
// A host with more comms in a set than this gets an actor for that set alone, which ends with
// it (its list goes with it); the others keep one actor each for the whole run, which empties
// its list after each set by waiting once for each of its comms: O(comms) per comm.
constexpr std::size_t KEPT_ENDPOINT_MAX_COMMS = 64;
// With a guard page (contexts/guard-size > 0), every actor's stack is two memory mappings, and
// Linux allows 65,530 a process by default (docs/performance.md, "Scale"): a set that would take
// the endpoint actors past this starts its flows with sendto comms instead. Without one (a
// collective run on more hosts: prepare_endpoint_stacks), a stack comes from the heap and the
// actors are bounded by the memory the resolve step checks.
constexpr std::size_t MAX_GUARDED_ENDPOINT_ACTORS = 24000;
std::size_t flow_sets_started_ = 0;
// What every flow's message carries: nothing anybody reads.
char token = 0;

/// What one endpoint actor does for a set: receive flows `in`, then, at its turn, send flows
/// `out` (indexes into the set, with their bytes).
struct HostJob {
  std::shared_ptr<FlowEndpoints> set;
  std::vector<std::size_t> in;
  std::vector<std::pair<std::size_t, std::uint64_t>> out;
  sg4::BarrierPtr posted;  // every receive of the set is posted
  sg4::SemaphorePtr mine;  // this actor's turn to send (null: it only receives)
  sg4::SemaphorePtr next;  // the next sender's (or the set's, after the last)
};

/// A host's kept endpoint actor: it waits for a job, does it, empties its list, and so on.
struct KeptEndpoint {
  sg4::SemaphorePtr wake = sg4::Semaphore::create(0);
  std::optional<HostJob> job;
  bool busy = false;
};

/// Per engine (SimGrid's mailboxes and actors are an engine's): the flows' mailboxes and the
/// kept endpoints.
struct EndpointPool {
  sg4::Engine* engine = nullptr;
  std::vector<sg4::Mailbox*> mailboxes;
  std::unordered_map<sg4::Host*, std::unique_ptr<KeptEndpoint>> kept;
  std::size_t actors = 0;  // kept, plus the one-set actors not ended yet
  bool starting = false;   // a set's endpoints are starting: its mailboxes are in use
};

// Never destroyed: a run stopped by a signal leaves its kept actors waiting on their semaphores,
// and SimGrid aborts when a semaphore with a waiter is destroyed (at exit, or when a later engine
// takes over).
EndpointPool& pool() {
  static EndpointPool* p = new EndpointPool{};
  if (p->engine != sg4::Engine::get_instance()) {
    p = new EndpointPool{};
    p->engine = sg4::Engine::get_instance();
  }
  return *p;
}

/// Mailbox i is flow i's of the set being started; the sets share them.
sg4::Mailbox* flow_mailbox(std::size_t i) {
  std::vector<sg4::Mailbox*>& mailboxes = pool().mailboxes;
  while (mailboxes.size() <= i) {
    mailboxes.push_back(sg4::Mailbox::by_name(fmt::format("failsim-flow-{}", mailboxes.size())));
  }
  return mailboxes[i];
}
}  // namespace

// Shared by a set and its endpoint actors, so that what a comm writes into when it ends (the
// receive buffer, the receiving Comm) outlives a set dropped during an actor's unwinding.
struct FlowEndpoints {
  std::vector<sg4::CommPtr> sends;     // the senders' handles on each flow's comm
  std::vector<sg4::CommPtr> receives;  // the receivers' handles: the set waits on these
  std::vector<void*> received;         // where each comm's payload (&token) lands
  sg4::SemaphorePtr hold = sg4::Semaphore::create(0);  // released once per actor when the set ends
  std::size_t actors = 0;
  bool released = false;

  FlowEndpoints() = default;
  FlowEndpoints(const FlowEndpoints&) = delete;
  FlowEndpoints& operator=(const FlowEndpoints&) = delete;
  ~FlowEndpoints() {
    // A handle dropped while its comm runs makes SimGrid print a warning, e.g. for a comm the
    // set cancelled (its end is posted only at the next model update): it is not one.
    for (auto* handles : {&sends, &receives}) {
      for (const sg4::CommPtr& c : *handles) {
        if (c && c->get_state() == sg4::Activity::State::STARTED) {
          c->complete(sg4::Activity::State::CANCELED);
        }
      }
    }
  }
};

namespace {
/// An endpoint actor's part of a set; `kept`: empty the actor's list of its comms afterwards.
void do_job(HostJob& job, bool kept) {
  FlowEndpoints& e = *job.set;
  for (std::size_t i : job.in) e.receives[i] = flow_mailbox(i)->get_async<void>(&e.received[i]);
  job.posted->wait();
  if (job.mine) {
    job.mine->acquire();
    for (const auto& [i, bytes] : job.out) e.sends[i] = flow_mailbox(i)->put_async(&token, bytes);
    job.next->release();
  }
  e.hold->acquire();  // the set has ended: every comm of it arrived, or was cancelled
  if (!kept) return;  // the actor ends, and its list with it
  // A comm leaves an actor's list when the actor waits for it (CommImpl::finish); a cancelled
  // one makes that wait throw once its end is posted.
  const auto empty = [](const sg4::CommPtr& c) {
    try {
      sg4::Comm::wait_any_for({c}, -1.0);
    } catch (const simgrid::NetworkFailureException&) {
    } catch (const simgrid::CancelException&) {
    }
  };
  for (std::size_t i : job.in) empty(e.receives[i]);
  for (const auto& out : job.out) empty(e.sends[out.first]);
}

void start_actor(sg4::Host* host, std::function<void()> body) {
  sg4::Actor::init("failsim-flows", host)->set_stacksize(ENDPOINT_STACK_KIB)->start([body] {
    sg4::Actor::self()->daemonize();  // waiting when the simulation ends: not a deadlock
    body();
  });
}
}  // namespace

namespace {
/// Builds a FlowShape flow by flow: the links numbered by their first use.
class ShapeBuilder {
 public:
  void add(const Flow& flow, const Route& route) {
    shape_.flows.push_back(static_cast<double>(whole_bytes(flow)));
    shape_.flows.push_back(flow.extra_latency);
    shape_.flows.push_back(static_cast<double>(route.size()));
    for (const sg4::Link* link : route) {
      const auto [number, added] = number_.number(link);
      shape_.flows.push_back(static_cast<double>(number));
      if (!added) continue;
      shape_.links.push_back(link->get_bandwidth());
      shape_.links.push_back(link->get_latency());
      shape_.links.push_back(static_cast<double>(link->get_sharing_policy()));
      shape_.links.push_back(link->is_on() ? 1.0 : 0.0);
    }
  }
  FlowShape take() { return std::move(shape_); }

 private:
  FlowShape shape_;
  LinkNumbers number_;
};
}  // namespace

void route_of(const sg4::Host* from, const sg4::Host* to, Route& links, double* latency) {
  links.clear();
  double sum = 0.0;
  // Every host of a collective platform is in its one zone (cluster_platform.hpp).
  const auto* platform =
      dynamic_cast<const PlatformZone*>(from->get_netpoint()->get_englobing_zone());
  if (platform != nullptr) {
    platform->links(from, to, links, latency != nullptr ? &sum : nullptr);
  } else {
    from->route_to(to, links, &sum);
  }
  if (latency != nullptr) *latency = sum;
}

FlowShape shape_of(const std::vector<Flow>& flows) {
  ShapeBuilder shape;
  Route route;
  for (const Flow& flow : flows) {
    route_of(flow.from, flow.to, route);
    shape.add(flow, route);
  }
  return shape.take();
}

FlowShape shape_of(const std::vector<Flow>& flows, const std::vector<Route>& routes) {
  ShapeBuilder shape;
  for (std::size_t i = 0; i < flows.size(); ++i) shape.add(flows[i], routes[i]);
  return shape.take();
}

void prepare_endpoint_stacks(sg4::Engine& engine, std::size_t hosts) {
  // The setting must be the same when SimGrid makes a stack and when it frees it: it is chosen
  // once, before the first actor.
  if (hosts > MAX_GUARDED_ENDPOINT_ACTORS) engine.set_config("contexts/guard-size:0");
}

std::size_t flow_sets_started() { return flow_sets_started_; }
std::size_t endpoint_threshold() { return endpoint_threshold_; }
void set_endpoint_threshold(std::size_t flows) { endpoint_threshold_ = flows; }

FlowSet::FlowSet(const std::vector<Flow>& flows) {
  if (!flows.empty()) ++flow_sets_started_;
  extra_latency_.reserve(flows.size());
  for (const Flow& flow : flows) extra_latency_.push_back(flow.extra_latency);
  if (flows.size() < endpoint_threshold_ || !start_from_endpoints(flows)) {
    comms_.reserve(flows.size());
    for (const Flow& flow : flows) {
      comms_.push_back(sg4::Comm::sendto_async(flow.from, flow.to, whole_bytes(flow)));
    }
  }
  start_ = sg4::Engine::get_clock();
  end_ = start_;
}

namespace {
/// One endpoint actor of a set: its host and its part.
struct Work {
  sg4::Host* host;
  HostJob job;
};

/// The endpoint actors of `flows`: the senders first, in the order of their first flow, then the
/// hosts that only receive. nullopt when a host's sends are not consecutive in `flows`.
std::optional<std::vector<Work>> endpoint_work(const std::vector<Flow>& flows,
                                               std::size_t& senders) {
  std::vector<Work> work;
  std::unordered_map<sg4::Host*, std::size_t> actor_of;
  const auto actor = [&](sg4::Host* host) -> HostJob& {
    auto [it, added] = actor_of.try_emplace(host, work.size());
    if (added) work.push_back({host, {}});
    return work[it->second].job;
  };
  // A sender seen again after another one means its sends are not consecutive.
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const bool seen = actor_of.count(flows[i].from) != 0;
    if (seen && flows[i - 1].from != flows[i].from) return std::nullopt;
    actor(flows[i].from).out.emplace_back(i, whole_bytes(flows[i]));
  }
  senders = work.size();
  for (std::size_t i = 0; i < flows.size(); ++i) actor(flows[i].to).in.push_back(i);
  return work;
}

/// Whether a host's part of a set is small enough for its kept actor.
bool keeps(const HostJob& job) { return job.in.size() + job.out.size() <= KEPT_ENDPOINT_MAX_COMMS; }

/// Which hosts take a kept actor for this set (their own, free: else nullptr); `new_actors`
/// counts the actors to start (a kept one not made yet, or one for this set alone).
std::vector<KeptEndpoint*> kept_endpoints(const std::vector<Work>& work, std::size_t& new_actors) {
  EndpointPool& p = pool();
  new_actors = 0;
  std::vector<KeptEndpoint*> kept(work.size(), nullptr);
  for (std::size_t a = 0; a < work.size(); ++a) {
    auto it = p.kept.find(work[a].host);
    if (!keeps(work[a].job) || it == p.kept.end() || it->second->busy) {
      ++new_actors;  // a set's own, a new kept one, or one for this set while the kept is busy
    } else {
      kept[a] = it->second.get();
    }
  }
  return kept;
}

/// Hands `job` to an endpoint actor on `host`: `kept` when free, else a new kept actor for the
/// host (when it has none and the part is small), else an actor for this set alone.
void hand_over(sg4::Host* host, HostJob job, KeptEndpoint* kept) {
  EndpointPool& p = pool();
  if (kept != nullptr) {
    kept->busy = true;
    kept->job = std::move(job);
    kept->wake->release();
  } else if (keeps(job) && p.kept.count(host) == 0) {
    // This host's kept actor, from now on.
    auto owned = std::make_unique<KeptEndpoint>();
    KeptEndpoint* k = owned.get();
    p.kept.emplace(host, std::move(owned));
    k->busy = true;
    k->job = std::move(job);
    ++p.actors;
    start_actor(host, [k] {
      while (true) {
        k->wake->acquire();
        HostJob next = std::move(*k->job);
        k->job.reset();
        do_job(next, true);
        k->busy = false;
      }
    });
    k->wake->release();
  } else {
    ++p.actors;
    // SimGrid keeps a copy of an actor's code as long as the actor (to restart it), and the
    // set's comms hold their actors: so the code holds the job only until it starts.
    auto handed = std::make_shared<std::optional<HostJob>>(std::move(job));
    start_actor(host, [handed] {
      HostJob j = std::move(**handed);
      handed->reset();
      do_job(j, false);
      --pool().actors;
    });
  }
}
}  // namespace

// The comm of flow i is a mailbox comm between an actor on flow.from and one on flow.to. Its
// surf action is made when its second side is posted, from those actors' hosts, exactly as
// sendto makes it from the flow's hosts: so every receive is posted first, then the sends in
// the order of the flows, one actor after another (a turn passed along), which is the order
// sendto makes them in when each host's sends are consecutive in `flows` (checked: else false).
// All of it at the current simulated time. Each comm is then in its two actors' lists only,
// and ends without any list walk.
bool FlowSet::start_from_endpoints(const std::vector<Flow>& flows) {
  EndpointPool& p = pool();
  if (p.starting) return false;
  std::size_t senders = 0;
  std::optional<std::vector<Work>> work = endpoint_work(flows, senders);
  if (!work) return false;
  std::size_t new_actors = 0;
  const std::vector<KeptEndpoint*> kept = kept_endpoints(*work, new_actors);
  FAILSIM_VERBOSE("{} flows from {} endpoint actors ({} new; {} alive)", flows.size(), work->size(),
                  new_actors, p.actors);
  if (simgrid::config::get_value<int>("contexts/guard-size") > 0 &&
      p.actors + new_actors > MAX_GUARDED_ENDPOINT_ACTORS)
    return false;

  p.starting = true;
  auto shared = std::make_shared<FlowEndpoints>();
  shared->sends.resize(flows.size());
  shared->receives.resize(flows.size());
  shared->received.resize(flows.size(), nullptr);
  shared->actors = work->size();
  for (std::size_t i = 0; i < flows.size(); ++i) flow_mailbox(i);
  const sg4::BarrierPtr posted = sg4::Barrier::create(static_cast<unsigned>(work->size()) + 1);
  std::vector<sg4::SemaphorePtr> turn(senders + 1);
  for (sg4::SemaphorePtr& t : turn) t = sg4::Semaphore::create(0);
  for (std::size_t a = 0; a < work->size(); ++a) {
    HostJob& job = (*work)[a].job;
    job.set = shared;
    job.posted = posted;
    if (a < senders) {
      job.mine = turn[a];
      job.next = turn[a + 1];
    }
    hand_over((*work)[a].host, std::move(job), kept[a]);
  }
  posted->wait();
  turn[0]->release();
  turn[senders]->acquire();
  p.starting = false;
  comms_ = shared->receives;
  endpoints_ = std::move(shared);
  return true;
}

void FlowSet::release_endpoints() {
  if (!endpoints_ || endpoints_->released) return;
  endpoints_->released = true;
  for (std::size_t a = 0; a < endpoints_->actors; ++a) endpoints_->hold->release();
}

FlowSet FlowSet::lasting(double seconds) {
  FlowSet set;
  set.start_ = sg4::Engine::get_clock();
  set.end_ = set.start_ + seconds;
  set.lasting_ = seconds;
  return set;
}

void FlowSet::report_end(std::shared_ptr<double> to, std::optional<double> expected,
                         double tolerance) {
  report_ = std::move(to);
  expected_ = expected;
  tolerance_ = tolerance;
}

FlowSet& FlowSet::operator=(FlowSet&& other) noexcept {
  if (this != &other) {
    cancel();
    comms_ = std::move(other.comms_);
    extra_latency_ = std::move(other.extra_latency_);
    arrived_ = std::exchange(other.arrived_, 0);
    start_ = other.start_;
    end_ = other.end_;
    lasting_ = std::exchange(other.lasting_, std::nullopt);
    report_ = std::move(other.report_);
    expected_ = other.expected_;
    tolerance_ = other.tolerance_;
    cancelled_ = std::exchange(other.cancelled_, false);
    endpoints_ = std::move(other.endpoints_);
    other.comms_.clear();
  }
  return *this;
}

FlowSet::~FlowSet() {
  if (std::uncaught_exceptions() == 0) {
    cancel();
    return;
  }
  // An exception unwinds: an actor killed (a ForcefulKillException; only a coordinator's death
  // does that), or the run interrupted (input::Interrupted, thrown out of Engine::run from the
  // time-advance callback, unwinds the job and its background sets from maestro). No simcall can
  // be made then, so the flows are not cancelled: they run on, or die with the process. And the
  // last handle of a comm still running must not be dropped either: SimGrid's Comm destructor
  // then prints "freed before its completion" and a backtrace, one per flow, on the way out of a
  // SIGTERM that should end with one line and status 143. So those handles are leaked on
  // purpose (intrusive_ptr::detach keeps the reference): a few hundred bytes a flow, once.
  for (std::size_t i = arrived_; i < comms_.size(); ++i) {
    if (comms_[i]) static_cast<void>(comms_[i].detach());
  }
}

bool FlowSet::all_arrived() {
  while (arrived_ < comms_.size() && comms_[arrived_]->test()) ++arrived_;
  if (arrived_ < comms_.size()) return false;
  release_endpoints();
  if (!lasting_) {
    end_ = start_;  // an empty set ends when it starts
    for (std::size_t i = 0; i < comms_.size(); ++i) {
      end_ = std::max(end_, comms_[i]->get_finish_time() + extra_latency_[i]);
    }
    if (expected_ && std::abs(end_ - (start_ + *expected_)) <= tolerance_)
      end_ = start_ + *expected_;
  }
  if (report_) *report_ = end_ - start_;
  return true;
}

bool FlowSet::done() {
  if (cancelled_) return false;
  return all_arrived() && sg4::Engine::get_clock() >= end_;
}

bool FlowSet::wait_until(double deadline) {
  if (cancelled_) return false;
  if (arrived_ < comms_.size()) {
    const std::vector<sg4::CommPtr> pending(comms_.begin() + static_cast<std::ptrdiff_t>(arrived_),
                                            comms_.end());
    const double now = sg4::Engine::get_clock();
    // wait_all_for waits with wait_any_for, which leaves a comm running when the time is up.
    const double timeout = std::isinf(deadline) ? -1.0 : std::max(0.0, deadline - now);
    arrived_ += sg4::Comm::wait_all_for(pending, timeout);
    if (!all_arrived()) return false;  // the clock is at the deadline
  } else if (!all_arrived()) {
    return false;
  }
  if (end_ > deadline) {
    sleep_until(deadline);
    return false;
  }
  sleep_until(end_);
  return true;
}

void FlowSet::cancel() {
  report_.reset();                  // a set cut short has no duration to report
  if (lasting_) cancelled_ = true;  // as a set of flows is, whether it had ended or not
  if (comms_.empty() || cancelled_) return;
  std::size_t running = 0;
  for (std::size_t i = arrived_; i < comms_.size(); ++i) {
    if (!comms_[i]->test()) {
      comms_[i]->cancel();
      ++running;
    }
  }
  cancelled_ = true;
  release_endpoints();
  if (running > 0) {
    FAILSIM_VERBOSE("{} of {} flows cancelled", running, comms_.size());
  }
}

}  // namespace failsim::sim
