// The threads that compute a run's math while SimGrid simulates on one thread (issue 8).
//
// A gradient depends only on (snapshot, batch, dropout seed) and an evaluation only on a
// snapshot, so the simulation thread submits them as jobs and collects each result when the
// simulated protocol needs it: meanwhile it simulates other actors and the jobs compute on other
// cores. Every job computes the same numbers whichever thread runs it and whenever, so results
// are byte-identical for any number of threads (tests/test_threads.cpp).
//
// `threads` computing threads in all: threads - 1 background threads plus the simulation thread,
// which computes queued jobs itself while it waits for a result (so 1 thread is the plain
// sequential run, each job computed when it is collected). Each thread has a fixed slot in
// [0, threads) naming its scratch space (slot 0: the simulation thread), so two jobs never share
// a model's buffers. Jobs are intrusive (no allocation per job) and live in their owner, who must
// collect or abandon a submitted job before destroying it.
//
// fork() (branching.hpp forks mid-run) keeps only the calling thread: the pool stops its
// background threads before any fork (letting their running jobs finish, queued jobs stay queued)
// and starts them again in both processes afterwards (pthread_atfork).
#pragma once

#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace failsim::sim {

class MathPool;

/// The system refused a thread of a pool (a process or address-space limit): what() reads
/// "the system started 3 of the 8 threads asked for (Resource temporarily unavailable)".
class ThreadsRefused : public std::runtime_error {
 public:
  ThreadsRefused(int started, int asked, const std::string& reason);
  int started() const { return started_; }
  int asked() const { return asked_; }

 private:
  int started_;
  int asked_;
};

/// A unit of math. Subclasses hold their inputs and outputs and compute in run().
class MathJob {
 public:
  MathJob() = default;
  MathJob(const MathJob&) = delete;
  MathJob& operator=(const MathJob&) = delete;
  virtual ~MathJob() = default;

 protected:
  /// Computes the job in the thread of `slot`; may throw (rethrown by MathPool::wait).
  virtual void run(int slot) = 0;

 private:
  friend class MathPool;
  enum class State { IDLE, QUEUED, RUNNING, DONE };
  State state_ = State::IDLE;  // guarded by the pool's mutex
  MathJob* next_ = nullptr;    // in the pool's queue
  std::exception_ptr error_;
};

class MathPool {
 public:
  /// `threads` >= 1 (throws std::invalid_argument otherwise). Throws ThreadsRefused, with the
  /// threads it started stopped again, when the system does not start them all.
  explicit MathPool(int threads);
  ~MathPool();
  MathPool(const MathPool&) = delete;
  MathPool& operator=(const MathPool&) = delete;

  int threads() const { return threads_; }

  /// Queues `job` (idle: never submitted, or collected) behind the jobs already queued.
  void submit(MathJob& job);
  /// Returns once `job` is computed, computing queued jobs (oldest first) in the meantime, and
  /// makes it idle again; rethrows what the job threw.
  void wait(MathJob& job);
  /// The result of `job` is not wanted: dequeues it if no thread has started it, else waits for
  /// it to finish (its buffers are then free). Idle afterwards; an exception is dropped.
  void abandon(MathJob& job);

  /// The number of hardware threads (at least 1): the default of --threads.
  static int hardware_threads();

 private:
  void start_background();
  void stop_background();
  void background(int slot);
  /// Takes the oldest queued job (the lock held); nullptr if none.
  MathJob* pop();
  /// Runs `job` in `slot` with the lock released; marks it done and wakes the waiters.
  void execute(MathJob& job, int slot, std::unique_lock<std::mutex>& lock);

  friend struct MathPoolForkGuard;

  int threads_;
  std::mutex mutex_;
  std::condition_variable work_;  // background threads: a job was queued, or stop
  std::condition_variable done_;  // waiters: a job finished
  MathJob* head_ = nullptr;
  MathJob* tail_ = nullptr;
  bool stopping_ = false;
  std::vector<std::thread> background_;
};

}  // namespace failsim::sim
