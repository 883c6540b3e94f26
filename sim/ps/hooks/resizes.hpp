// What an elastic strategy asks the job when its server's failure is detected: whether the job
// resizes instead of waiting for the host (elastic resume, sim/ps/job.hpp).
#pragma once

namespace failsim::sim {

class Strategy;

class Resizes {
 public:
  virtual ~Resizes() = default;
  /// `owner` detected the failure of its server, whose host is usable again at `host_back`
  /// (infinity: never). Returns whether the job resizes for it, so that `owner` must not replace
  /// the server: the job is elastic and the host will not be back within the patience.
  virtual bool resizes_for(const Strategy& owner, double host_back) = 0;
};

}  // namespace failsim::sim
