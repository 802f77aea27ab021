#include "frontend/transpile_action.h"

#include "emit/multi_tile_code.h"
#include "emit/warp_code.h"
#include "frontend/kernel_extractor.h"
#include "frontend/s2p_types.h"
#include "frontend/warp_pragmas.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/ASTMatchers/ASTMatchers.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Format/Format.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Core/Replacement.h>

#include <algorithm>
#include <exception>

namespace s2p::frontend {

namespace {

using namespace clang::ast_matchers;

constexpr const char* kRuntimeInclude = "#include <seq2par/runtime.h> // added by seq2par\n";

struct BodyReplacement {
  unsigned begin; // offset of '{'
  unsigned end;   // offset after '}'
  std::string text;
};

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

// Formats the generated kernel bodies only; every other byte stays as the user wrote it.
std::string format_bodies(const std::string& code, const std::vector<clang::tooling::Range>& ranges,
                          const std::string& path, const std::string& style_name) {
  auto style = clang::format::getStyle(style_name, path, "LLVM", code);
  clang::format::FormatStyle chosen = clang::format::getLLVMStyle();
  if (style)
    chosen = *style;
  else
    llvm::consumeError(style.takeError());
  const auto replacements = clang::format::reformat(chosen, code, ranges, path);
  auto formatted = clang::tooling::applyAllReplacements(code, replacements);
  if (!formatted) {
    llvm::consumeError(formatted.takeError());
    return code;
  }
  return *formatted;
}

class TranspileConsumer : public clang::ASTConsumer {
public:
  TranspileConsumer(const TranspileOptions& options, WarpPragmaTable& pragmas, FileResult& result)
      : options_(options), pragmas_(pragmas), result_(result) {}

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
    std::vector<const clang::FunctionDecl*> kernels;
    for (const auto& match :
         match(functionDecl(isDefinition(), hasAttr(clang::attr::Annotate)).bind("f"), ctx)) {
      const auto* f = match.getNodeAs<clang::FunctionDecl>("f");
      if (f && is_kernel(f) && sm.isInMainFile(sm.getFileLoc(f->getLocation())))
        kernels.push_back(f);
    }
    std::vector<BodyReplacement> bodies;
    KernelExtractor extractor(ctx, pragmas_, result_.display_name);
    for (const clang::FunctionDecl* kernel : kernels)
      transpile_kernel(ctx, extractor, *kernel, bodies);
    if (diags.hasErrorOccurred())
      return;
    result_.ok = true;
    if (!bodies.empty())
      result_.output = assemble(ctx, bodies);
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
      const llvm::StringRef real = it->first.getFileEntry().tryGetRealPathName();
      result_.dependencies.push_back((real.empty() ? it->first.getName() : real).str());
    }
    std::sort(result_.dependencies.begin(), result_.dependencies.end());
  }

private:
  void transpile_kernel(clang::ASTContext& ctx, KernelExtractor& extractor,
                        const clang::FunctionDecl& decl, std::vector<BodyReplacement>& bodies) {
    auto kernel = extractor.extract(decl);
    if (!kernel)
      return;
    if (kernel->multi_tile)
      return transpile_multi_tile(ctx, decl, *kernel, bodies);
    ir::Diagnostics diags;
    auto plan = passes::plan_kernel(*kernel, options_.pipeline, diags);
    report_ir_diagnostics(ctx, diags);
    if (diags.has_errors())
      return;
    if (plan.regions.empty()) {
      report_warning(ctx, decl.getLocation(),
                     "kernel '" + kernel->name +
                         "' calls no intrinsic; its body is left unchanged");
    } else {
      const auto& sm = ctx.getSourceManager();
      const auto* body = decl.getBody();
      const unsigned begin = sm.getFileOffset(sm.getFileLoc(body->getBeginLoc()));
      const unsigned end = sm.getFileOffset(sm.getFileLoc(body->getEndLoc())) + 1;
      bodies.push_back({begin, end, emit::emit_kernel_body(*kernel, plan, {result_.display_name})});
    }
    KernelResult summary{kernel->name,
                         static_cast<int>(plan.warps.size()),
                         plan.channel_count,
                         plan.call_count(),
                         0,
                         {}};
    for (dump::DumpKind kind : options_.dumps) {
      const std::string stem = kernel->name + "." + std::string(dump::name_of(kind));
      summary.dumps.emplace_back(
          stem + ".json",
          dump::to_json(kind, *kernel, plan)
                  .dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
              "\n");
      summary.dumps.emplace_back(stem + ".dot", dump::to_dot(kind, *kernel, plan));
    }
    result_.kernels.push_back(std::move(summary));
  }

  void transpile_multi_tile(clang::ASTContext& ctx, const clang::FunctionDecl& decl,
                            const ir::Kernel& kernel, std::vector<BodyReplacement>& bodies) {
    if (kernel.multi_tile->tiles > options_.fabric_tiles) {
      report_error(ctx, decl.getLocation(),
                   "kernel '" + kernel.name + "' spans " +
                       std::to_string(kernel.multi_tile->tiles) + " tiles but the fabric has " +
                       std::to_string(options_.fabric_tiles) + " (" +
                       (options_.fabric_description.empty()
                            ? std::string("--fabric-tiles; a fabric file with more chips: --fabric")
                            : options_.fabric_description) +
                       ")");
      return;
    }
    const auto& sm = ctx.getSourceManager();
    const auto* body = decl.getBody();
    const unsigned begin = sm.getFileOffset(sm.getFileLoc(body->getBeginLoc()));
    const unsigned end = sm.getFileOffset(sm.getFileLoc(body->getEndLoc())) + 1;
    // --extents names this kernel: its templates are planned for those extents.
    ir::Kernel planned_kernel = kernel;
    if (const auto given = options_.given_extents.find(kernel.name);
        given != options_.given_extents.end()) {
      planned_kernel.multi_tile->parameter_extents = given->second;
      planned_kernel.multi_tile->extents_from = "--extents " + kernel.name;
      planned_kernel.multi_tile->no_extents_reason.clear();
    }
    emit::MultiTileSchedules schedules;
    try {
      schedules = emit::multi_tile_schedules(
          planned_kernel, {options_.fabric_tiles_per_chip, options_.fabric_file});
    } catch (const std::exception& e) { // a generator refusing its input is our bug
      report_error(ctx, decl.getLocation(),
                   "internal error: cannot make the schedule templates of kernel '" + kernel.name +
                       "': " + e.what());
      return;
    }
    for (const auto& warning : schedules.warnings)
      report_warning(ctx, decl.getLocation(), "kernel '" + kernel.name + "': " + warning);
    bodies.push_back(
        {begin, end, emit::emit_multi_tile_body(kernel, {result_.display_name}, schedules)});
    KernelResult summary{kernel.name,
                         0,
                         0,
                         static_cast<int>(kernel.multi_tile->steps.size()),
                         kernel.multi_tile->tiles,
                         std::move(schedules.files)};
    result_.kernels.push_back(std::move(summary));
  }

  std::string assemble(clang::ASTContext& ctx, std::vector<BodyReplacement>& bodies) const {
    const auto& sm = ctx.getSourceManager();
    const llvm::StringRef original = sm.getBufferData(sm.getMainFileID());
    std::sort(bodies.begin(), bodies.end(),
              [](const auto& a, const auto& b) { return a.begin < b.begin; });
    std::string code = kRuntimeInclude;
    std::vector<clang::tooling::Range> ranges;
    unsigned at = 0;
    for (const auto& body : bodies) {
      code += original.substr(at, body.begin - at).str();
      // Format the lines strictly inside the braces, so the signature line stays as written.
      const auto open = body.text.find('\n');
      const unsigned start = static_cast<unsigned>(code.size() + open + 1);
      code += body.text;
      ranges.emplace_back(start, static_cast<unsigned>(code.size()) - 1 - start);
      at = body.end;
    }
    code += original.substr(at).str();
    return format_bodies(code, ranges, result_.input, options_.style);
  }

  const TranspileOptions& options_;
  WarpPragmaTable& pragmas_;
  FileResult& result_;
};

class TranspileAction : public clang::ASTFrontendAction {
public:
  TranspileAction(const TranspileOptions& options,
                  const TranspileActionFactory::DisplayName& display_name,
                  const TranspileActionFactory::FileStarted& started,
                  std::deque<FileResult>& results)
      : options_(options), display_name_(display_name), started_(started), results_(results) {}

  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    ci.getPreprocessor().AddPragmaHandler(
        new S2pPragmaHandler(pragmas_)); // the preprocessor owns it
    return true;
  }

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&,
                                                        llvm::StringRef file) override {
    FileResult result;
    result.input = file.str();
    result.display_name = display_name_(result.input);
    if (started_)
      started_(result.display_name);
    results_.push_back(std::move(result));
    return std::make_unique<TranspileConsumer>(options_, pragmas_, results_.back());
  }

private:
  const TranspileOptions& options_;
  const TranspileActionFactory::DisplayName& display_name_;
  const TranspileActionFactory::FileStarted& started_;
  std::deque<FileResult>& results_;
  WarpPragmaTable pragmas_;
};

} // namespace

TranspileActionFactory::TranspileActionFactory(TranspileOptions options, DisplayName display_name,
                                               FileStarted started)
    : options_(std::move(options)), display_name_(std::move(display_name)),
      started_(std::move(started)) {}

std::unique_ptr<clang::FrontendAction> TranspileActionFactory::create() {
  return std::make_unique<TranspileAction>(options_, display_name_, started_, results_);
}

} // namespace s2p::frontend
