// The SimGrid settings failsim accepts (simgrid_settings.hpp).
#include "sim/engine/simgrid_settings.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "input/input_error.hpp"
#include "input/object_reader.hpp"

namespace failsim::sim {

namespace {
/// SimGrid's spellings of a boolean (xbt/config.cpp), false ones first.
const std::vector<std::string_view> FALSE_WORDS{"0", "no", "off", "false"};
const std::vector<std::string_view> TRUE_WORDS{"1", "yes", "on", "true"};

/// "1e-8", "0.001", "1048576": a bound as a reader writes it (fmt writes 1e-08).
std::string bound(double x) {
  std::string text = fmt::format("{}", x);
  const std::size_t e = text.find("e-0");
  if (e != std::string::npos) text.erase(e + 2, 1);
  return text;
}

/// `text` as a number when all of it is one (no spaces, no trailing words), finite.
bool read_number(const std::string& text, double& value) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno == 0 && std::isfinite(value);
}

bool takes(const SimgridSetting& setting, const std::string& value) {
  const auto listed = [&](const std::vector<std::string_view>& words) {
    return std::find(words.begin(), words.end(), value) != words.end();
  };
  double x = 0.0;
  switch (setting.values) {
    case SettingValues::CHOICE:
      return listed(setting.choices);
    case SettingValues::BOOLEAN:
      return listed(FALSE_WORDS) || listed(TRUE_WORDS);
    case SettingValues::WHOLE:
      if (value.find_first_not_of("0123456789") != std::string::npos) return false;
      [[fallthrough]];
    case SettingValues::NUMBER:
      return read_number(value, x) && x >= setting.min && x <= setting.max;
  }
  return false;
}
}  // namespace

const std::vector<SimgridSetting>& simgrid_settings() {
  // The ranges: a stack holds the deepest actor (failsim refuses less than MIN_STACK_KIB later,
  // with the measured reason) and 1 GiB is beyond any need; a precision above 1 ms blurs the
  // time model, and maxmin/precision below 1e-8 may never converge (0 hangs a run).
  // surf/precision's lower end is SimGrid's own default, 1e-9 s.
  static const std::vector<SimgridSetting> settings{
      {"network/model", SettingValues::CHOICE, {"LV08", "CM02", "SMPI", "IB"}, 0, 0, ""},
      {"network/crosstraffic", SettingValues::BOOLEAN, {}, 0, 0, ""},
      {"network/TCP-gamma", SettingValues::NUMBER, {}, 0.0, 1e15, "bytes"},
      {"contexts/stack-size", SettingValues::WHOLE, {}, 1, 1048576, "KiB"},
      {"surf/precision", SettingValues::NUMBER, {}, 1e-9, 1e-3, "seconds"},
      {"maxmin/precision", SettingValues::NUMBER, {}, 1e-8, 1e-3, ""},
  };
  return settings;
}

std::string describe_values(const SimgridSetting& setting) {
  const std::string of = setting.unit.empty() ? "" : fmt::format(" of {}", setting.unit);
  switch (setting.values) {
    case SettingValues::CHOICE:
      return fmt::format("one of {}", fmt::join(setting.choices, ", "));
    case SettingValues::BOOLEAN:
      return fmt::format("one of {}, {}", fmt::join(FALSE_WORDS, ", "),
                         fmt::join(TRUE_WORDS, ", "));
    case SettingValues::WHOLE:
      return fmt::format("a whole number{} in [{}, {}]", of, bound(setting.min),
                         bound(setting.max));
    case SettingValues::NUMBER:
      return fmt::format("a number{} in [{}, {}]", of, bound(setting.min), bound(setting.max));
  }
  return "";
}

void check_simgrid_setting(const std::string& setting) {
  const std::size_t colon = setting.find(':');
  const std::string key = setting.substr(0, colon);
  const auto& known = simgrid_settings();
  const auto it = std::find_if(known.begin(), known.end(),
                               [&](const SimgridSetting& s) { return s.key == key; });
  if (it != known.end() && colon == std::string::npos) {
    throw input::InputError("--cfg", key, fmt::format("{} after '{}:'", describe_values(*it), key),
                            "no value");
  }
  if (it == known.end()) {
    std::vector<std::string_view> keys;
    for (const SimgridSetting& s : known) keys.push_back(s.key);
    const std::string hint = input::closest_match(key, keys);
    throw input::InputError(
        "--cfg", "",
        fmt::format("KEY:VALUE with KEY one of {} (docs/cli.md, \"SimGrid settings\")",
                    fmt::join(keys, ", ")),
        setting + (hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
  }
  const std::string value = setting.substr(colon + 1);
  if (takes(*it, value)) return;
  std::string hint;
  if (it->values == SettingValues::CHOICE) hint = input::closest_match(value, it->choices);
  throw input::InputError("--cfg", key, describe_values(*it),
                          value + (hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
}

void check_simgrid_args(const std::vector<std::string>& args) {
  const std::string cfg = "--cfg=";
  for (const std::string& a : args) {
    if (a.rfind(cfg, 0) == 0) check_simgrid_setting(a.substr(cfg.size()));
  }
}

}  // namespace failsim::sim
