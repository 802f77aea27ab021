// File I/O that never leaves a half-written output behind.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace s2p::sim::detail {

/// The whole file as text. Throws IoError naming the path.
[[nodiscard]] std::string read_text_file(const std::filesystem::path& path);

/// Writes to a temporary file beside `path` and renames it into place on commit(); if the writer
/// is destroyed without commit() (an exception, an error), the temporary file is removed and
/// `path` is untouched.
class AtomicFileWriter {
public:
  explicit AtomicFileWriter(std::filesystem::path path);
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();

  [[nodiscard]] std::ostream& stream() { return out_; }
  /// Flushes, checks for write errors and renames. Throws IoError.
  void commit();

private:
  std::filesystem::path path_;
  std::filesystem::path temp_;
  std::ofstream out_;
  bool committed_ = false;
};

/// AtomicFileWriter for a string.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

} // namespace s2p::sim::detail
