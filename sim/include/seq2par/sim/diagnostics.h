// Errors and diagnostics shared by every part of the simulator.
//
// Two kinds of trouble are kept apart on purpose:
//  - a file that cannot be *read* (bad JSON, unknown field, bad expression) throws InputError
//    at once: nothing sensible can be simulated from it;
//  - a schedule that reads fine but breaks a rule of the machine (receive-port conflict,
//    out-of-bounds write, out of memory, deadlock, ...) produces Diagnostics, each naming the
//    superstep, tile and entry, and the simulation goes on so that one run shows them all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace s2p::sim {

using TileId = std::uint32_t;
using Cycles = std::uint64_t;

/// Malformed input: the message names the file and the field ("f.json: field 'chip.tiles': ...").
class InputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A file that cannot be opened, read or written.
class IoError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class Severity { kWarning, kError };

/// One broken rule, located as precisely as the rule allows.
struct Diagnostic {
  Severity severity = Severity::kError;
  /// Stable, machine-readable category ("receive-port-conflict", "out-of-memory", ...); the
  /// feedback tuning rules match on it, so it never changes once published.
  std::string kind;
  std::optional<std::uint32_t> superstep; ///< index in the expanded program
  std::string superstep_name;
  std::optional<TileId> tile;
  std::string entry; ///< schedule entry (or buffer) name
  std::string message;

  /// "error: superstep 3 ('reduce-scatter step 2'), tile 5, entry 'rs.recv': <message>"
  [[nodiscard]] std::string to_string() const;
};

/// An ordered list of diagnostics. Keeps the first `max_kept` and counts the rest, so a schedule
/// that is wrong on every one of 5888 tiles stays readable and cheap.
class Diagnostics {
public:
  explicit Diagnostics(std::size_t max_kept = 10000) : max_kept_(max_kept) {}

  void add(Diagnostic diagnostic);
  void error(std::string kind, std::string message) {
    add({Severity::kError, std::move(kind), {}, {}, {}, {}, std::move(message)});
  }

  [[nodiscard]] std::size_t max_kept() const { return max_kept_; }
  [[nodiscard]] std::size_t error_count() const { return errors_; }
  [[nodiscard]] std::size_t warning_count() const { return warnings_; }
  [[nodiscard]] bool has_errors() const { return errors_ > 0; }
  /// Diagnostics counted but not kept (beyond max_kept).
  [[nodiscard]] std::size_t dropped() const { return errors_ + warnings_ - kept_.size(); }
  [[nodiscard]] const std::vector<Diagnostic>& items() const { return kept_; }

private:
  std::size_t max_kept_;
  std::size_t errors_ = 0;
  std::size_t warnings_ = 0;
  std::vector<Diagnostic> kept_;
};

} // namespace s2p::sim
