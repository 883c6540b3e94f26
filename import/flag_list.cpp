// A command line's options read as argparse reads them (flag_list.hpp).
#include "import/flag_list.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>

#include "input/input_error.hpp"

namespace failsim::import {

namespace {
bool is_option(const std::string& arg) { return arg.size() > 2 && arg.rfind("--", 0) == 0; }
}  // namespace

FlagList::FlagList(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (is_option(arg)) {
      const std::size_t equals = arg.find('=');
      Flag flag{arg.substr(0, equals), {}};
      if (equals != std::string::npos) flag.values.push_back(arg.substr(equals + 1));
      flags_.push_back(std::move(flag));
    } else if (flags_.empty()) {
      stray_.push_back(arg);
    } else {
      flags_.back().values.push_back(arg);
    }
  }
}

const Flag* FlagList::last_of(std::initializer_list<std::string_view> names) const {
  for (auto flag = flags_.rbegin(); flag != flags_.rend(); ++flag) {
    if (std::find(names.begin(), names.end(), flag->name) != names.end()) return &*flag;
  }
  return nullptr;
}

const Flag* FlagList::find(std::initializer_list<std::string_view> names) {
  for (const std::string_view name : names) used_.emplace_back(name);
  return last_of(names);
}

std::string FlagList::spelling(std::initializer_list<std::string_view> names) const {
  const Flag* flag = last_of(names);
  return flag == nullptr ? "" : flag->name;
}

std::optional<std::string> FlagList::text(std::initializer_list<std::string_view> names) {
  const Flag* flag = find(names);
  if (flag == nullptr) return std::nullopt;
  if (flag->values.size() != 1) {
    refuse(flag->name, "one value after it",
           flag->values.empty() ? "nothing (another option or the end of the command line)"
                                : fmt::format("{} values", flag->values.size()));
  }
  return flag->values.front();
}

std::optional<std::int64_t> FlagList::whole_number(std::initializer_list<std::string_view> names,
                                                   std::int64_t min, std::int64_t max) {
  const std::optional<std::string> value = text(names);
  if (!value) return std::nullopt;
  std::int64_t n = 0;
  const char* end = value->data() + value->size();
  const auto [ptr, error] = std::from_chars(value->data(), end, n);
  const bool digits = !value->empty() && value->front() != '-' && value->front() != '+';
  if (!digits || ptr != end || (error != std::errc{} && error != std::errc::result_out_of_range) ||
      n < min) {
    refuse(last_of(names)->name, fmt::format("a whole number >= {}", min), *value);
  }
  if (error == std::errc::result_out_of_range || n > max) {
    refuse(last_of(names)->name, fmt::format("a whole number from {} to {}", min, max), *value);
  }
  return n;
}

bool FlagList::on(std::initializer_list<std::string_view> names) {
  const Flag* flag = find(names);
  if (flag == nullptr) return false;
  if (!flag->values.empty()) {
    refuse(flag->name, "no value (a switch)", fmt::format("'{}'", flag->values.front()));
  }
  return true;
}

std::vector<std::string> FlagList::unused() const {
  std::vector<std::string> names;
  for (const Flag& flag : flags_) {
    const bool asked = std::find(used_.begin(), used_.end(), flag.name) != used_.end();
    if (!asked && std::find(names.begin(), names.end(), flag.name) == names.end())
      names.push_back(flag.name);
  }
  return names;
}

void refuse(const std::string& option, const std::string& expected, const std::string& found) {
  throw input::InputError(option, "", expected, found);
}

}  // namespace failsim::import
