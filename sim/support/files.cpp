#include "support/files.h"

#include <sstream>
#include <system_error>

#include <unistd.h>

#include "seq2par/sim/diagnostics.h"

namespace s2p::sim::detail {

std::string read_text_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw IoError(path.string() + ": is a directory, expected a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw IoError(path.string() + ": cannot open for reading");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    throw IoError(path.string() + ": read error");
  }
  return std::move(text).str();
}

AtomicFileWriter::AtomicFileWriter(std::filesystem::path path) : path_(std::move(path)) {
  // The pid keeps two concurrent writers of the same output from sharing a temporary file.
  temp_ = path_;
  temp_ += ".tmp." + std::to_string(::getpid());
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    throw IoError(path_.string() + ": cannot open for writing");
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_) {
    out_.close();
    std::error_code ignored;
    std::filesystem::remove(temp_, ignored);
  }
}

void AtomicFileWriter::commit() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || out_.fail()) {
    throw IoError(path_.string() + ": write error");
  }
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
  if (ec) {
    throw IoError(path_.string() + ": cannot write: " + ec.message());
  }
  committed_ = true;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  AtomicFileWriter writer(path);
  writer.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  writer.commit();
}

} // namespace s2p::sim::detail
