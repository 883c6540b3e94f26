#include "sim/engine/math_pool.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

namespace failsim::sim {

// Every live pool, so that fork() can stop and restart their threads.
struct MathPoolForkGuard {
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::vector<MathPool*>& pools() {
    static std::vector<MathPool*> p;
    return p;
  }
  // The registry stays locked from before the fork until after it in both processes, so no pool
  // is created or destroyed halfway.
  static void prepare() {
    mutex().lock();
    for (MathPool* pool : pools()) pool->stop_background();
  }
  static void resume() {
    for (MathPool* pool : pools()) {
      // The same threads ran before the fork; should the system refuse one now, the pool goes
      // on with those it has (the results do not depend on their number), as nothing can be
      // thrown from here.
      try {
        pool->start_background();
      } catch (const std::system_error&) {
      }
    }
    mutex().unlock();
  }
  static void add(MathPool* pool) {
    static std::once_flag registered;
    std::call_once(registered, [] { pthread_atfork(&prepare, &resume, &resume); });
    const std::lock_guard lock(mutex());
    pools().push_back(pool);
  }
  static void remove(MathPool* pool) {
    const std::lock_guard lock(mutex());
    std::erase(pools(), pool);
  }
};

ThreadsRefused::ThreadsRefused(int started, int asked, const std::string& reason)
    : std::runtime_error("the system started " + std::to_string(started) + " of the " +
                         std::to_string(asked) + " threads asked for (" + reason + ")"),
      started_(started),
      asked_(asked) {}

MathPool::MathPool(int threads) : threads_(threads) {
  if (threads < 1) {
    throw std::invalid_argument("MathPool: need at least 1 thread, got " + std::to_string(threads));
  }
  MathPoolForkGuard::add(this);
  try {
    start_background();
  } catch (const std::system_error& e) {
    // The calling thread is one of them (the simulation thread computes too).
    const int started = static_cast<int>(background_.size()) + 1;
    MathPoolForkGuard::remove(this);
    stop_background();
    throw ThreadsRefused(started, threads, e.code().message());
  }
}

MathPool::~MathPool() {
  MathPoolForkGuard::remove(this);
  stop_background();
}

int MathPool::hardware_threads() {
  // The CPUs this process may run on (taskset, cgroup cpusets), not all the machine has.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void MathPool::start_background() {
  for (int slot = 1; slot < threads_; ++slot) {
    background_.emplace_back([this, slot] { background(slot); });
  }
}

void MathPool::stop_background() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& t : background_) t.join();
  background_.clear();
  const std::lock_guard lock(mutex_);
  stopping_ = false;
}

void MathPool::background(int slot) {
  std::unique_lock lock(mutex_);
  while (true) {
    work_.wait(lock, [this] { return stopping_ || head_ != nullptr; });
    if (stopping_) return;  // a queued job waits for the threads' restart or a waiter
    execute(*pop(), slot, lock);
  }
}

MathJob* MathPool::pop() {
  MathJob* job = head_;
  if (job == nullptr) return nullptr;
  head_ = job->next_;
  if (head_ == nullptr) tail_ = nullptr;
  job->next_ = nullptr;
  job->state_ = MathJob::State::RUNNING;
  return job;
}

void MathPool::execute(MathJob& job, int slot, std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  std::exception_ptr error;
  try {
    job.run(slot);
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  job.error_ = error;
  job.state_ = MathJob::State::DONE;
  done_.notify_all();
}

void MathPool::submit(MathJob& job) {
  {
    const std::lock_guard lock(mutex_);
    if (job.state_ != MathJob::State::IDLE) {
      throw std::logic_error("MathPool::submit: the job is already submitted");
    }
    job.state_ = MathJob::State::QUEUED;
    job.next_ = nullptr;
    (tail_ != nullptr ? tail_->next_ : head_) = &job;
    tail_ = &job;
  }
  work_.notify_one();
}

void MathPool::wait(MathJob& job) {
  std::unique_lock lock(mutex_);
  if (job.state_ == MathJob::State::IDLE) {
    throw std::logic_error("MathPool::wait: the job was not submitted");
  }
  while (job.state_ != MathJob::State::DONE) {
    if (MathJob* next = pop()) {
      execute(*next, 0, lock);
    } else {
      done_.wait(lock);
    }
  }
  job.state_ = MathJob::State::IDLE;
  const std::exception_ptr error = std::exchange(job.error_, nullptr);
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

void MathPool::abandon(MathJob& job) {
  std::unique_lock lock(mutex_);
  if (job.state_ == MathJob::State::QUEUED) {
    MathJob* before = nullptr;
    for (MathJob* j = head_; j != &job; j = j->next_) before = j;
    (before != nullptr ? before->next_ : head_) = job.next_;
    if (tail_ == &job) tail_ = before;
    job.next_ = nullptr;
  }
  done_.wait(lock, [&job] { return job.state_ != MathJob::State::RUNNING; });
  job.state_ = MathJob::State::IDLE;
  job.error_ = nullptr;
}

}  // namespace failsim::sim
