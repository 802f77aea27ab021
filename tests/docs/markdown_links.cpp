#include "markdown_links.h"

#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

namespace s2p::docs {
namespace {

bool is_fence(const std::string& line) {
  const auto start = line.find_first_not_of(' ');
  return start != std::string::npos && line.compare(start, 3, "```") == 0;
}

// The line with its inline code spans (`...`) blanked, so that `a[i](j)` is no link.
std::string without_code_spans(const std::string& line) {
  std::string out = line;
  bool in_code = false;
  for (char& c : out) {
    if (c == '`') {
      in_code = !in_code;
      c = ' ';
    } else if (in_code) {
      c = ' ';
    }
  }
  return out;
}

void collect_links(const std::string& line, int line_number, std::vector<MarkdownLink>& links) {
  for (std::size_t pos = line.find("]("); pos != std::string::npos; pos = line.find("](", pos + 2)) {
    const auto close = line.find(')', pos + 2);
    if (close == std::string::npos)
      break;
    links.push_back({line.substr(pos + 2, close - pos - 2), line_number});
  }
}

std::string anchor_of(const std::string& heading_text) {
  std::string anchor;
  for (const char c : heading_text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || u >= 0x80)
      anchor += static_cast<char>(std::tolower(u));
    else if (c == ' ')
      anchor += '-';
  }
  return anchor;
}

} // namespace

std::vector<MarkdownLink> links_of(const std::string& markdown) {
  std::vector<MarkdownLink> links;
  std::istringstream in(markdown);
  std::string line;
  bool in_fence = false;
  for (int number = 1; std::getline(in, line); ++number) {
    if (is_fence(line)) {
      in_fence = !in_fence;
      continue;
    }
    if (!in_fence)
      collect_links(without_code_spans(line), number, links);
  }
  return links;
}

std::set<std::string> heading_anchors(const std::string& markdown) {
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  std::istringstream in(markdown);
  std::string line;
  bool in_fence = false;
  while (std::getline(in, line)) {
    if (is_fence(line)) {
      in_fence = !in_fence;
      continue;
    }
    if (in_fence || line.empty() || line[0] != '#')
      continue;
    const auto text_start = line.find_first_not_of('#');
    if (text_start == std::string::npos || line[text_start] != ' ')
      continue;
    const std::string anchor = anchor_of(line.substr(text_start + 1));
    const int repeat = seen[anchor]++;
    anchors.insert(repeat == 0 ? anchor : anchor + "-" + std::to_string(repeat));
  }
  return anchors;
}

bool is_external(const std::string& target) {
  return target.starts_with("http://") || target.starts_with("https://") ||
         target.starts_with("mailto:");
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace s2p::docs
