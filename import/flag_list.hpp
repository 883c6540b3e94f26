// A Python program's command line (a launcher's such as torchrun's, a training script's such as
// Megatron-LM's pretrain_gpt.py) read as argparse reads it, without its list of options: an
// importer asks for the options it uses, and whatever it never asked for is listed by name, so
// that nothing of the command line is dropped silently (docs/cli.md, "failsim import megatron").
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace failsim::import {

/// One option as written: "--name" and the values after it.
struct Flag {
  std::string name;
  std::vector<std::string> values;
};

/// The options of a command line. An option is an argument starting with "--"; its values are
/// the one after "=" ("--seq-length=4096") or the arguments that follow it up to the next option
/// ("--seq-length 4096", "--data-path 0.5 a 0.5 b"; "-1" is a value); alone it is a switch
/// ("--bf16"). Arguments before the first option are stray words. As with argparse, the last of a
/// repeated option counts. An option is asked for by its spellings (torchrun takes
/// "--nproc-per-node" and "--nproc_per_node"); a refusal is an input::InputError whose file label
/// is the option as written: `--seq-length: expected a whole number >= 1, found 4k`.
class FlagList {
 public:
  explicit FlagList(const std::vector<std::string>& args);

  /// The value of the last of `names` given, nullopt when none is; refused without a value or
  /// with several.
  std::optional<std::string> text(std::initializer_list<std::string_view> names);
  /// The value as a whole number (decimal digits) in [min, max], nullopt when absent. The
  /// default bound keeps products of a few such numbers within 64 bits.
  std::optional<std::int64_t> whole_number(std::initializer_list<std::string_view> names,
                                           std::int64_t min, std::int64_t max = 1'000'000'000);
  /// Whether the switch is given; refused with a value.
  bool on(std::initializer_list<std::string_view> names);
  /// The spelling of the last of `names` given, "" when none is (for messages).
  std::string spelling(std::initializer_list<std::string_view> names) const;

  /// The options never asked for, by name, in the order of their first appearance.
  std::vector<std::string> unused() const;
  /// The arguments before the first option (a launcher's program: "torchrun").
  const std::vector<std::string>& stray() const { return stray_; }

 private:
  /// The last of `names` given, marked used; nullptr when none is.
  const Flag* find(std::initializer_list<std::string_view> names);
  const Flag* last_of(std::initializer_list<std::string_view> names) const;

  std::vector<Flag> flags_;
  std::vector<std::string> stray_;
  std::vector<std::string> used_;
};

/// Throws the refusal of an option as FlagList's own: input::InputError labelled by the option
/// as written (`option`), with what was expected and what was found.
[[noreturn]] void refuse(const std::string& option, const std::string& expected,
                         const std::string& found);

}  // namespace failsim::import
