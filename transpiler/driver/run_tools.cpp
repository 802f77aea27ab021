#include "driver/run_tools.h"

#include "driver/generated_file.h"
#include "driver/tunables.h"

#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace s2p::driver {
namespace {

struct FileRun {
  std::vector<TranspiledFile> files;
  std::vector<pass_manager::KernelSummary> kernels; // of the file's kernels, in order
  bool tool_failed = false;
  std::vector<ReportedDiagnostic> diagnostics;
};

const char* level_name(clang::DiagnosticsEngine::Level level) {
  switch (level) {
  case clang::DiagnosticsEngine::Note:
    return "note";
  case clang::DiagnosticsEngine::Remark:
    return "remark";
  case clang::DiagnosticsEngine::Warning:
    return "warning";
  case clang::DiagnosticsEngine::Error:
  case clang::DiagnosticsEngine::Fatal:
    return "error";
  case clang::DiagnosticsEngine::Ignored:
    break;
  }
  return "ignored";
}

// Prints through `next` (as Clang would) and keeps each diagnostic for the run's report.
class RecordingConsumer : public clang::DiagnosticConsumer {
public:
  RecordingConsumer(clang::DiagnosticConsumer& next, std::vector<ReportedDiagnostic>& out)
      : next_(next), out_(out) {}
  void BeginSourceFile(const clang::LangOptions& options,
                       const clang::Preprocessor* preprocessor) override {
    next_.BeginSourceFile(options, preprocessor);
  }
  void EndSourceFile() override { next_.EndSourceFile(); }
  void finish() override { next_.finish(); }
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    next_.HandleDiagnostic(level, info);
    ReportedDiagnostic diagnostic;
    diagnostic.level = level_name(level);
    llvm::SmallString<256> message;
    info.FormatDiagnostic(message);
    diagnostic.message = std::string(message);
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const auto& sm = info.getSourceManager();
      const clang::PresumedLoc where = sm.getPresumedLoc(sm.getFileLoc(info.getLocation()));
      if (where.isValid()) {
        diagnostic.file = where.getFilename();
        diagnostic.line = where.getLine();
        diagnostic.column = where.getColumn();
      }
    }
    out_.push_back(std::move(diagnostic));
  }

private:
  clang::DiagnosticConsumer& next_;
  std::vector<ReportedDiagnostic>& out_;
};

// --plan's tunables applied: each input that declares one, as Clang should parse it (absolute
// path -> text), or nothing after the error is reported. A tunable no input declares is an error
// too: a plan whose knob is gone must not build the kernel as if it had been applied.
std::optional<std::map<std::string, std::string>>
tunable_overlays(const std::vector<std::string>& sources, const pass_manager::TunableValues& tunables,
                 const frontend::TranspileActionFactory::DisplayName& display_name) {
  std::map<std::string, std::string> overlays;
  if (tunables.empty())
    return overlays;
  std::vector<std::string> used, declared;
  for (const std::string& source : sources) {
    std::ifstream in(source, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    const std::string name = display_name ? display_name(source) : source;
    const auto scanned = scan_tunables(text);
    if (const auto* error = std::get_if<TunableError>(&scanned)) {
      report_tunable_error(text, name, *error);
      return std::nullopt;
    }
    const auto& declarations = std::get<std::vector<TunableDeclaration>>(scanned);
    for (const auto& d : declarations)
      declared.push_back(d.name);
    auto applied = with_tunables(text, declarations, tunables, used);
    if (const auto* error = std::get_if<TunableError>(&applied)) {
      report_tunable_error(text, name, *error);
      return std::nullopt;
    }
    llvm::SmallString<256> path(source);
    (void)llvm::sys::fs::make_absolute(path); // on failure (no working directory): as given
    overlays[std::string(path)] = std::get<std::string>(std::move(applied));
  }
  for (const auto& [name, tunable] : tunables)
    if (std::find(used.begin(), used.end(), name) == used.end()) {
      std::string known;
      for (const auto& d : declared)
        known += (known.empty() ? "" : ", ") + d;
      llvm::errs() << "seq2par: error: " << tunable.plan_file << ": tunable '" << name
                   << "' is not declared (S2P_TUNABLE) in "
                   << (sources.size() == 1 ? (display_name ? display_name(sources.front()) : sources.front())
                                           : std::string("the inputs"))
                   << (known.empty() ? " (it declares none)" : " (it declares " + known + ")") << "\n";
      return std::nullopt;
    }
  return overlays;
}

} // namespace

ToolRunResult run_tools(const clang::tooling::CompilationDatabase& compilations,
                        const std::vector<std::string>& sources,
                        const std::vector<clang::tooling::ArgumentsAdjuster>& adjusters,
                        const pass_manager::TranspileOptions& options,
                        const frontend::TranspileActionFactory::DisplayName& display_name, int jobs,
                        bool progress, const KernelObserver& observe) {
  const std::size_t workers =
      static_cast<std::size_t>(std::clamp<int>(jobs, 1, static_cast<int>(sources.size())));
  std::mutex output; // one file's progress line and diagnostics print together
  std::atomic<std::size_t> next{0};
  std::size_t started = 0;
  std::vector<FileRun> runs(sources.size());
  const auto overlays = tunable_overlays(sources, options.decisions.tunables, display_name);
  if (!overlays) {
    ToolRunResult refused;
    refused.tool_failed = true;
    return refused;
  }

  // One ClangTool per file: workers pull the next file, so a slow file doesn't hold up a
  // fixed share, and results land in input order whichever worker produced them.
  auto run_file = [&](std::size_t index) {
    // Each tool gets a file system of its own: ClangTool works in every compile command's
    // directory, and on the process-wide real file system that would be a chdir racing
    // with the other workers' (-j with commands in different directories).
    clang::tooling::ClangTool tool(compilations, {sources[index]},
                                   std::make_shared<clang::PCHContainerOperations>(),
                                   llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>(
                                       llvm::vfs::createPhysicalFileSystem()));
    tool.setPrintErrorMessage(false); // our own summary says which files failed
    for (const auto& [path, text] : *overlays)
      tool.mapVirtualFile(path, text);
    for (const auto& adjuster : adjusters)
      tool.appendArgumentsAdjuster(adjuster);
    // One job: Clang's own consumer streams diagnostics as they come. Several: buffer them.
    std::string buffer;
    llvm::raw_string_ostream stream(buffer);
    auto diagnostic_options = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    diagnostic_options->ShowColors = workers == 1 && llvm::errs().has_colors();
    llvm::raw_ostream& destination = workers > 1 ? static_cast<llvm::raw_ostream&>(stream)
                                                 : static_cast<llvm::raw_ostream&>(llvm::errs());
    clang::TextDiagnosticPrinter printer(destination, diagnostic_options.get());
    RecordingConsumer recorder(printer, runs[index].diagnostics);
    tool.setDiagnosticConsumer(&recorder);
    frontend::TranspileActionFactory::FileStarted announce;
    if (workers == 1 && progress)
      announce = [&](const std::string& name) {
        llvm::errs() << "seq2par: [" << ++started << "/" << sources.size() << "] " << name << "\n";
      };
    auto run_passes = [&](const ir::Kernel& kernel, const frontend::KernelOrigin& origin,
                            ir::Diagnostics& diags) -> std::optional<std::string> {
      if (observe) {
        std::lock_guard lock(output);
        observe(kernel);
      }
      auto out = pass_manager::run_kernel_passes(kernel, origin.declared_at, options,
                                               origin.display_name, diags);
      if (!out)
        return std::nullopt;
      runs[index].kernels.push_back(std::move(out->summary));
      return std::move(out->body);
    };
    frontend::TranspileActionFactory factory(run_passes, display_name, announce,
                                             options.passes.auto_warps.has_value());
    runs[index].tool_failed = tool.run(&factory) != 0;
    // One compile command per input (FirstCommandDatabase): one result, all the kernels.
    for (const auto& result : factory.results()) {
      TranspiledFile file{result.input, result.display_name, result.ok, "",
                          std::move(runs[index].kernels), result.dependencies};
      if (result.ok && !result.bodies.empty())
        file.output = assemble_generated_file(result, options.style);
      runs[index].files.push_back(std::move(file));
    }
    if (workers > 1) {
      std::lock_guard lock(output);
      if (progress && !runs[index].files.empty())
        llvm::errs() << "seq2par: [" << ++started << "/" << sources.size() << "] "
                     << runs[index].files.front().display_name << "\n";
      llvm::errs() << stream.str();
    }
  };
  auto worker = [&] {
    for (std::size_t index = next++; index < sources.size(); index = next++)
      run_file(index);
  };
  std::vector<std::jthread> threads;
  for (std::size_t w = 1; w < workers; ++w)
    threads.emplace_back(worker);
  worker();
  threads.clear(); // joins

  ToolRunResult merged;
  for (std::size_t index = 0; index < runs.size(); ++index) {
    auto& run = runs[index];
    merged.diagnostics[sources[index]] = std::move(run.diagnostics);
    merged.tool_failed |= run.tool_failed;
    for (auto& file : run.files)
      merged.files.push_back(std::move(file));
  }
  return merged;
}

} // namespace s2p::driver
