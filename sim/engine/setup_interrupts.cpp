#include "sim/engine/setup_interrupts.hpp"

#include <simgrid/s4u/Actor.hpp>

namespace failsim::sim {

void poll_outside_actors(long long i, long long n, std::string_view doing, std::string_view unit,
                         long long every) {
  if (i % every == 0 && input::caught_interrupt() != 0 && simgrid::s4u::this_actor::is_maestro())
    input::throw_interrupted(i, n, doing, unit);
}

}  // namespace failsim::sim
