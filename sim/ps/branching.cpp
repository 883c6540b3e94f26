#include "sim/ps/branching.hpp"

#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "input/input_error.hpp"

namespace failsim::sim {

namespace {
/// The scenario as JSON without what members may differ in.
nlohmann::json shared_part(const Scenario& s) {
  nlohmann::json j = to_json(s);
  j.erase("name");
  j.erase("description");
  j["output"].erase("directory");
  j["failures"].erase("events");
  const std::string mode = j["consistency"]["mode"].get<std::string>();
  if (mode == "sync" || mode == "async") {
    j["consistency"]["mode"] = "sync or async";
    j["consistency"].erase("combine");  // sync only: the sync members' are compared on their own
  }
  return j;
}

bool is_sync(const Scenario& s) { return s.consistency.mode == ConsistencyMode::SYNC; }

std::vector<FailureEvent> after_update_failures(const Scenario& s) {
  std::vector<FailureEvent> events;
  for (const FailureEvent& e : s.failures.events) {
    if (e.at_update) events.push_back(e);
  }
  return events;
}
}  // namespace

Branching::Branching(std::vector<Scenario> members, std::vector<std::string> labels)
    : members_(std::move(members)) {
  if (members_.empty() || labels.size() != members_.size()) {
    throw std::invalid_argument("Branching: need one label per member and at least one member");
  }
  const nlohmann::json first = shared_part(members_[0]);
  const std::string rule = fmt::format(
      "the same value as in {} (scenarios run together may differ only in name, "
      "description, output.directory, their failures at a time and consistency mode sync "
      "against async)",
      labels[0]);
  for (std::size_t i = 1; i < members_.size(); ++i) {
    const nlohmann::json other = shared_part(members_[i]);
    const nlohmann::json patch = nlohmann::json::diff(first, other);
    if (!patch.empty()) {
      const std::string path = patch[0]["path"].get<std::string>();
      const nlohmann::json::json_pointer pointer(path);
      throw input::InputError(
          labels[i], path, rule,
          other.contains(pointer) ? input::describe_found(other.at(pointer)) : "nothing");
    }
    if (is_sync(members_[i]) &&
        members_[i].consistency.combine != members_[sync_member()].consistency.combine) {
      throw input::InputError(labels[i], "/consistency/combine",
                              fmt::format("the same value as in {}", labels[sync_member()]),
                              fmt::format("\"{}\"", to_string(members_[i].consistency.combine)));
    }
    if (after_update_failures(members_[i]) != after_update_failures(members_[0])) {
      throw input::InputError(
          labels[i], "/failures/events",
          fmt::format("the same failures after an update (`at_update`) as in {}, "
                      "in the same order",
                      labels[0]),
          "others");
    }
  }
  // Merge the timed failures: member by member, each failure joins the first equal one that this
  // member has not claimed yet (a list may hold the same failure twice), or is a new one.
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const auto& events = members_[m].failures.events;
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (!events[i].at_time) continue;
      TimedFailure* same = nullptr;
      for (TimedFailure& t : timed_) {
        if (t.event == events[i] && !t.index[m]) {
          same = &t;
          break;
        }
      }
      if (same == nullptr) {
        same = &timed_.emplace_back(
            TimedFailure{events[i], std::vector<std::optional<std::size_t>>(members_.size())});
      }
      same->index[m] = i;
    }
  }
  for (std::size_t m = 0; m < members_.size(); ++m) group_.push_back(m);
}

bool Branching::split(std::vector<std::size_t> mine, const std::vector<std::size_t>& rest) {
  std::fflush(stdout);  // or both processes would print what is buffered
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    throw std::runtime_error(
        fmt::format("cannot fork to branch the simulation: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    group_ = std::move(mine);
    children_.clear();  // the parent's, not ours to wait for
    forked_ = true;
    return true;
  }
  children_.push_back(pid);
  group_ = rest;
  return false;
}

std::optional<std::size_t> Branching::arrive(std::size_t k) {
  const TimedFailure& t = timed_.at(k);
  // Classes of this process's members by the failure's position in their list, in order of
  // first appearance; this process keeps the first class, a child takes each other one.
  std::vector<std::optional<std::size_t>> keys;
  std::vector<std::vector<std::size_t>> classes;
  for (std::size_t m : group_) {
    std::size_t c = 0;
    while (c < keys.size() && keys[c] != t.index[m]) ++c;
    if (c == keys.size()) {
      keys.push_back(t.index[m]);
      classes.emplace_back();
    }
    classes[c].push_back(m);
  }
  group_ = classes[0];
  for (std::size_t c = 1; c < classes.size(); ++c) {
    if (split(classes[c], classes[0])) return keys[c];
  }
  return keys[0];
}

std::size_t Branching::sync_member() const {
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (is_sync(members_[m])) return m;
  }
  return 0;
}

bool Branching::may_sync() const {
  for (std::size_t m : group_) {
    if (is_sync(members_[m])) return true;
  }
  return false;
}

bool Branching::sync_here() {
  const bool mine = is_sync(members_[group_.front()]);
  // Asked at every gradient of an async server with several workers: no allocation unless mixed.
  const auto agrees = [&](std::size_t m) { return is_sync(members_[m]) == mine; };
  if (std::all_of(group_.begin(), group_.end(), agrees)) return mine;
  std::vector<std::size_t> same, other;
  for (std::size_t m : group_) (is_sync(members_[m]) == mine ? same : other).push_back(m);
  group_ = same;
  if (split(other, same)) return !mine;
  return mine;
}

std::size_t Branching::settle() {
  const std::vector<std::size_t> first{group_.front()};
  const std::vector<std::size_t> others(group_.begin() + 1, group_.end());
  group_ = first;
  for (std::size_t m : others) {
    if (split({m}, first)) return m;
  }
  return first.front();
}

int wait_for_children(const std::vector<pid_t>& children) {
  int result = 0;
  for (pid_t pid : children) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (result == 0) result = code;
  }
  return result;
}

}  // namespace failsim::sim
