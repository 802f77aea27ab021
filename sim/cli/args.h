// Command-line parsing for s2p-sim: strict (unknown or repeated options are usage errors) and
// typed (numbers are checked, never silently truncated).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace s2p::sim::cli {

/// A command line that does not follow the usage: exit code 2.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct OptionSpec {
  std::string name; ///< "--tiles", or "-o"
  bool takes_value;
};

class Args {
public:
  /// Parses argv[first..]; throws UsageError for unknown options or missing values.
  Args(const std::vector<std::string>& argv, const std::vector<OptionSpec>& specs);

  [[nodiscard]] const std::vector<std::string>& positional() const { return positional_; }
  [[nodiscard]] bool has(const std::string& name) const { return values_.contains(name); }
  [[nodiscard]] std::optional<std::string> value(const std::string& name) const;
  [[nodiscard]] std::string required(const std::string& name) const;
  [[nodiscard]] std::uint64_t number(const std::string& name, std::uint64_t fallback,
                                     std::uint64_t min, std::uint64_t max) const;
  [[nodiscard]] std::uint64_t required_number(const std::string& name, std::uint64_t min,
                                              std::uint64_t max) const;
  [[nodiscard]] std::int64_t signed_number(const std::string& name, std::int64_t fallback) const;

private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
};

/// Parses a decimal number, optionally with a binary suffix (K, M, G: 1024-based), for byte
/// counts like "64K" or "1M". Throws UsageError naming `what`.
[[nodiscard]] std::uint64_t parse_number(const std::string& text, const std::string& what,
                                         std::uint64_t min, std::uint64_t max);

} // namespace s2p::sim::cli
