#include "driver/run_tools.h"

#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

namespace s2p::driver {
namespace {

struct FileRun {
  std::vector<frontend::FileResult> results;
  bool tool_failed = false;
};

} // namespace

ToolRunResult run_tools(const clang::tooling::CompilationDatabase& compilations,
                        const std::vector<std::string>& sources,
                        const std::vector<clang::tooling::ArgumentsAdjuster>& adjusters,
                        const frontend::TranspileOptions& options,
                        const frontend::TranspileActionFactory::DisplayName& display_name, int jobs,
                        bool progress) {
  const std::size_t workers =
      static_cast<std::size_t>(std::clamp<int>(jobs, 1, static_cast<int>(sources.size())));
  std::mutex output; // one file's progress line and diagnostics print together
  std::atomic<std::size_t> next{0};
  std::size_t started = 0;
  std::vector<FileRun> runs(sources.size());

  // One ClangTool per file: workers pull the next file, so a slow file doesn't hold up a
  // fixed share, and results land in input order whichever worker produced them.
  auto run_file = [&](std::size_t index) {
    clang::tooling::ClangTool tool(compilations, {sources[index]});
    tool.setPrintErrorMessage(false); // our own summary says which files failed
    for (const auto& adjuster : adjusters)
      tool.appendArgumentsAdjuster(adjuster);
    // One job: Clang's own consumer streams diagnostics as they come. Several: buffer them.
    std::string buffer;
    llvm::raw_string_ostream stream(buffer);
    auto diagnostic_options = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    clang::TextDiagnosticPrinter printer(stream, diagnostic_options.get());
    if (workers > 1)
      tool.setDiagnosticConsumer(&printer);
    frontend::TranspileActionFactory::FileStarted announce;
    if (workers == 1 && progress)
      announce = [&](const std::string& name) {
        llvm::errs() << "seq2par: [" << ++started << "/" << sources.size() << "] " << name << "\n";
      };
    frontend::TranspileActionFactory factory(options, display_name, announce);
    runs[index].tool_failed = tool.run(&factory) != 0;
    runs[index].results.assign(factory.results().begin(), factory.results().end());
    if (workers > 1) {
      std::lock_guard lock(output);
      if (progress && !runs[index].results.empty())
        llvm::errs() << "seq2par: [" << ++started << "/" << sources.size() << "] "
                     << runs[index].results.front().display_name << "\n";
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
  for (auto& run : runs) {
    merged.tool_failed |= run.tool_failed;
    for (auto& result : run.results)
      merged.files.push_back(std::move(result));
  }
  return merged;
}

} // namespace s2p::driver
