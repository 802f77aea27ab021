#include "driver/transpile_run.h"

#include "driver/compilation_database.h"
#include "driver/incremental_cache.h"
#include "driver/kernel_prescan.h"
#include "driver/output_files.h"
#include "driver/output_manifest.h"
#include "driver/run_report.h"
#include "driver/run_tools.h"

#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

namespace s2p::driver {
namespace {

// `target: dependencies` as make and Ninja read it (spaces and '#' escaped, '$' doubled).
std::string depfile_text(const std::string& target, const std::vector<std::string>& dependencies) {
  auto escape = [](const std::string& path) {
    std::string out;
    for (const char c : path) {
      if (c == ' ' || c == '#')
        out += '\\';
      if (c == '$')
        out += '$';
      out += c;
    }
    return out;
  };
  std::string text = escape(target) + ":";
  for (const auto& dependency : dependencies)
    text += " \\\n  " + escape(dependency);
  return text + "\n";
}

// `path` relative to the input root, or just its file name if it lies outside it.
std::string relative_to_root(const std::string& path, const std::string& root) {
  llvm::StringRef rel(path);
  if (rel.consume_front(root) && (rel.empty() || llvm::sys::path::is_separator(rel.front()))) {
    rel = rel.drop_while([](char c) { return llvm::sys::path::is_separator(c); });
    return rel.str();
  }
  return llvm::sys::path::filename(path).str();
}

std::string output_path(const std::string& base, const std::string& display_name,
                        const std::string& suffix) {
  llvm::SmallString<256> path(base);
  llvm::sys::path::append(path, display_name);
  llvm::sys::path::replace_extension(path, "");
  return std::string(path) + suffix;
}

// What changes every input's output, apart from its compile command and file contents: the
// same for the whole run, so it is put together (and the fabric file read) once. The options
// are serialized whole, so a new option cannot be forgotten here.
std::string options_text(const pass_manager::TranspileOptions& options,
                         const ToolPaths& paths, const std::string& root) {
  // The executable's own bytes, not only its version: a rebuilt seq2par (a developer's, or
  // a package rebuilt without a version bump) must not reuse what an older one wrote.
  std::string text = std::string("seq2par ") + SEQ2PAR_VERSION + " " + hash_file("/proc/self/exe") +
                     "\n" + paths.include_dir + "\n" +
                     paths.clang_resource_dir + "\n" + root + "\n" +
                     pass_manager::to_json(options).dump() + "\n";
  // Forall templates are planned on the fabric: its content, not only its name, counts.
  if (!options.fabric.file.empty()) {
    std::ifstream fabric(options.fabric.file, std::ios::binary);
    text += std::string(std::istreambuf_iterator<char>(fabric), {}) + "\n";
  }
  return text;
}

// How `source` is transpiled: everything that changes the output except file contents.
std::string fingerprint(const std::string& source, const clang::tooling::CompilationDatabase& db,
                        const std::string& options) {
  std::string text = options;
  for (const auto& command : db.getCompileCommands(source)) {
    text += command.Directory + "\n";
    for (const auto& arg : command.CommandLine)
      text += arg + "\x1f";
    text += "\n";
  }
  return hash_text(text);
}

class TranspileRun {
public:
  explicit TranspileRun(const RunSettings& settings)
      : settings_(settings), database_(*settings.database),
        cache_(IncrementalCache::load(settings.out_base)), had_cache_(!cache_.empty()),
        how_(options_text(settings.options, settings.paths, settings.root)) {
    account_.tool_version = SEQ2PAR_VERSION;
  }

  int run() {
    select_inputs();
    if (to_run_.empty())
      return finish_without_parsing();
    const auto result = run_tools(
        database_, to_run_, settings_.adjusters, settings_.options,
        [&](const std::string& file) { return display_name(file); }, settings_.jobs,
        !settings_.quiet && settings_.sources.size() > 1);
    collect(result);
    if (failed_ > 0 || result.tool_failed || result.files.empty()) {
      llvm::errs() << "seq2par: " << (failed_ ? failed_ : 1) << " file"
                   << (failed_ > 1 ? "s" : "") << " with errors; nothing was written\n";
      mark_not_written(
          "another input has errors, and nothing is written unless every input succeeds");
      return finish(kExitInputError);
    }
    return write_all();
  }

private:
  std::string display_name(const std::string& file) const {
    return relative_to_root(absolute(file), settings_.root);
  }

  void note_input(const std::string& file, InputStatus status, std::string reason) {
    account_.inputs.push_back({absolute(file), status, std::move(reason), {}, {}, {}});
  }

  // Inputs the cache says are up to date, or whose text cannot declare a kernel, are
  // decided without building an AST; the rest are to run.
  void select_inputs() {
    for (const auto& source : settings_.sources) {
      const std::string key = absolute(source);
      fingerprints_[key] = fingerprint(source, database_, how_);
      bool skipped_before = false;
      if (!settings_.force && !settings_.no_cache &&
          cache_.up_to_date(key, fingerprints_[key], skipped_before)) {
        ++up_to_date_;
        up_to_date_inputs_.push_back(key);
        note_input(key, InputStatus::UpToDate, "");
        if (!settings_.quiet)
          llvm::errs() << "seq2par: up to date: " << relative_to_root(key, settings_.root)
                       << (skipped_before ? " (no S2P_KERNEL)" : "") << "\n";
        continue;
      }
      if (!prescan_skips(source, key))
        to_run_.push_back(source);
    }
  }

  // A file whose text cannot declare a kernel is skipped without building an AST.
  bool prescan_skips(const std::string& source, const std::string& key) {
    const auto commands = database_.getCompileCommands(source);
    if (commands.empty() || settings_.write_unchanged) // written either way: parse it
      return false;
    const auto scan = prescan_for_kernels(source, commands.front(), settings_.paths.include_dir);
    if (scan.may_declare_kernel)
      return false;
    ++prescan_skipped_;
    note_input(key, InputStatus::Skipped,
               "S2P_KERNEL appears neither in the file, its compile command nor the project "
               "headers it includes (not parsed)");
    if (!settings_.quiet)
      llvm::errs() << "seq2par: skipped " << relative_to_root(key, settings_.root)
                   << ": no S2P_KERNEL to transpile\n";
    if (!settings_.no_cache)
      cache_.record(key, fingerprints_[key], scan.files_read, {});
    return true;
  }

  int finish_without_parsing() {
    std::vector<OutputFile> written;
    add_manifest(written);
    // As below: a run that writes nothing else leaves no new cache behind.
    if (!settings_.no_cache && prescan_skipped_ > 0 && had_cache_)
      written.push_back({cache_.path(), cache_.text()});
    if (const std::string error = write(written); !error.empty()) {
      llvm::errs() << "seq2par: error: " << error << "\n";
      return kExitUsageError;
    }
    if (!settings_.quiet && settings_.sources.size() > 1)
      llvm::errs() << "seq2par: 0 transpiled, " << prescan_skipped_ << " skipped"
                   << (up_to_date_ ? ", " + std::to_string(up_to_date_) + " up to date" : "")
                   << "\n";
    account_.written = true;
    return finish(0);
  }

  // Every input that ran starts as refused (it could not be parsed) until its result says
  // otherwise; any failed input means nothing is written.
  void collect(const ToolRunResult& result) {
    skipped_ = prescan_skipped_;
    first_ran_ = account_.inputs.size();
    for (const auto& source : to_run_) {
      note_input(source, InputStatus::Refused, "it could not be parsed");
      if (const auto found = result.diagnostics.find(source); found != result.diagnostics.end())
        account_.inputs.back().diagnostics = found->second;
    }
    std::set<std::string> seen;
    for (const auto& file : result.files)
      if (seen.insert(file.input).second)
        collect_file(file, account_of(file.input));
  }

  InputAccount& account_of(const std::string& input) {
    for (std::size_t i = first_ran_; i < account_.inputs.size(); ++i)
      if (account_.inputs[i].file == absolute(input))
        return account_.inputs[i];
    note_input(input, InputStatus::Refused, "");
    return account_.inputs.back();
  }

  void collect_file(const TranspiledFile& result, InputAccount& entry) {
    if (!result.ok) {
      ++failed_;
      entry.reason = "errors in the input";
      return;
    }
    const std::string key = absolute(result.input);
    if (result.output.empty() && settings_.write_unchanged) {
      TranspiledFile unchanged = result;
      std::ifstream in(result.input, std::ios::binary);
      unchanged.output.assign(std::istreambuf_iterator<char>(in), {});
      entry.status = InputStatus::Skipped;
      entry.reason = "no S2P_KERNEL function in the translation unit (written unchanged)";
      ++skipped_;
      if (!settings_.quiet)
        llvm::errs() << "seq2par: skipped " << result.display_name
                     << ": no S2P_KERNEL to transpile (written unchanged)\n";
      record_outputs(unchanged, entry, key);
      return;
    }
    if (result.output.empty()) {
      entry.status = InputStatus::Skipped;
      entry.reason = "no S2P_KERNEL function in the translation unit";
      ++skipped_;
      if (!settings_.quiet)
        llvm::errs() << "seq2par: skipped " << result.display_name
                     << ": no S2P_KERNEL to transpile\n";
      if (fingerprints_.contains(key))
        cache_.record(key, fingerprints_[key], result.dependencies, {});
      return;
    }
    ++transpiled_;
    entry.status = InputStatus::Transpiled;
    entry.reason.clear();
    for (const auto& kernel : result.kernels)
      entry.kernels.push_back(
          {kernel.name, kernel.tiles, kernel.warps, kernel.channels, kernel.calls});
    record_outputs(result, entry, key);
  }

  // The file's outputs, in the account and the cache.
  void record_outputs(const TranspiledFile& result, InputAccount& entry, const std::string& key) {
    const std::size_t first_output = outputs_.size();
    add_outputs(result);
    std::vector<CachedOutput> written;
    for (std::size_t k = first_output; k < outputs_.size(); ++k) {
      written.push_back({absolute(outputs_[k].path), outputs_[k].content});
      entry.outputs.push_back(absolute(outputs_[k].path));
    }
    if (fingerprints_.contains(key))
      cache_.record(key, fingerprints_[key], result.dependencies, written);
    else
      cache_.forget(key);
  }

  // The generated file, its kernels' files, the depfile; and the summary lines.
  void add_outputs(const TranspiledFile& result) {
    const std::size_t first_output = outputs_.size();
    const std::string& base = settings_.out_base;
    const std::string path = output_path(out_dir_argument(), result.display_name, ".par.cpp");
    outputs_.push_back({output_path(base, result.display_name, ".par.cpp"), result.output});
    for (const auto& kernel : result.kernels) {
      summaries_.push_back(
          "seq2par: " + path + ": kernel '" + kernel.name + "': " +
          (kernel.tiles > 0
               ? std::to_string(kernel.tiles) + " tiles, " + std::to_string(kernel.calls) +
                     (kernel.calls == 1 ? " step" : " steps")
               : std::to_string(kernel.warps) + " warps, " + std::to_string(kernel.channels) +
                     " channels, " + std::to_string(kernel.calls) + " calls"));
      for (const auto& [suffix, content] : kernel.files)
        outputs_.push_back({output_path(base, result.display_name, "." + suffix), content});
    }
    if (!settings_.depfile.empty())
      outputs_.push_back(
          {settings_.depfile, depfile_text(outputs_[first_output].path, result.dependencies)});
  }

  // How the summary lines name the output directory: as the user wrote it.
  const std::string& out_dir_argument() const { return settings_.out_dir_as_given; }

  int write_all() {
    add_manifest(outputs_);
    // The cache is written with the outputs (a run that writes nothing leaves no cache behind).
    if (!settings_.no_cache && (!outputs_.empty() || had_cache_))
      outputs_.push_back({cache_.path(), cache_.text()});
    if (const std::string error = write(outputs_); !error.empty()) {
      llvm::errs() << "seq2par: error: " << error << "; nothing was written\n";
      mark_not_written(error);
      return finish(kExitUsageError);
    }
    account_.written = true;
    if (!settings_.quiet) {
      for (const auto& line : summaries_)
        llvm::errs() << line << "\n";
      if (settings_.sources.size() > 1)
        llvm::errs() << "seq2par: " << transpiled_ << " transpiled, " << skipped_ << " skipped"
                     << (up_to_date_ ? ", " + std::to_string(up_to_date_) + " up to date" : "")
                     << "\n";
    }
    return finish(0);
  }

  // --manifest lists what every input wrote, this run or (up to date) an earlier one.
  void add_manifest(std::vector<OutputFile>& outputs) {
    if (settings_.manifest_file.empty())
      return;
    for (const auto& output : outputs)
      manifest_lists_.push_back(absolute(output.path));
    for (const auto& input : up_to_date_inputs_)
      for (const auto& output : cache_.outputs_of(input))
        manifest_lists_.push_back(output);
    outputs.push_back({settings_.manifest_file, manifest_text(manifest_lists_)});
  }

  std::string write(const std::vector<OutputFile>& outputs) {
    const auto listed_before = read_manifest(settings_.manifest_file);
    std::string error = write_all_or_nothing(outputs);
    if (error.empty() && !settings_.manifest_file.empty())
      remove_stale_outputs(listed_before, manifest_lists_, settings_.out_base);
    return error;
  }

  // Inputs that transpiled in a run that writes nothing say so, and why.
  void mark_not_written(const std::string& why) {
    for (auto& entry : account_.inputs) {
      if (entry.status == InputStatus::Transpiled) {
        entry.status = InputStatus::NotWritten;
        entry.reason = why;
      }
      entry.outputs.clear();
    }
  }

  // The report is written whatever happens to the outputs: it is how a run that wrote
  // nothing says why.
  int finish(int exit_code) {
    // In the order the inputs were given, whichever way each was decided.
    std::map<std::string, std::size_t> order;
    for (const auto& source : settings_.sources)
      order.emplace(absolute(source), order.size());
    std::sort(account_.inputs.begin(), account_.inputs.end(), // one entry per input
              [&](const auto& a, const auto& b) { return order[a.file] < order[b.file]; });
    if (!settings_.report_file.empty())
      if (const std::string error = write_run_report(settings_.report_file, account_);
          !error.empty()) {
        llvm::errs() << "seq2par: error: " << error << "\n";
        return kExitUsageError;
      }
    return exit_code;
  }

  const RunSettings& settings_;
  const FirstCommandDatabase database_;
  IncrementalCache cache_;
  const bool had_cache_;
  const std::string how_; // everything but the compile command that decides the outputs
  RunAccount account_;
  std::map<std::string, std::string> fingerprints_;
  std::vector<std::string> to_run_, up_to_date_inputs_, manifest_lists_;
  std::vector<OutputFile> outputs_;
  std::vector<std::string> summaries_;
  std::size_t first_ran_ = 0;
  int up_to_date_ = 0, prescan_skipped_ = 0, failed_ = 0, skipped_ = 0, transpiled_ = 0;
};

} // namespace

int transpile(const RunSettings& settings) {
  return TranspileRun(settings).run();
}

} // namespace s2p::driver
