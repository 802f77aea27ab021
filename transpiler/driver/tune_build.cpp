#include "driver/tune_build.h"

#include "driver/command_line.h"
#include "driver/plan_option.h"

#include <clang/Tooling/CompilationDatabase.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

extern char** environ; // NOLINT: POSIX, the environment the runs inherit

namespace s2p::driver {

namespace {

constexpr unsigned kRunSeconds = 600; // a run that takes longer is reported, not waited on

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

std::string join(const std::string& dir, const std::string& name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

std::vector<std::string> split_flags(const std::string& text) {
  std::istringstream in(text);
  return {std::istream_iterator<std::string>(in), {}};
}

bool has_std_flag(const std::vector<std::string>& flags) {
  for (const auto& flag : flags)
    if (flag.rfind("-std=", 0) == 0)
      return true;
  return false;
}

// The inherited environment with the simulator's settings replaced.
std::vector<std::string> run_environment(const std::vector<std::string>& settings) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const bool replaced = entry.rfind("S2P_BACKEND=", 0) == 0 ||
                          entry.rfind("S2P_REPORT=", 0) == 0 ||
                          entry.rfind("S2P_FABRIC=", 0) == 0 || entry.rfind("S2P_TRACE=", 0) == 0;
    if (!replaced)
      env.push_back(entry);
  }
  env.insert(env.end(), settings.begin(), settings.end());
  return env;
}

std::string stem_of(const std::string& display_name) {
  return llvm::sys::path::stem(display_name).str();
}

// The first line where two outputs differ, for the message.
std::string first_difference(const std::string& a, const std::string& b) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] != b[i])
      return "line " + std::to_string(line);
    line += a[i] == '\n' ? 1 : 0;
  }
  return a.size() < b.size() ? "the end of the tuned output (it is shorter)"
                             : "the end of the sequential output (it is shorter)";
}

// A digest of the runtime the programs build against: the files under its include
// directories and the libraries its link flags name, with both flag lists.
std::string runtime_digest(const ToolPaths& paths) {
  std::string all;
  std::vector<std::string> library_dirs;
  for (const auto& flag : compile_flags(paths)) {
    all += flag + "\n";
    if (flag.rfind("-I", 0) != 0)
      continue;
    std::vector<std::string> files;
    std::error_code ec;
    for (llvm::sys::fs::recursive_directory_iterator it(flag.substr(2), ec), end; it != end && !ec;
         it.increment(ec))
      if (it->type() == llvm::sys::fs::file_type::regular_file)
        files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files)
      all += file + " " + file_digest(file).value_or("?") + "\n";
  }
  for (const auto& flag : link_flags(paths)) {
    all += flag + "\n";
    if (flag.rfind("-L", 0) == 0)
      library_dirs.push_back(flag.substr(2));
    for (const auto& dir : library_dirs)
      if (flag.rfind("-l", 0) == 0)
        for (const char* extension : {".a", ".so"})
          if (const auto digest = file_digest(join(dir, "lib" + flag.substr(2) + extension)))
            all += flag + extension + " " + *digest + "\n";
  }
  return digest_of(all);
}

} // namespace

std::string default_tune_compiler() {
  if (const char* env = std::getenv("S2P_CXX"); env && *env)
    return env;
  std::string configured = SEQ2PAR_TUNE_CXX;
  if (!configured.empty() && llvm::sys::fs::can_execute(configured))
    return configured;
  return "c++";
}

TuneBuilder::TuneBuilder(TuneBuildSettings settings) : settings_(std::move(settings)) {
  if (settings_.cxx.empty())
    settings_.cxx = default_tune_compiler();
}

TuneBuilder::~TuneBuilder() {
  if (!work_.empty())
    (void)llvm::sys::fs::remove_directories(work_); // best effort: a destructor reports nothing
}

bool TuneBuilder::fail(int exit_code, const std::string& message) {
  llvm::errs() << "seq2par tune: error: " << message << "\n";
  exit_code_ = exit_code;
  return false;
}

std::string TuneBuilder::plan_file_name() const {
  return stem_of(settings_.display_name) + "." + settings_.kernel + ".plan.json";
}

bool TuneBuilder::start() {
  llvm::SmallString<256> dir;
  if (const std::error_code ec = llvm::sys::fs::createUniqueDirectory("seq2par-tune", dir))
    return fail(kExitUsageError, "cannot create a work directory: " + ec.message());
  work_ = std::string(dir);
  if (!llvm::sys::path::is_absolute(settings_.cxx)) {
    const auto found = llvm::sys::findProgramByName(settings_.cxx);
    if (!found)
      return fail(kExitUsageError, "cannot find the C++ compiler '" + settings_.cxx +
                                       "' (give --cxx or set S2P_CXX)");
    settings_.cxx = *found;
  }
  if (!settings_.store_dir.empty()) {
    store_.emplace(settings_.store_dir);
    store_inputs_ = store_inputs();
  }
  return true;
}

// What decides a variant besides its plan (operation_store.h).
nlohmann::ordered_json TuneBuilder::store_inputs() const {
  const std::string seq2par = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  return {{"source", file_digest(settings_.source).value_or("?")},
          {"display_name", settings_.display_name},
          {"kernel", settings_.kernel},
          {"flags", settings_.flags},
          {"fabric", settings_.fabric_file.empty() ? "built-in"
                                                   : file_digest(settings_.fabric_file).value_or("?")},
          {"cxx", settings_.cxx},
          {"cxx_digest", file_digest(settings_.cxx).value_or("?")},
          {"runtime", runtime_digest(settings_.paths)},
          {"seq2par", std::string(SEQ2PAR_VERSION) + " " + file_digest(seq2par).value_or("?")}};
}

std::optional<TranspiledFile> TuneBuilder::transpile(const pass_manager::TranspileOptions& options,
                                                     const KernelObserver& observe) {
  const clang::tooling::FixedCompilationDatabase database(absolute("."), settings_.flags);
  auto result = run_tools(
      database, {settings_.source}, argument_adjusters(settings_.paths), options,
      [&](const std::string&) { return settings_.display_name; }, 1, false, observe);
  if (result.tool_failed || result.files.empty() || !result.files.front().ok) {
    fail(kExitInputError, settings_.display_name + " has errors; nothing was written");
    return std::nullopt;
  }
  return std::move(result.files.front());
}

std::optional<tuning::KernelPlan> TuneBuilder::plan_as_written() {
  std::optional<tuning::KernelPlan> plan;
  std::vector<std::string> kernels;
  const auto file = transpile(settings_.options, [&](const ir::Kernel& kernel) {
    kernels.push_back(kernel.name);
    if (kernel.name == settings_.kernel && kernel.multi_tile) {
      plan = tuning::plan_from_kernel(kernel);
      for (const auto& [parameter, extent] : kernel.multi_tile->parameter_extents) {
        double elements = 1;
        for (const std::int64_t e : extent)
          elements *= static_cast<double>(e);
        input_sizes_[parameter] = elements;
      }
    }
  });
  if (!file)
    return std::nullopt;
  if (plan)
    return plan;
  const bool present = std::find(kernels.begin(), kernels.end(), settings_.kernel) != kernels.end();
  std::string names;
  for (const auto& name : kernels)
    names += (names.empty() ? "" : ", ") + name;
  fail(kExitUsageError,
       present ? "kernel '" + settings_.kernel +
                     "' is a warp kernel: tune adjusts the plans of "
                     "multi-tile (S2P_TILES) kernels"
               : settings_.display_name + " has no kernel '" + settings_.kernel + "'" +
                     (names.empty() ? " (it has no kernels)" : " (it has " + names + ")"));
  return std::nullopt;
}

bool TuneBuilder::compile(const std::string& source, const std::string& binary,
                          const std::string& log) {
  std::vector<std::string> args = {settings_.cxx};
  if (!has_std_flag(settings_.flags))
    args.emplace_back("-std=c++20");
  for (const auto& flag : compile_flags(settings_.paths))
    args.push_back(flag);
  args.push_back("-iquote");
  args.push_back(llvm::sys::path::parent_path(settings_.source).str());
  args.insert(args.end(), settings_.flags.begin(), settings_.flags.end());
  for (const auto& flag : split_flags(SEQ2PAR_TUNE_CXX_FLAGS)) // the runtime's sanitizer, if any
    args.push_back(flag);
  args.insert(args.end(), {source, "-o", binary});
  for (const auto& flag : link_flags(settings_.paths))
    args.push_back(flag);
  const std::vector<llvm::StringRef> refs(args.begin(), args.end());
  const std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                      llvm::StringRef(log)};
  std::string error;
  const int status =
      llvm::sys::ExecuteAndWait(settings_.cxx, refs, std::nullopt, redirects, 0, 0, &error);
  if (status == 0)
    return true;
  llvm::errs() << read_text(log);
  return fail(kExitInputError, "building " + llvm::sys::path::filename(source).str() + " with " +
                                   settings_.cxx + " failed" + (error.empty() ? "" : ": " + error) +
                                   " (its output is above)");
}

// Runs `binary` on the simulator in `dir`: stdout to dir/stdout.txt, the report to dir/report.json.
bool TuneBuilder::run(const std::string& binary, const std::string& dir, int& exit_status) {
  std::vector<std::string> settings = {"S2P_BACKEND=sim", "S2P_REPORT=" + join(dir, "report.json")};
  if (!settings_.fabric_file.empty())
    settings.push_back("S2P_FABRIC=" + settings_.fabric_file);
  const std::vector<std::string> env = run_environment(settings);
  const std::vector<llvm::StringRef> env_refs(env.begin(), env.end());
  const std::string out = join(dir, "stdout.txt"), err = join(dir, "stderr.txt");
  const std::optional<llvm::StringRef> redirects[] = {llvm::StringRef("/dev/null"),
                                                      llvm::StringRef(out), llvm::StringRef(err)};
  std::string error;
  bool failed_to_run = false;
  exit_status = llvm::sys::ExecuteAndWait(binary, {binary}, env_refs, redirects, kRunSeconds, 0,
                                          &error, &failed_to_run);
  if (failed_to_run || exit_status < 0)
    return fail(kExitInputError, "running " + binary +
                                     " failed: " + (error.empty() ? "killed or timed out" : error) +
                                     "\n" + read_text(err));
  return true;
}

bool TuneBuilder::build_oracle() {
  const std::string dir = join(work_, "sequential");
  (void)llvm::sys::fs::create_directories(dir); // unchecked: writing into it fails then
  const std::string binary = join(dir, "program");
  if (!compile(settings_.source, binary, join(dir, "build.log")) ||
      !run(binary, dir, oracle_status_))
    return false;
  oracle_output_ = read_text(join(dir, "stdout.txt"));
  return true;
}

// The transpile options of a round: the plan written where the round is built and read back
// as --plan reads it. `notes` gets the plan's decisions --plan does not apply, naming the plan
// file by its name (not the work path).
std::optional<pass_manager::TranspileOptions>
TuneBuilder::options_for(const tuning::KernelPlan& plan, int round, const std::string& dir,
                         std::vector<std::string>& notes) {
  const std::string plan_path = join(dir, plan_file_name());
  const auto named = [&](const std::string& message) {
    return message.rfind(plan_path, 0) == 0 ? plan_file_name() + message.substr(plan_path.size())
                                            : message;
  };
  if (!write_text(plan_path, tuning::to_json(plan).dump(2) + "\n")) {
    fail(kExitUsageError, "cannot write " + plan_path);
    return std::nullopt;
  }
  const auto plans = read_plan_files({plan_path});
  if (const auto* error = std::get_if<std::string>(&plans)) {
    fail(kExitUsageError,
         "round " + std::to_string(round) + ": the rules' plan cannot be built: " + named(*error));
    return std::nullopt;
  }
  for (const std::string& warning : std::get<PlanFiles>(plans).warnings)
    notes.push_back(named(warning));
  pass_manager::TranspileOptions options = settings_.options;
  options.decisions = std::get<PlanFiles>(plans).decisions;
  return options;
}

// How the round's program differs from the sequential one ("" when it exits as the sequential
// one did and prints exactly what it printed).
std::string TuneBuilder::oracle_difference(const std::string& dir, int round, int status) const {
  const std::string output = read_text(join(dir, "stdout.txt"));
  if (status == oracle_status_ && output == oracle_output_)
    return "";
  return "round " + std::to_string(round) + ": the tuned program " +
         (status != oracle_status_
              ? "exits with " + std::to_string(status) + ", the sequential one with " +
                    std::to_string(oracle_status_)
              : "prints something else than the sequential program (from " +
                    first_difference(output, oracle_output_) + ")");
}

bool TuneBuilder::matches_oracle(const std::string& dir, int round, int status) {
  const std::string differs = oracle_difference(dir, round, status);
  return differs.empty() || fail(kExitInputError, differs + "\n" + read_text(join(dir, "stderr.txt")));
}

std::optional<std::string> TuneBuilder::variant(const tuning::KernelPlan& plan, int round,
                                                const std::string& dir,
                                                std::vector<std::string>& notes,
                                                bool& from_store) {
  const auto options = options_for(plan, round, dir, notes);
  if (!options)
    return std::nullopt;
  nlohmann::ordered_json inputs = store_inputs_;
  inputs["plan"] = tuning::to_json(plan);
  const std::string key = store_ ? OperationStore::key_of(inputs) : "";
  RoundFiles& files = files_[round];
  if (store_)
    if (auto stored = store_->find(key, notes)) {
      files.generated = std::move(stored->generated);
      files.kernel_files = std::move(stored->kernel_files);
      from_store = true;
      return stored->binary;
    }
  const auto file = transpile(*options, {});
  if (!file)
    return std::nullopt;
  files.generated = file->output;
  for (const auto& kernel : file->kernels)
    files.kernel_files.insert(files.kernel_files.end(), kernel.files.begin(), kernel.files.end());
  const std::string generated = join(dir, stem_of(settings_.display_name) + ".par.cpp");
  std::string binary = join(dir, "program");
  if (!write_text(generated, file->output) || !compile(generated, binary, join(dir, "build.log")))
    return std::nullopt;
  if (store_)
    if (const std::string error = store_->put(key, inputs, {files.generated, files.kernel_files, binary});
        !error.empty())
      notes.push_back("operation store: " + error + " (the variant is not stored)");
  return binary;
}

void TuneBuilder::add_inputs(tuning::Feedback& feedback) const {
  for (const auto& [name, elements] : input_sizes_)
    feedback.inputs.emplace(name, elements);
  for (const auto& [name, value] : settings_.inputs)
    feedback.inputs[name] = value;
}

std::optional<tuning::Measurement> TuneBuilder::measure(const tuning::KernelPlan& plan, int round) {
  const auto started = std::chrono::steady_clock::now();
  const std::string dir = join(work_, "round" + std::to_string(round));
  (void)llvm::sys::fs::create_directories(dir); // unchecked: writing into it fails then
  std::vector<std::string> notes;
  bool from_store = false;
  const auto binary = variant(plan, round, dir, notes, from_store);
  int status = 0;
  if (!binary || !run(*binary, dir, status))
    return std::nullopt;
  // A later round that computes something else (a variant that is not one) is rolled back by
  // the loop; round 0, the plan as written or given, must match.
  if (round > 0)
    if (std::string differs = oracle_difference(dir, round, status); !differs.empty()) {
      tuning::Measurement wrong;
      wrong.wrong_result = std::move(differs);
      wrong.notes = std::move(notes);
      return wrong;
    }
  if (!matches_oracle(dir, round, status))
    return std::nullopt;
  ir::Diagnostics diagnostics;
  auto feedback = tuning::feedback_from_text(
      read_text(join(dir, "report.json")), settings_.kernel,
      "the simulator's report of round " + std::to_string(round), diagnostics);
  if (!feedback) {
    fail(kExitUsageError, diagnostics.items().front().message);
    return std::nullopt;
  }
  feedback->failed_tiles.insert(feedback->failed_tiles.end(), settings_.failed_tiles.begin(),
                                settings_.failed_tiles.end());
  add_inputs(*feedback);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  return tuning::Measurement{feedback->total_cycles, std::move(*feedback), std::move(notes),
                             took.count(), from_store, ""};
}

} // namespace s2p::driver
