// The CSV, JSON-lines and sacct failure-log readers (fault_log.hpp).
#include "input/fault_log.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "input/input_error.hpp"
#include "input/units.hpp"

namespace failsim::input {
namespace {

constexpr double SECONDS_PER_DAY = 86400.0;
constexpr std::string_view UNSPECIFIED_CAUSE = "unspecified";
constexpr std::string_view NODE_FAIL = "NODE_FAIL";

/// One fault as a line of the log gives it, before the times become days.
struct Record {
  std::string node;
  double start = 0.0;  ///< seconds
  std::optional<double> end;
  std::string cause;
  std::size_t line = 0;
};

/// A field of a delimited line: its text (quotes removed) and its 1-based column.
struct Cell {
  std::string text;
  int column = 0;
};

/// Where an error is: the file, the line and the column.
struct Place {
  const std::string& label;
  std::size_t line;
  int column;
  [[noreturn]] void fail(const std::string& expected, const std::string& found) const {
    throw InputError(label, "", expected, found, static_cast<int>(line), column);
  }
};

std::string quote(std::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool digits(std::string_view s, std::size_t at, std::size_t n, int& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

/// Days from 1970-01-01 to the civil date y-m-d (proleptic Gregorian; H. Hinnant's algorithm).
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

std::optional<double> parse_number(std::string_view s) {
  double v = 0.0;
  if (s.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

/// The fields of one line split at `delimiter`; double quotes enclose a field with delimiters
/// ("" is a quote inside). Fails at the line for a quote left open.
std::vector<Cell> split_line(std::string_view line, char delimiter, const Place& at) {
  std::vector<Cell> cells;
  std::size_t i = 0;
  while (true) {
    Cell cell;
    cell.column = static_cast<int>(i) + 1;
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cell.text += '"';
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        cell.text += line[i++];
      }
      if (!closed) {
        Place{at.label, at.line, cell.column}.fail(
            "a quoted field closed on its line (a '\"' ends it; '\"\"' is a quote inside)",
            "no closing quote");
      }
      if (i < line.size() && line[i] != delimiter) {
        Place{at.label, at.line, static_cast<int>(i) + 1}.fail(
            fmt::format("'{}' or the end of the line after a quoted field", delimiter),
            quote(line.substr(i, 1)));
      }
    } else {
      const std::size_t next = std::min(line.find(delimiter, i), line.size());
      cell.text = std::string(trim(line.substr(i, next - i)));
      i = next;
    }
    cells.push_back(std::move(cell));
    if (i >= line.size()) break;
    ++i;  // the delimiter
  }
  return cells;
}

/// The lines of `text` with their 1-based numbers, blank lines left out.
std::vector<std::pair<std::size_t, std::string_view>> lines_of(std::string_view text) {
  std::vector<std::pair<std::size_t, std::string_view>> out;
  std::size_t number = 0;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number;
    if (!trim(line).empty()) out.emplace_back(number, line);
    at = end + 1;
  }
  return out;
}

std::string expected_time(const FaultLogFormat& f, std::string_view what) {
  switch (f.time) {
    case LogTimeKind::ISO8601:
      return fmt::format("{} as an ISO 8601 date and time, such as \"2024-03-01T12:34:56\"", what);
    case LogTimeKind::EPOCH:
      return fmt::format("{} as seconds since 1970-01-01T00:00:00Z, such as 1709296496", what);
    case LogTimeKind::RELATIVE:
      return fmt::format("{} as a number >= 0 (in the log's time_unit)", what);
  }
  return std::string(what);
}

/// A time written as text (a CSV cell, a sacct field, a JSON string), in seconds.
double time_of_text(std::string_view text, const FaultLogFormat& f, std::string_view what,
                    const Place& at) {
  std::optional<double> v;
  if (f.time == LogTimeKind::ISO8601) {
    v = parse_iso8601(text);
  } else {
    v = parse_number(text);
    if (v && f.time == LogTimeKind::RELATIVE) {
      if (*v < 0.0)
        v.reset();
      else
        v = *v * f.seconds_per_unit;
    }
  }
  if (!v) at.fail(expected_time(f, what), quote(text));
  return *v;
}

/// A time as a JSON value: a string as text; a number for epoch or relative times.
double time_of_json(const nlohmann::json& value, const FaultLogFormat& f, std::string_view what,
                    const Place& at) {
  if (value.is_string()) return time_of_text(value.get_ref<const std::string&>(), f, what, at);
  if (value.is_number() && f.time != LogTimeKind::ISO8601) {
    return time_of_text(fmt::format("{}", value.get<double>()), f, what, at);
  }
  at.fail(expected_time(f, what), describe_found(value));
}

/// The column's index in the header row; fails at the header naming the columns there are.
std::size_t column_index(const std::vector<Cell>& header, const std::string& name,
                         std::string_view role, const Place& at) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i].text == name) return i;
  }
  std::string names;
  for (const Cell& c : header) names += (names.empty() ? "" : ", ") + quote(c.text);
  at.fail(fmt::format("a header row with the {} column {}", role, quote(name)),
          fmt::format("the columns {}", names));
}

struct Columns {
  std::size_t time = 0;
  std::size_t node = 0;
  std::optional<std::size_t> cause;
  std::optional<std::size_t> end;
  std::optional<std::size_t> state;  ///< sacct's State
  std::size_t count = 0;             ///< fields per line
};

/// The records of a delimited log (CSV, or sacct's '|'-separated output): a header row, then
/// one fault per line.
std::vector<Record> read_delimited(std::string_view text, const FaultLogFormat& f,
                                   const std::string& label) {
  const bool sacct = f.kind == FaultLogKind::SACCT;
  const char delimiter = sacct ? '|' : ',';
  const auto lines = lines_of(text);
  if (lines.empty()) {
    Place{label, 1, 1}.fail(
        sacct ? "sacct's output with its header row (JobID|State|NodeList|End ...)"
              : "a header row naming the columns, then a fault per line",
        "an empty file");
  }
  const Place header_at{label, lines.front().first, 1};
  const std::vector<Cell> header = split_line(lines.front().second, delimiter, header_at);
  Columns c;
  c.count = header.size();
  if (sacct) {
    c.time = column_index(header, "End", "time", header_at);
    c.node = column_index(header, "NodeList", "node", header_at);
    c.state = column_index(header, "State", "state", header_at);
  } else {
    c.time = column_index(header, f.time_column, "time", header_at);
    c.node = column_index(header, f.node_column, "node", header_at);
    if (f.cause_column) c.cause = column_index(header, *f.cause_column, "cause", header_at);
    if (f.end_column) c.end = column_index(header, *f.end_column, "end", header_at);
  }
  std::vector<Record> records;
  for (std::size_t k = 1; k < lines.size(); ++k) {
    const std::size_t number = lines[k].first;
    const std::string_view line = lines[k].second;
    const std::vector<Cell> cells = split_line(line, delimiter, Place{label, number, 1});
    if (cells.size() != c.count) {
      Place{label, number, 1}.fail(
          fmt::format("{} fields separated by '{}', as the header row has", c.count, delimiter),
          fmt::format("{} fields", cells.size()));
    }
    const auto place = [&](std::size_t i) { return Place{label, number, cells[i].column}; };
    if (c.state) {
      // sacct lists every job the query selects: only a node failure is a fault. A job
      // cancelled, failed or completed is not, whatever -s asked for.
      const std::string& state = cells[*c.state].text;
      if (state.rfind(NODE_FAIL, 0) != 0) continue;
    }
    Record r;
    r.line = number;
    r.node = cells[c.node].text;
    if (r.node.empty()) place(c.node).fail("a node name", "an empty field");
    if (sacct && r.node.find_first_of("[,") != std::string::npos) {
      place(c.node).fail(
          "a NODE_FAIL job of one node (sacct names every node of a job, not the one that "
          "failed; for a multi-node job write the failed node, e.g. from `sacctmgr list event`, "
          "in a CSV log)",
          quote(r.node));
    }
    r.start = time_of_text(cells[c.time].text, f, sacct ? "the End of a NODE_FAIL job" : "a time",
                           place(c.time));
    if (c.cause) {
      r.cause = cells[*c.cause].text;
      if (r.cause.empty()) place(*c.cause).fail("a cause", "an empty field");
    } else {
      r.cause = sacct ? std::string(NODE_FAIL) : std::string(UNSPECIFIED_CAUSE);
    }
    if (c.end && !cells[*c.end].text.empty()) {
      r.end = time_of_text(cells[*c.end].text, f, "an end time (or an empty field)", place(*c.end));
      if (*r.end < r.start) {
        place(*c.end).fail(
            fmt::format("an end at or after the fault's start ({})", quote(cells[c.time].text)),
            quote(cells[*c.end].text));
      }
    }
    records.push_back(std::move(r));
  }
  return records;
}

/// The column of key `key` on a JSON line, for messages: where `"key"` is written, else 1.
int key_column(std::string_view line, const std::string& key) {
  const std::size_t at = line.find(quote(key));
  return at == std::string_view::npos ? 1 : static_cast<int>(at) + 1;
}

std::vector<Record> read_json_lines(std::string_view text, const FaultLogFormat& f,
                                    const std::string& label) {
  std::vector<Record> records;
  for (const auto& numbered : lines_of(text)) {
    const std::size_t number = numbered.first;
    const std::string_view line = numbered.second;
    const Place line_at{label, number, 1};
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      Place{label, number, static_cast<int>(e.byte)}.fail("a JSON object on each line",
                                                          std::string(e.what()));
    }
    if (!doc.is_object()) line_at.fail("a JSON object on each line", describe_found(doc));
    const auto member = [&](const std::string& key) -> const nlohmann::json* {
      const auto it = doc.find(key);
      return it == doc.end() || it->is_null() ? nullptr : &*it;
    };
    const auto at = [&](const std::string& key) {
      return Place{label, number, key_column(line, key)};
    };
    const auto text_of = [&](const std::string& key, std::string_view what) {
      const nlohmann::json* v = member(key);
      if (v == nullptr) line_at.fail(fmt::format("{} in key {}", what, quote(key)), "nothing");
      if (v->is_number_integer()) return v->dump();  // node 17
      if (!v->is_string() || v->get_ref<const std::string&>().empty()) {
        at(key).fail(fmt::format("{} (a non-empty string) in key {}", what, quote(key)),
                     describe_found(*v));
      }
      return v->get<std::string>();
    };
    Record r;
    r.line = number;
    r.node = text_of(f.node_column, "a node name");
    const nlohmann::json* start = member(f.time_column);
    if (start == nullptr) {
      line_at.fail(expected_time(f, fmt::format("a time in key {}", quote(f.time_column))),
                   "nothing");
    }
    r.start = time_of_json(*start, f, "a time", at(f.time_column));
    r.cause = f.cause_column ? text_of(*f.cause_column, "a cause") : std::string(UNSPECIFIED_CAUSE);
    if (f.end_column) {
      const nlohmann::json* end = member(*f.end_column);
      if (end != nullptr && !(end->is_string() && end->get_ref<const std::string&>().empty())) {
        r.end = time_of_json(*end, f, "an end time (or null)", at(*f.end_column));
        if (*r.end < r.start) {
          at(*f.end_column)
              .fail(fmt::format("an end at or after the fault's start ({})", start->dump()),
                    end->dump());
        }
      }
    }
    records.push_back(std::move(r));
  }
  return records;
}

}  // namespace

std::optional<double> parse_iso8601(std::string_view text) {
  const std::string_view s = trim(text);
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(s, 0, 4, year) || s.size() < 10 || s[4] != '-' || !digits(s, 5, 2, month) ||
      s[7] != '-' || !digits(s, 8, 2, day)) {
    return std::nullopt;
  }
  static constexpr std::array<int, 12> DAYS{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1) return std::nullopt;
  if (day > DAYS[month - 1] + (month == 2 && leap(year) ? 1 : 0)) return std::nullopt;
  std::size_t i = 10;
  double fraction = 0.0;
  if (i < s.size() && (s[i] == 'T' || s[i] == ' ')) {
    if (!digits(s, i + 1, 2, hour) || i + 3 >= s.size() || s[i + 3] != ':' ||
        !digits(s, i + 4, 2, minute)) {
      return std::nullopt;
    }
    i += 6;
    if (i < s.size() && s[i] == ':') {
      if (!digits(s, i + 1, 2, second)) return std::nullopt;
      i += 3;
      if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
        std::size_t j = i + 1;
        while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
        if (j == i + 1) return std::nullopt;
        fraction = *parse_number("0." + std::string(s.substr(i + 1, j - i - 1)));
        i = j;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
  }
  double offset = 0.0;  // seconds east of UTC
  if (i < s.size()) {
    if (s[i] == 'Z' && i + 1 == s.size()) {
      i += 1;
    } else if (s[i] == '+' || s[i] == '-') {
      int oh = 0, om = 0;
      if (!digits(s, i + 1, 2, oh)) return std::nullopt;
      std::size_t j = i + 3;
      if (j < s.size() && s[j] == ':') ++j;
      if (!digits(s, j, 2, om) || j + 2 != s.size() || oh > 23 || om > 59) return std::nullopt;
      offset = (s[i] == '+' ? 1.0 : -1.0) * (oh * 3600.0 + om * 60.0);
      i = s.size();
    }
  }
  if (i != s.size()) return std::nullopt;
  const long long days =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return static_cast<double>(days) * SECONDS_PER_DAY + hour * 3600.0 + minute * 60.0 + second +
         fraction - offset;
}

const Choices<FaultLogKind>& fault_log_kinds() {
  static const Choices<FaultLogKind> kinds{{"csv", FaultLogKind::CSV},
                                           {"jsonl", FaultLogKind::JSON_LINES},
                                           {"sacct", FaultLogKind::SACCT}};
  return kinds;
}

FaultLogFormat read_fault_log_format(const ObjectReader& r, FaultLogKind kind) {
  FaultLogFormat f;
  f.kind = kind;
  if (kind == FaultLogKind::SACCT) {
    r.forbid("columns", "sacct's columns are fixed: End, NodeList, State");
    r.forbid("time_unit", "sacct writes ISO 8601 times");
  } else {
    const ObjectReader c = r.object("columns", {"time", "node", "cause", "end"});
    f.time_column = c.string("time");
    f.node_column = c.string("node");
    if (c.has("cause")) f.cause_column = c.string("cause");
    if (c.has("end")) f.end_column = c.string("end");
    f.time_unit = r.string_or("time_unit", f.time_unit);
  }
  if (f.time_unit == "epoch") {
    f.time = LogTimeKind::EPOCH;
  } else if (f.time_unit != "iso8601") {
    f.time = LogTimeKind::RELATIVE;
    // A unit alone: "min", not "2min" or "1 h".
    if (f.time_unit.find_first_of(" \t0123456789.") != std::string::npos ||
        quantity_kind("1" + f.time_unit) != Quantity::TIME) {
      r.at("time_unit")
          .fail(
              "\"iso8601\", \"epoch\" (seconds since 1970-01-01T00:00:00Z) or the unit of time of "
              "the log's numbers (ps ns us ms s min h d w)",
              quote(f.time_unit));
    }
    f.seconds_per_unit =
        parse_quantity("1" + f.time_unit, Quantity::TIME, Sign::POSITIVE, r.at("time_unit"));
  }
  if (!r.has("origin")) return f;
  if (f.time == LogTimeKind::ISO8601) {
    f.origin_text = r.string("origin");
    f.origin = parse_iso8601(*f.origin_text);
    if (!f.origin) {
      r.at("origin").fail("an ISO 8601 date and time, such as \"2024-03-01T00:00:00Z\"",
                          quote(*f.origin_text));
    }
  } else if (f.time == LogTimeKind::EPOCH) {
    f.origin = r.number("origin", Interval::non_negative());
  } else {
    r.forbid("origin", "a log of relative times starts at 0: set from_day instead");
  }
  return f;
}

nlohmann::json fault_log_format_to_json(const FaultLogFormat& f) {
  nlohmann::json out{{"format", spelling_of(f.kind, fault_log_kinds())}};
  if (f.kind != FaultLogKind::SACCT) {
    nlohmann::json columns{{"time", f.time_column}, {"node", f.node_column}};
    if (f.cause_column) columns["cause"] = *f.cause_column;
    if (f.end_column) columns["end"] = *f.end_column;
    out["columns"] = columns;
    out["time_unit"] = f.time_unit;
  }
  if (f.origin_text) {
    out["origin"] = *f.origin_text;
  } else if (f.origin) {
    out["origin"] = *f.origin;
  }
  return out;
}

FaultTrace parse_fault_log(const std::string& text, const FaultLogFormat& format,
                           const std::string& label) {
  std::vector<Record> records = format.kind == FaultLogKind::JSON_LINES
                                    ? read_json_lines(text, format, label)
                                    : read_delimited(text, format, label);
  if (records.empty()) {
    Place{label, 1, 1}.fail(format.kind == FaultLogKind::SACCT
                                ? "at least one NODE_FAIL job (State NODE_FAIL)"
                                : "a log of at least one fault",
                            "none");
  }
  // Logs are kept in the order their tools write (by job, by host): faults go by start.
  std::stable_sort(records.begin(), records.end(),
                   [](const Record& a, const Record& b) { return a.start < b.start; });
  const double origin = format.origin                          ? *format.origin
                        : format.time == LogTimeKind::RELATIVE ? 0.0
                                                               : records.front().start;
  if (records.front().start < origin) {
    Place{label, records.front().line, 1}.fail(
        "faults at or after the trace's origin (failures.trace.origin)",
        fmt::format("a fault {} s before it", origin - records.front().start));
  }
  FaultTrace trace;
  std::map<std::string, std::size_t> index_of;
  double last = 0.0;
  for (const Record& r : records) {
    const auto [it, added] = index_of.emplace(r.node, trace.nodes.size());
    if (added) trace.nodes.push_back(r.node);
    TraceFault fault;
    fault.node = it->second;
    fault.start = (r.start - origin) / SECONDS_PER_DAY;
    if (r.end) fault.end = (*r.end - origin) / SECONDS_PER_DAY;
    fault.kind = r.cause;
    fault.start_event = r.line;
    last = std::max({last, fault.start, fault.end.value_or(0.0)});
    trace.faults.push_back(std::move(fault));
  }
  trace.first_event = trace.faults.front().start;
  trace.last_event = last;
  return trace;
}

}  // namespace failsim::input
