#include "result_format/process_name.hpp"

#include <charconv>

namespace failsim::result_format {
namespace {

/// Reads "<word>-<digits>" followed by `end` ("." for a prefix, nothing for a base) off the
/// front of `text`; the number, or none (then `text` is left as it was).
std::optional<int> take_numbered(std::string_view& text, std::string_view word,
                                 std::string_view end) {
  if (!text.starts_with(word) || text.size() <= word.size() || text[word.size()] != '-') {
    return std::nullopt;
  }
  const char* first = text.data() + word.size() + 1;
  const char* last = text.data() + text.size();
  int n = 0;
  const auto [stop, ec] = std::from_chars(first, last, n);
  if (ec != std::errc() || stop == first || *first == '+' || *first == '-') return std::nullopt;
  const std::string_view rest(stop, static_cast<std::size_t>(last - stop));
  if (end.empty() ? !rest.empty() : !rest.starts_with(end)) return std::nullopt;
  text = rest.substr(end.size());
  return n;
}

std::string numbered(std::string_view word, std::size_t n) {
  return std::string(word) + "-" + std::to_string(n);
}

}  // namespace

std::string ProcessScope::prefix() const {
  std::string p;
  if (generation != 0) p += numbered("gen", generation) + ".";
  if (shard) p += numbered("shard", *shard) + ".";
  return p;
}

std::string scoped_name(const ProcessScope& scope, std::string_view base) {
  return scope.prefix() + std::string(base);
}

std::string server_name(std::size_t incarnation) { return numbered("server", incarnation); }
std::string replica_name(std::size_t id) { return numbered("replica", id); }
std::string worker_name(std::size_t index) { return numbered("worker", index); }

namespace {
constexpr std::string_view LINK_SUFFIX = "-link";
}

std::string link_name(std::string_view host) {
  return std::string(host) + std::string(LINK_SUFFIX);
}

std::string_view link_host(std::string_view link) {
  if (link.size() > LINK_SUFFIX.size() && link.ends_with(LINK_SUFFIX)) {
    link.remove_suffix(LINK_SUFFIX.size());
  }
  return link;
}

std::optional<ProcessScope> server_scope(std::string_view name) {
  ProcessScope scope;
  if (const auto g = take_numbered(name, "gen", ".")) scope.generation = *g;
  scope.shard = take_numbered(name, "shard", ".");
  if (!take_numbered(name, "server", "")) return std::nullopt;
  return scope;
}

}  // namespace failsim::result_format
