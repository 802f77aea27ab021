#pragma once

#include "ir/source_location.h"

#include <string>
#include <vector>

namespace s2p::ir {

// An error a pass found in the user's kernel; the driver reports it through Clang's
// diagnostics engine at `loc`.
struct Diagnostic {
  enum class Level { Error, Warning, Note };
  Level level = Level::Error;
  SourceLocation loc;
  std::string message;
};

class Diagnostics {
public:
  void error(SourceLocation loc, std::string message) {
    items_.push_back({Diagnostic::Level::Error, std::move(loc), std::move(message)});
    ++errors_;
  }
  void warning(SourceLocation loc, std::string message) {
    items_.push_back({Diagnostic::Level::Warning, std::move(loc), std::move(message)});
  }
  void note(SourceLocation loc, std::string message) {
    items_.push_back({Diagnostic::Level::Note, std::move(loc), std::move(message)});
  }
  void append(const Diagnostics& other) {
    items_.insert(items_.end(), other.items_.begin(), other.items_.end());
    errors_ += other.errors_;
  }
  bool has_errors() const { return errors_ > 0; }
  const std::vector<Diagnostic>& items() const { return items_; }

private:
  std::vector<Diagnostic> items_;
  int errors_ = 0;
};

} // namespace s2p::ir
