#include "frontend/transpile_action.h"

#include "frontend/host_loops.h"
#include "frontend/kernel_extractor.h"
#include "frontend/s2p_types.h"
#include "frontend/variant_groups.h"
#include "frontend/warp_pragmas.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/ASTMatchers/ASTMatchers.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Preprocessor.h>
#include <llvm/Support/Path.h>

#include <algorithm>

namespace s2p::frontend {

namespace {

using namespace clang::ast_matchers;

void report_ir_diagnostics(clang::ASTContext& ctx, const ir::Diagnostics& diags) {
  for (const auto& d : diags.items()) {
    const auto where = clang::SourceLocation::getFromRawEncoding(
        static_cast<clang::SourceLocation::UIntTy>(d.loc.opaque));
    switch (d.level) {
    case ir::Diagnostic::Level::Error:
      report_error(ctx, where, d.message);
      break;
    case ir::Diagnostic::Level::Warning:
      report_warning(ctx, where, d.message);
      break;
    case ir::Diagnostic::Level::Note:
      report_note(ctx, where, d.message);
      break;
    }
  }
}

class TranspileConsumer : public clang::ASTConsumer {
public:
  TranspileConsumer(const KernelHandler& handler, WarpPragmaTable& pragmas, FileResult& result,
                    bool auto_warps)
      : handler_(handler), pragmas_(pragmas), result_(result), auto_warps_(auto_warps) {}

  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    auto& diags = ctx.getDiagnostics();
    if (diags.hasErrorOccurred())
      return;
    const auto& sm = ctx.getSourceManager();
    // Only the main file can hold kernels to transpile: don't walk the headers' ASTs.
    std::vector<clang::Decl*> main_file_decls;
    for (clang::Decl* decl : ctx.getTranslationUnitDecl()->decls())
      if (sm.isInMainFile(sm.getFileLoc(decl->getLocation())))
        main_file_decls.push_back(decl);
    ctx.setTraversalScope(main_file_decls);
    const auto variants = find_variant_groups(ctx, main_file_decls, result_.display_name);
    if (!variants)
      return;
    std::vector<const clang::FunctionDecl*> kernels;
    for (const auto& match :
         match(functionDecl(isDefinition(), hasAttr(clang::attr::Annotate)).bind("f"), ctx)) {
      const auto* f = match.getNodeAs<clang::FunctionDecl>("f");
      if (f && is_kernel(f) && sm.isInMainFile(sm.getFileLoc(f->getLocation())))
        kernels.push_back(f);
    }
    KernelExtractor extractor(ctx, pragmas_, result_.display_name, auto_warps_);
    for (const clang::FunctionDecl* kernel : kernels)
      transpile_kernel(ctx, extractor, *kernel, *variants);
    if (diags.hasErrorOccurred())
      return;
    for (auto& loop : host_loop_scopes(ctx, main_file_decls, keeping_kernels_, result_.display_name))
      result_.bodies.push_back(std::move(loop));
    result_.ok = true;
    std::sort(result_.bodies.begin(), result_.bodies.end(),
              [](const auto& a, const auto& b) { return a.begin < b.begin; });
    if (!result_.bodies.empty())
      result_.original = sm.getBufferData(sm.getMainFileID()).str();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
      const llvm::StringRef real = it->first.getFileEntry().tryGetRealPathName();
      result_.dependencies.push_back((real.empty() ? it->first.getName() : real).str());
    }
    std::sort(result_.dependencies.begin(), result_.dependencies.end());
  }

private:
  void transpile_kernel(clang::ASTContext& ctx, KernelExtractor& extractor,
                        const clang::FunctionDecl& decl, const std::vector<ir::VariantGroup>& variants) {
    auto kernel = extractor.extract(decl);
    if (!kernel)
      return;
    kernel->variants = variants;
    const auto& sm = ctx.getSourceManager();
    KernelOrigin origin{result_.display_name, kernel->loc};
    origin.declared_at.opaque = decl.getLocation().getRawEncoding();
    ir::Diagnostics diags;
    auto body = handler_(*kernel, origin, diags);
    report_ir_diagnostics(ctx, diags);
    if (diags.has_errors() || !body)
      return;
    const auto* braces = decl.getBody();
    const unsigned begin = sm.getFileOffset(sm.getFileLoc(braces->getBeginLoc()));
    const unsigned end = sm.getFileOffset(sm.getFileLoc(braces->getEndLoc())) + 1;
    result_.bodies.push_back({begin, end, std::move(*body)});
    if (kernel->multi_tile && keeps_results_across_calls(decl, !kernel->multi_tile->shared.empty()))
      keeping_kernels_[decl.getCanonicalDecl()] = {kernel->name, kernel->multi_tile->tiles};
  }

  const KernelHandler& handler_;
  WarpPragmaTable& pragmas_;
  FileResult& result_;
  bool auto_warps_;
  // The multi-tile kernels whose results may stay on the ranks between calls (host_loops.h).
  std::map<const clang::FunctionDecl*, KeepingKernel> keeping_kernels_;
};

class TranspileAction : public clang::ASTFrontendAction {
public:
  TranspileAction(const KernelHandler& handler,
                  const TranspileActionFactory::DisplayName& display_name,
                  const TranspileActionFactory::FileStarted& started,
                  std::deque<FileResult>& results, bool auto_warps)
      : handler_(handler), display_name_(display_name), started_(started), results_(results),
        auto_warps_(auto_warps) {}

  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    ci.getPreprocessor().AddPragmaHandler(
        new S2pPragmaHandler(pragmas_)); // the preprocessor owns it
    return true;
  }

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef file) override {
    FileResult result;
    // Relative to the compile command's directory, which is the tool's file system's (not
    // the process's) working directory.
    llvm::SmallString<256> absolute(file);
    (void)ci.getVirtualFileSystem().makeAbsolute(absolute); // on failure: as given
    llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
    result.input = absolute.str().str();
    result.display_name = display_name_(result.input);
    if (started_)
      started_(result.display_name);
    results_.push_back(std::move(result));
    return std::make_unique<TranspileConsumer>(handler_, pragmas_, results_.back(), auto_warps_);
  }

private:
  const KernelHandler& handler_;
  const TranspileActionFactory::DisplayName& display_name_;
  const TranspileActionFactory::FileStarted& started_;
  std::deque<FileResult>& results_;
  bool auto_warps_;
  WarpPragmaTable pragmas_;
};

} // namespace

TranspileActionFactory::TranspileActionFactory(KernelHandler handler, DisplayName display_name,
                                               FileStarted started, bool auto_warps)
    : handler_(std::move(handler)), display_name_(std::move(display_name)),
      started_(std::move(started)), auto_warps_(auto_warps) {}

std::unique_ptr<clang::FrontendAction> TranspileActionFactory::create() {
  return std::make_unique<TranspileAction>(handler_, display_name_, started_, results_,
                                           auto_warps_);
}

} // namespace s2p::frontend
