// `#pragma s2p warp(N)` (and its macro form `S2P_WARP(N)`): the preprocessor hands the
// pragma to S2pPragmaHandler, which records where it was; the kernel extractor later
// attaches each pragma to the statement that follows it in the same block.
#pragma once

#include <clang/Basic/SourceLocation.h>
#include <clang/Lex/Pragma.h>

#include <vector>

namespace s2p::frontend {

struct WarpPragma {
  clang::SourceLocation loc; // file location of `#pragma` / `_Pragma`
  int warp = 0;
  bool consumed = false;
};

class WarpPragmaTable {
public:
  void add(WarpPragma pragma) { pragmas_.push_back(pragma); }
  // Pragmas strictly between `after` and `before` (file locations in one file).
  std::vector<WarpPragma*> between(const clang::SourceManager& sm, clang::SourceLocation after,
                                   clang::SourceLocation before);
  std::vector<WarpPragma>& all() { return pragmas_; }

private:
  std::vector<WarpPragma> pragmas_;
};

class S2pPragmaHandler : public clang::PragmaHandler {
public:
  static constexpr int kMaxWarp = 63;
  explicit S2pPragmaHandler(WarpPragmaTable& table) : clang::PragmaHandler("s2p"), table_(table) {}
  void HandlePragma(clang::Preprocessor& pp, clang::PragmaIntroducer introducer,
                    clang::Token& first) override;

private:
  WarpPragmaTable& table_;
};

} // namespace s2p::frontend
