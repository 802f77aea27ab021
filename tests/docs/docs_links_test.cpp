// The documentation holds together: README.md is a front page that reaches every docs/ page,
// and no relative link (file or heading) of the project's Markdown is broken.
#include "markdown_links.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using s2p::docs::heading_anchors;
using s2p::docs::is_external;
using s2p::docs::links_of;
using s2p::docs::read_text;

namespace {

const fs::path kRoot = SEQ2PAR_SOURCE_DIR;

std::vector<fs::path> documentation_files() {
  std::vector<fs::path> files = {kRoot / "README.md", kRoot / "CONTRIBUTING.md",
                                 kRoot / "sim" / "README.md"};
  for (const auto& entry : fs::directory_iterator(kRoot / "docs"))
    if (entry.path().extension() == ".md")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// What is wrong with one link of `from`, or "" when it resolves.
std::string broken(const fs::path& from, const std::string& target) {
  const auto hash = target.find('#');
  const std::string file_part = target.substr(0, hash);
  const fs::path file = file_part.empty() ? from : (from.parent_path() / file_part).lexically_normal();
  if (!fs::exists(file))
    return "no file " + file.lexically_relative(kRoot).string();
  if (hash == std::string::npos || fs::is_directory(file))
    return "";
  const std::string anchor = target.substr(hash + 1);
  if (!heading_anchors(read_text(file)).contains(anchor))
    return "no heading '#" + anchor + "' in " + file.lexically_relative(kRoot).string();
  return "";
}

} // namespace

TEST(Documentation, EveryRelativeLinkResolves) {
  std::ostringstream problems;
  for (const auto& file : documentation_files())
    for (const auto& link : links_of(read_text(file))) {
      if (is_external(link.target))
        continue;
      if (const std::string why = broken(file, link.target); !why.empty())
        problems << file.lexically_relative(kRoot).string() << ":" << link.line << ": ("
                 << link.target << ") " << why << "\n";
    }
  EXPECT_EQ(problems.str(), "");
}

TEST(Documentation, EveryDocsPageIsReachableFromTheReadme) {
  std::set<fs::path> reached;
  std::deque<fs::path> queue = {(kRoot / "README.md").lexically_normal()};
  while (!queue.empty()) {
    const fs::path page = queue.front();
    queue.pop_front();
    if (!reached.insert(page).second || page.extension() != ".md" || !fs::exists(page))
      continue;
    for (const auto& link : links_of(read_text(page))) {
      const std::string file_part = link.target.substr(0, link.target.find('#'));
      if (!is_external(link.target) && !file_part.empty())
        queue.push_back((page.parent_path() / file_part).lexically_normal());
    }
  }
  for (const auto& entry : fs::directory_iterator(kRoot / "docs")) {
    if (entry.path().extension() == ".md") {
      EXPECT_TRUE(reached.contains(entry.path().lexically_normal()))
          << entry.path().lexically_relative(kRoot) << " is not reachable from README.md";
    }
  }
}

TEST(Documentation, TheReadmeIsAFrontPage) {
  const std::string readme = read_text(kRoot / "README.md");
  EXPECT_LE(std::count(readme.begin(), readme.end(), '\n'), 200)
      << "README.md is the front page: what seq2par is, the two commands, one example, the "
         "backends and links; the rest belongs in docs/";
}

TEST(MarkdownLinks, LinksInCodeAreNotLinks) {
  const auto links = links_of("see [a](a.md) and `x[i](j)`\n```\n[b](b.md)\n```\n[c](c.md#h)\n");
  ASSERT_EQ(links.size(), 2U);
  EXPECT_EQ(links[0].target, "a.md");
  EXPECT_EQ(links[1].target, "c.md#h");
  EXPECT_EQ(links[1].line, 5);
}

TEST(MarkdownLinks, AnchorsFollowGitHub) {
  const auto anchors = heading_anchors(
      "# Fabric file (`seq2par.fabric/1`)\n## C++ API\n## `s2p-sim`\n## Notes\n## Notes\n");
  EXPECT_TRUE(anchors.contains("fabric-file-seq2parfabric1"));
  EXPECT_TRUE(anchors.contains("c-api"));
  EXPECT_TRUE(anchors.contains("s2p-sim"));
  EXPECT_TRUE(anchors.contains("notes"));
  EXPECT_TRUE(anchors.contains("notes-1"));
}
