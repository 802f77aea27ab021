#include "frontend/warp_pragmas.h"

#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Preprocessor.h>

#include <string>

namespace s2p::frontend {

std::vector<WarpPragma*> WarpPragmaTable::between(const clang::SourceManager& sm,
                                                  clang::SourceLocation after,
                                                  clang::SourceLocation before) {
  std::vector<WarpPragma*> found;
  if (after.isInvalid() || before.isInvalid())
    return found;
  after = sm.getFileLoc(after);
  before = sm.getFileLoc(before);
  for (auto& pragma : pragmas_) {
    if (sm.getFileID(pragma.loc) != sm.getFileID(before))
      continue;
    if (sm.isBeforeInTranslationUnit(after, pragma.loc) &&
        sm.isBeforeInTranslationUnit(pragma.loc, before))
      found.push_back(&pragma);
  }
  return found;
}

namespace {

void report(clang::Preprocessor& pp, clang::SourceLocation loc, const std::string& message) {
  auto& diags = pp.getDiagnostics();
  diags.Report(loc, diags.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0")) << message;
}

void skip_to_end_of_directive(clang::Preprocessor& pp, clang::Token& token) {
  while (token.isNot(clang::tok::eod))
    pp.Lex(token);
}

} // namespace

void S2pPragmaHandler::HandlePragma(clang::Preprocessor& pp, clang::PragmaIntroducer introducer,
                                    clang::Token&) {
  const clang::SourceLocation where = pp.getSourceManager().getFileLoc(introducer.Loc);
  clang::Token token{};
  pp.Lex(token);
  if (token.isNot(clang::tok::identifier) || token.getIdentifierInfo()->getName() != "warp") {
    report(pp, token.getLocation(),
           token.is(clang::tok::eod) ? "'#pragma s2p' needs a directive; expected 'warp(N)'"
                                     : "unknown '#pragma s2p' directive '" + pp.getSpelling(token) +
                                           "'; expected 'warp(N)'");
    skip_to_end_of_directive(pp, token);
    return;
  }
  pp.Lex(token);
  if (token.isNot(clang::tok::l_paren)) {
    report(pp, token.getLocation(), "expected '(' after '#pragma s2p warp'");
    skip_to_end_of_directive(pp, token);
    return;
  }
  pp.Lex(token);
  std::uint64_t warp = 0;
  const clang::SourceLocation number_loc = token.getLocation();
  if (token.isNot(clang::tok::numeric_constant) || !pp.parseSimpleIntegerLiteral(token, warp)) {
    report(pp, token.getLocation(),
           "expected a warp number (an integer literal) in '#pragma s2p warp(N)'");
    skip_to_end_of_directive(pp, token);
    return;
  }
  // parseSimpleIntegerLiteral already lexed the next token.
  if (token.isNot(clang::tok::r_paren)) {
    report(pp, token.getLocation(), "expected ')' after the warp number");
    skip_to_end_of_directive(pp, token);
    return;
  }
  pp.Lex(token);
  if (token.isNot(clang::tok::eod)) {
    report(pp, token.getLocation(), "extra tokens after '#pragma s2p warp(N)'");
    skip_to_end_of_directive(pp, token);
    return;
  }
  if (warp > static_cast<std::uint64_t>(kMaxWarp)) {
    report(pp, number_loc,
           "warp number " + std::to_string(warp) + " is out of range; warps are numbered 0.." +
               std::to_string(kMaxWarp));
    return;
  }
  table_.add({where, static_cast<int>(warp), false});
}

} // namespace s2p::frontend
