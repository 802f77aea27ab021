#include "driver/operation_store.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/xxhash.h>

#include <cstdio>
#include <fstream>
#include <iterator>

namespace s2p::driver {

namespace {

constexpr const char* kRecordFormat = "seq2par.store/1";
constexpr const char* kBinaryName = "program";

std::string join(const std::string& dir, const std::string& name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

// The record's files, checked: (name in the record dir, content) of the generated file and
// each kernel file, then the binary's name; a message naming the first that does not match.
struct CheckedRecord {
  StoredVariant variant;
  std::string problem;
};

std::string checked_file(const std::string& dir, const nlohmann::ordered_json& entry,
                         std::string& content) {
  if (!entry.is_object() || !entry.contains("file") || !entry.contains("digest") ||
      !entry["file"].is_string() || !entry["digest"].is_string())
    return "a file entry without 'file' and 'digest'";
  const std::string name = entry["file"].get<std::string>();
  if (name.find('/') != std::string::npos || name.empty() || name[0] == '.')
    return "file name '" + name + "' is not a plain name";
  const auto text = read_text(join(dir, name));
  if (!text)
    return "'" + name + "' is missing";
  if (digest_of(*text) != entry["digest"].get<std::string>())
    return "'" + name + "' does not match its digest (changed since it was stored)";
  content = *text;
  return "";
}

CheckedRecord check_record(const std::string& dir, const std::string& key,
                           const nlohmann::ordered_json& record) {
  CheckedRecord out;
  if (!record.is_object() || record.value("format", "") != kRecordFormat)
    return {{}, "not a " + std::string(kRecordFormat) + " record"};
  if (record.value("key", "") != key)
    return {{}, "its key is '" + record.value("key", "") + "', not '" + key + "'"};
  if (!record.contains("generated") || !record.contains("kernel_files") ||
      !record["kernel_files"].is_array() || !record.contains("binary"))
    return {{}, "a field is missing ('generated', 'kernel_files' or 'binary')"};
  if (const auto problem = checked_file(dir, record["generated"], out.variant.generated);
      !problem.empty())
    return {{}, problem};
  for (const auto& entry : record["kernel_files"]) {
    std::string content;
    if (const auto problem = checked_file(dir, entry, content); !problem.empty())
      return {{}, problem};
    if (!entry.contains("suffix") || !entry["suffix"].is_string())
      return {{}, "a kernel file without 'suffix'"};
    out.variant.kernel_files.emplace_back(entry["suffix"].get<std::string>(), std::move(content));
  }
  std::string binary;
  if (const auto problem = checked_file(dir, record["binary"], binary); !problem.empty())
    return {{}, problem};
  out.variant.binary = join(dir, record["binary"]["file"].get<std::string>());
  return out;
}

} // namespace

std::string digest_of(const std::string& text) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx",
                static_cast<unsigned long long>(llvm::xxh3_64bits(llvm::StringRef(text))));
  return buffer;
}

std::optional<std::string> file_digest(const std::string& path) {
  const auto text = read_text(path);
  if (!text)
    return std::nullopt;
  return digest_of(*text);
}

std::string OperationStore::key_of(const nlohmann::ordered_json& inputs) {
  return digest_of(inputs.dump());
}

std::string OperationStore::record_dir(const std::string& key) const {
  return join(dir_, key);
}

std::optional<StoredVariant> OperationStore::find(const std::string& key,
                                                  std::vector<std::string>& warnings) const {
  const std::string dir = record_dir(key);
  const auto text = read_text(join(dir, "record.json"));
  if (!text)
    return std::nullopt; // never stored: not a warning
  const auto record = nlohmann::ordered_json::parse(*text, nullptr, false);
  CheckedRecord checked = record.is_discarded()
                              ? CheckedRecord{{}, "record.json is not JSON"}
                              : check_record(dir, key, record);
  if (!checked.problem.empty()) {
    warnings.push_back("operation store record " + key + " skipped: " + checked.problem +
                       "; the variant is rebuilt");
    return std::nullopt;
  }
  return std::move(checked.variant);
}

std::string OperationStore::put(const std::string& key, const nlohmann::ordered_json& inputs,
                                const StoredVariant& variant) const {
  const std::string dir = record_dir(key);
  (void)llvm::sys::fs::remove_directories(dir); // a record that failed its checks
  if (const std::error_code ec = llvm::sys::fs::create_directories(dir))
    return "cannot create " + dir + ": " + ec.message();
  nlohmann::ordered_json record{{"format", kRecordFormat}, {"key", key}, {"inputs", inputs}};
  if (!write_text(join(dir, "generated.cpp"), variant.generated))
    return "cannot write " + join(dir, "generated.cpp");
  record["generated"] = {{"file", "generated.cpp"}, {"digest", digest_of(variant.generated)}};
  record["kernel_files"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < variant.kernel_files.size(); ++i) {
    const auto& [suffix, content] = variant.kernel_files[i];
    const std::string name = "kernel_file" + std::to_string(i);
    if (!write_text(join(dir, name), content))
      return "cannot write " + join(dir, name);
    record["kernel_files"].push_back({{"suffix", suffix}, {"file", name}, {"digest", digest_of(content)}});
  }
  const std::string binary = join(dir, kBinaryName);
  if (const std::error_code ec = llvm::sys::fs::copy_file(variant.binary, binary))
    return "cannot copy the program into " + dir + ": " + ec.message();
  // Not checked (as before): a program that cannot be made executable fails when it is run.
  (void)llvm::sys::fs::setPermissions(binary, llvm::sys::fs::all_read | llvm::sys::fs::owner_write |
                                                  llvm::sys::fs::all_exe);
  const auto binary_digest = file_digest(binary);
  if (!binary_digest)
    return "cannot read " + binary;
  record["binary"] = {{"file", kBinaryName}, {"digest", *binary_digest}};
  // The record last: a store interrupted before this line has no record, so nothing is found.
  if (!write_text(join(dir, "record.json"), record.dump(1) + "\n"))
    return "cannot write " + join(dir, "record.json");
  return "";
}

} // namespace s2p::driver
