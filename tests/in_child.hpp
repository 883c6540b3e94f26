// Runs a piece of code in a forked child and returns the text it made: SimGrid allows one engine
// per process (and its fat-tree zone one per process), so a test or a benchmark that builds
// several platforms builds each in a child of a parent that never creates an engine.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>

namespace failsim::testing {

/// What `body` returns, run in a forked child (which ends with std::_Exit, without the
/// destructors of the parent's objects); throws std::runtime_error with the child's message if
/// `body` threw or the child died.
inline std::string in_child(const std::function<std::string()>& body) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    close(fds[0]);
    std::string text;
    int status = 0;
    try {
      text = body();
    } catch (const std::exception& e) {
      text = e.what();
      status = 1;
    }
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) std::_Exit(2);
      done += static_cast<std::size_t>(n);
    }
    std::_Exit(status);
  }
  close(fds[1]);
  std::string text;
  char buffer[65536];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("child failed: " + (text.empty() ? "no message" : text));
  }
  return text;
}

}  // namespace failsim::testing
