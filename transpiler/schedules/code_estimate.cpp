#include "schedules/code_estimate.h"

#include <cctype>

namespace s2p::schedules {
namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The length of the comment or literal starting at `at` (0: none starts there).
std::size_t skipped_length(std::string_view text, std::size_t at) {
  const auto rest = text.substr(at);
  std::size_t end = std::string_view::npos;
  if (rest.starts_with("//"))
    end = rest.find('\n');
  else if (rest.starts_with("/*")) {
    end = rest.find("*/", 2);
    if (end != std::string_view::npos)
      end += 1;
  } else if (rest.front() == '"' || rest.front() == '\'') {
    for (std::size_t k = 1; k < rest.size(); ++k) {
      if (rest[k] == '\\') {
        ++k;
      } else if (rest[k] == rest.front()) {
        end = k;
        break;
      }
    }
  } else {
    return 0;
  }
  return end == std::string_view::npos ? rest.size() : end + 1;
}

bool control_keyword_at(std::string_view text, std::size_t at) {
  if (at > 0 && identifier_char(text[at - 1]))
    return false;
  for (const std::string_view word : {"if", "for", "while", "do", "switch"}) {
    const auto end = at + word.size();
    if (text.substr(at, word.size()) == word && (end == text.size() || !identifier_char(text[end])))
      return true;
  }
  return false;
}

} // namespace

std::int64_t count_statements(std::string_view body) {
  std::int64_t statements = 0;
  int parentheses = 0;
  for (std::size_t at = 0; at < body.size();) {
    if (const std::size_t skip = skipped_length(body, at)) {
      at += skip;
      continue;
    }
    const char c = body[at];
    if (c == '(')
      ++parentheses;
    else if (c == ')' && parentheses > 0)
      --parentheses;
    else if ((c == ';' && parentheses == 0) || control_keyword_at(body, at))
      ++statements; // a statement's end, or a control statement (its body counts on its own)
    ++at;
  }
  return statements;
}

namespace {

CodeImage image(std::string name, std::int64_t operations, const CodeCostModel& model) {
  return CodeImage{std::move(name), operations,
                   model.image_base_bytes + operations * model.bytes_per_operation};
}

} // namespace

std::vector<CodeImage> warp_code_images(const std::vector<std::int64_t>& warp_operations,
                                        const CodeCostModel& model) {
  std::vector<CodeImage> images;
  for (std::size_t w = 0; w < warp_operations.size(); ++w)
    images.push_back(image("warp" + std::to_string(w), warp_operations[w], model));
  return images;
}

std::vector<CodeImage> code_images(const ir::TileStep& step, const CodeCostModel& model) {
  if (step.kind != ir::TileStep::Kind::Forall)
    return {};
  if (step.warp_operations.empty())
    return {image("body", count_statements(step.body), model)};
  return warp_code_images(step.warp_operations, model);
}

} // namespace s2p::schedules
