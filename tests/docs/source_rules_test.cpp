// The rules CONTRIBUTING states for the sources, checked on the tree as it is: no source file
// of the transpiler, the runtime or the simulator over 700 lines (split by concern before it
// grows past that), and no comment citing the source documents by their working names ("seed
// 001 step 141"): readers of the repository do not have them, so comments name the concept.
#include "markdown_links.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using s2p::docs::read_text;

namespace {

const fs::path kRoot = SEQ2PAR_SOURCE_DIR;
constexpr std::size_t kMaxLines = 700;

std::vector<fs::path> project_sources() {
  std::vector<fs::path> files;
  for (const char* top : {"transpiler", "runtime", "sim"})
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top))
      if (entry.is_regular_file() &&
          (entry.path().extension() == ".cpp" || entry.path().extension() == ".h"))
        files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// "seed 001", "seed 3", "seed003": a source document's working name.
bool cites_a_seed(const std::string& line) {
  const std::string lower = lowercase(line);
  for (std::size_t at = lower.find("seed"); at != std::string::npos; at = lower.find("seed", at + 1)) {
    std::size_t k = at + 4;
    if (k < lower.size() && lower[k] == ' ')
      ++k;
    if (k + 1 < lower.size() && lower[k] == '0' && std::isdigit(static_cast<unsigned char>(lower[k + 1])))
      return true;
  }
  return lower.find("patent") != std::string::npos;
}

TEST(SourceRules, NoSourceFileIsOver700Lines) {
  const auto files = project_sources();
  ASSERT_GT(files.size(), 100u) << "the tree was not found under " << kRoot;
  for (const fs::path& file : files) {
    const std::string text = read_text(file);
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    EXPECT_LE(lines, kMaxLines) << file.lexically_relative(kRoot).string()
                                << ": split it by concern (CONTRIBUTING, \"Rules per layer\")";
  }
}

TEST(SourceRules, NoCommentCitesTheSourceDocuments) {
  for (const fs::path& file : project_sources()) {
    const std::string text = read_text(file);
    std::size_t line_number = 1, start = 0;
    for (std::size_t end = text.find('\n'); end != std::string::npos;
         start = end + 1, end = text.find('\n', start), ++line_number) {
      const std::string line = text.substr(start, end - start);
      const auto comment = line.find("//");
      EXPECT_FALSE(comment != std::string::npos && cites_a_seed(line.substr(comment)))
          << file.lexically_relative(kRoot).string() << ":" << line_number << ": " << line;
    }
  }
}

TEST(SourceRules, TheSeedCheckKnowsACitationFromOtherUsesOfTheWord) {
  EXPECT_TRUE(cites_a_seed("// Seed 001 step 141: the split"));
  EXPECT_TRUE(cites_a_seed("// as seed003 says"));
  EXPECT_FALSE(cites_a_seed("// the fuzzer's seed 42"));
  EXPECT_FALSE(cites_a_seed("// --init-seed 7 seeds the data"));
}

} // namespace
