#include "analysis/daly_optimum.hpp"

#include <cmath>

namespace failsim::analysis {

double daly_optimum(double delta, double mtbf) {
  if (delta >= 2.0 * mtbf) return mtbf;
  const double x = delta / (2.0 * mtbf);
  return std::sqrt(2.0 * delta * mtbf) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - delta;
}

}  // namespace failsim::analysis
