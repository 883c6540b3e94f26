#include "result_format/failure_window.hpp"

#include <algorithm>

#include "result_format/process_name.hpp"

namespace failsim::result_format {

bool is_failure(EventType type) {
  return type == EventType::FAILURE || type == EventType::LINK_FAILURE;
}

FailureWindow failure_window(EventType type, double time, std::string_view subject, double down_for,
                             double end_time) {
  FailureWindow w;
  w.link = type == EventType::LINK_FAILURE;
  w.host = w.link ? link_host(subject) : subject;
  w.begin = std::min(time, end_time);
  w.end = std::min(time + down_for, end_time);  // time + inf for "forever"
  return w;
}

}  // namespace failsim::result_format
