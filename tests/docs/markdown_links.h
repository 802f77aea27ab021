// What the documentation test reads from a Markdown file: its relative links and the anchors
// its headings get, as GitHub renders them (the pages are read there and in editors that
// follow the same rules).
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace s2p::docs {

struct MarkdownLink {
  std::string target; // as written: "docs/tuning.md#rules", "#automatic-warps"
  int line = 0;       // 1-based
};

// The links `[text](target)` outside fenced code blocks and inline code spans.
std::vector<MarkdownLink> links_of(const std::string& markdown);

// GitHub's anchor for a heading's text: lower case, punctuation dropped (hyphens and
// underscores kept), spaces turned into hyphens; a repeated heading gets "-1", "-2", ...
std::set<std::string> heading_anchors(const std::string& markdown);

// Whether a link leaves the repository (a URL) rather than naming a file in it.
bool is_external(const std::string& target);

std::string read_text(const std::filesystem::path& file);

} // namespace s2p::docs
