// Counting allocations, for the tests that a model's steady state allocates nothing: the test
// executable that links count_mallocs.cpp wraps glibc's malloc and counts the calls made by the
// current thread while `g_count_mallocs` is set. Every allocation goes through it: operator
// new, std::vector, and Eigen's aligned_malloc alike. Only where glibc and no sanitizer are
// present (FAILSIM_COUNT_MALLOC is then defined).
#pragma once

#include <cstddef>

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define FAILSIM_COUNT_MALLOC 1
#endif

namespace failsim::testing {

extern thread_local bool g_count_mallocs;
extern thread_local long g_mallocs;

}  // namespace failsim::testing
