#include "ir/call_text.h"

#include <algorithm>

namespace s2p::ir {

std::string render_value(const Expr& value, const Bindings& env) {
  const Expr folded = value.substitute(env);
  std::string text = folded.to_cpp();
  if (folded.op() == Expr::Op::Variable || folded.op() == Expr::Op::Constant)
    return text;
  return "(" + text + ")";
}

std::string render_call(const CallSite& call, const Bindings& env) {
  return render_span(call, env, 0, call.text.size());
}

std::string render_span(const CallSite& call, const Bindings& env, std::size_t begin,
                        std::size_t end) {
  std::vector<const TextHole*> holes;
  for (const auto& hole : call.holes)
    if (hole.offset >= begin && hole.offset + hole.length <= end)
      holes.push_back(&hole);
  std::sort(holes.begin(), holes.end(),
            [](const TextHole* a, const TextHole* b) { return a->offset < b->offset; });
  std::string out;
  std::size_t at = begin;
  for (const TextHole* hole : holes) {
    if (hole->offset < at)
      continue; // overlapping: keep text
    out.append(call.text, at, hole->offset - at);
    out += hole->value ? render_value(*hole->value, env) : hole->replacement;
    at = hole->offset + hole->length;
  }
  out.append(call.text, at, end - at);
  return out;
}

} // namespace s2p::ir
