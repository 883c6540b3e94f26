#include "count_mallocs.hpp"

// glibc declares malloc noexcept: its declaration comes before the definition below, which
// takes its exception specification (in a unity build, a <cstdlib> after it would clash).
#include <cstdlib>

namespace failsim::testing {

thread_local bool g_count_mallocs = false;
thread_local long g_mallocs = 0;

}  // namespace failsim::testing

#ifdef FAILSIM_COUNT_MALLOC
extern "C" void* __libc_malloc(std::size_t size);
extern "C" void* malloc(std::size_t size) {
  if (failsim::testing::g_count_mallocs) ++failsim::testing::g_mallocs;
  return __libc_malloc(size);
}
#endif
