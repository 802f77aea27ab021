// Diagnostics gathered by the parts of a parallel stage, replayed into the run's Diagnostics in
// the order a single thread would have added them. A part keeps its first `max_kept` messages
// and counts the rest, like Diagnostics itself: the run keeps its first `max_kept` over all
// parts, and those are always among the parts' first `max_kept`.
#pragma once

#include <cstddef>

#include "seq2par/sim/diagnostics.h"

namespace s2p::sim::detail {

/// How much a part's Diagnostics held at some point (the end of an entry's share, say).
struct DiagnosticsMark {
  std::size_t kept = 0;
  std::size_t errors = 0;
  std::size_t warnings = 0;
};

[[nodiscard]] inline DiagnosticsMark mark_of(const Diagnostics& d) {
  return {d.items().size(), d.error_count(), d.warning_count()};
}

/// Adds what `part` gathered between `from` and `to` to `into`, in order.
inline void replay(const Diagnostics& part, DiagnosticsMark from, DiagnosticsMark to,
                   Diagnostics& into) {
  std::size_t errors = to.errors - from.errors;
  std::size_t warnings = to.warnings - from.warnings;
  for (std::size_t i = from.kept; i < to.kept; ++i) {
    const Diagnostic& d = part.items()[i];
    (d.severity == Severity::kError ? errors : warnings) -= 1;
    into.add(d);
  }
  // The part dropped these: it had kept max_kept before them, so `into` has at least as many
  // by now and only counts them too.
  for (; errors > 0; --errors) {
    into.add({Severity::kError, {}, {}, {}, {}, {}, {}});
  }
  for (; warnings > 0; --warnings) {
    into.add({Severity::kWarning, {}, {}, {}, {}, {}, {}});
  }
}

inline void replay(const Diagnostics& part, Diagnostics& into) {
  replay(part, {}, mark_of(part), into);
}

} // namespace s2p::sim::detail
