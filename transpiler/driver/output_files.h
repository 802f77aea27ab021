// Writes the generated files all-or-nothing: everything goes to temporary files first;
// only when every write succeeded are they renamed into place. A failure removes the
// temporaries, so no output is ever half-written.
#pragma once

#include <string>
#include <vector>

namespace s2p::driver {

struct OutputFile {
  std::string path;
  std::string content;
};

// Returns an error message, or empty on success.
std::string write_all_or_nothing(const std::vector<OutputFile>& files);

} // namespace s2p::driver
