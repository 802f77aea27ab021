#include "seq2par/sim/diagnostics.h"

namespace s2p::sim {

std::string Diagnostic::to_string() const {
  std::string text = severity == Severity::kError ? "error: " : "warning: ";
  std::string where;
  if (superstep) {
    where += "superstep " + std::to_string(*superstep);
    if (!superstep_name.empty()) {
      where += " ('" + superstep_name + "')";
    }
  }
  if (tile) {
    where += (where.empty() ? "" : ", ") + std::string("tile ") + std::to_string(*tile);
  }
  if (!entry.empty()) {
    where += (where.empty() ? "" : ", ") + std::string("entry '") + entry + "'";
  }
  if (!where.empty()) {
    text += where + ": ";
  }
  return text + message;
}

void Diagnostics::add(Diagnostic diagnostic) {
  (diagnostic.severity == Severity::kError ? errors_ : warnings_) += 1;
  if (kept_.size() < max_kept_) {
    kept_.push_back(std::move(diagnostic));
  }
}

} // namespace s2p::sim
