// Natural order of names (see natural_order.hpp).
#include "analysis/natural_order.hpp"

namespace failsim::analysis {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// -1, 0 or 1 as `a` is before, equivalent to or after `b` in natural order alone.
int natural_compare(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      const std::size_t i0 = i, j0 = j;
      while (i < a.size() && a[i] == '0') ++i;
      while (j < b.size() && b[j] == '0') ++j;
      const std::size_t ni = i, nj = j;  // first significant digits
      while (i < a.size() && is_digit(a[i])) ++i;
      while (j < b.size() && is_digit(b[j])) ++j;
      // More significant digits is the larger number; as many, the first differing digit.
      if (i - ni != j - nj) return i - ni < j - nj ? -1 : 1;
      const int digits = a.substr(ni, i - ni).compare(b.substr(nj, j - nj));
      if (digits != 0) return digits < 0 ? -1 : 1;
      if (ni - i0 != nj - j0) return ni - i0 < nj - j0 ? -1 : 1;  // "7" before "007"
      continue;
    }
    if (a[i] != b[j]) {
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
    }
    ++i;
    ++j;
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  return 0;
}

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  const int order = natural_compare(a, b);
  return order != 0 ? order < 0 : a < b;
}

}  // namespace failsim::analysis
