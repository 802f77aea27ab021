#include "driver/tune_command.h"

#include "driver/command_line.h"
#include "driver/fabric_option.h"
#include "driver/output_files.h"
#include "driver/tune_build.h"
#include "tuning/apply.h"
#include "tuning/central_local.h"
#include "tuning/rules.h"
#include "tuning/tune_loop.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace s2p::driver {

namespace {

constexpr const char* kUsage = "usage: seq2par tune FILE --kernel NAME --out-dir DIR [--rules "
                               "R.json]... [--no-default-rules]\n"
                               "                    [--plan START.json] [--fabric F.json] "
                               "[--rounds N] [--failed-tiles T,T,...]\n"
                               "                    [--in-root R] [--cxx COMPILER] [--explain] "
                               "[--quiet] [--feedback REPORT.json]\n"
                               "                    [--store DIR] [--local-chips] [--input NAME=VALUE]...\n"
                               "                    [-- compiler flags]\n";

struct TuneOptions {
  std::string file, kernel, out_dir, in_root = ".", fabric, start_plan, feedback, cxx, store;
  std::vector<std::string> rules;
  std::vector<std::string> flags;
  std::vector<int> failed_tiles;
  std::map<std::string, double> inputs; // --input: input.<name> for the rules
  int rounds = 5;
  bool default_rules = true, explain = false, quiet = false, local_chips = false;
};

int usage_error(const std::string& message) {
  llvm::errs() << "seq2par tune: error: " << message << "\n" << kUsage;
  return kExitUsageError;
}

std::optional<int> parse_int(const std::string& text, int min, int max) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < min || value > max)
    return std::nullopt;
  return value;
}

std::optional<std::vector<int>> parse_tiles(const std::string& text) {
  std::vector<int> tiles;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const auto tile = parse_int(text.substr(start, comma - start), 0, 1 << 24);
    if (!tile)
      return std::nullopt;
    tiles.push_back(*tile);
    start = comma + 1;
  }
  return tiles;
}

// One option's value into `options`; an error message, or "" when it was taken.
std::string take_option(const std::string& name, const std::string& value, TuneOptions& options) {
  const std::pair<const char*, std::string*> strings[] = {
      {"kernel", &options.kernel},     {"out-dir", &options.out_dir},
      {"out-root", &options.out_dir},  {"in-root", &options.in_root},
      {"fabric", &options.fabric},     {"plan", &options.start_plan},
      {"feedback", &options.feedback}, {"cxx", &options.cxx},
      {"store", &options.store}};
  for (const auto& [option, slot] : strings)
    if (name == option) {
      *slot = value;
      return "";
    }
  if (name == "rules") {
    options.rules.push_back(value);
    return "";
  }
  if (name == "rounds") {
    const auto rounds = parse_int(value, 0, 1000);
    if (!rounds)
      return "--rounds must be a number from 0 to 1000, got '" + value + "'";
    options.rounds = *rounds;
    return "";
  }
  if (name == "input") {
    const std::size_t eq = value.find('=');
    const std::string key = value.substr(0, eq);
    double number = 0;
    const char* begin = eq == std::string::npos ? nullptr : value.data() + eq + 1;
    const char* end = value.data() + value.size();
    const bool named = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    if (!named || !begin || begin == end || std::from_chars(begin, end, number).ptr != end ||
        !std::isfinite(number))
      return "--input must be NAME=NUMBER (NAME of letters, digits and '_'), got '" + value + "'";
    options.inputs[key] = number;
    return "";
  }
  if (name == "failed-tiles") {
    const auto tiles = parse_tiles(value);
    if (!tiles)
      return "--failed-tiles must be tile numbers separated by commas, got '" + value + "'";
    options.failed_tiles = *tiles;
    return "";
  }
  return "unknown option '--" + name + "'";
}

bool is_flag(const std::string& name) {
  return name == "explain" || name == "quiet" || name == "no-default-rules" ||
         name == "local-chips";
}

// The command line after `seq2par tune`; an exit code when it is refused or answered.
std::variant<TuneOptions, int> parse(int argc, const char** argv) {
  TuneOptions options;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      options.flags.assign(argv + i + 1, argv + argc);
      break;
    }
    if (arg == "--help" || arg == "-h") {
      llvm::outs() << kUsage;
      return 0;
    }
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
      if (!options.file.empty())
        return usage_error("one input file, got '" + options.file + "' and '" + arg + "'");
      options.file = arg;
      continue;
    }
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (is_flag(name) && eq == std::string::npos) {
      options.explain |= name == "explain";
      options.quiet |= name == "quiet";
      options.default_rules &= name != "no-default-rules";
      options.local_chips |= name == "local-chips";
      continue;
    }
    std::string value;
    if (eq != std::string::npos)
      value = arg.substr(eq + 1);
    else if (i + 1 < argc)
      value = argv[++i];
    else
      return usage_error("--" + name + " needs a value");
    if (const std::string error = take_option(name, value, options); !error.empty())
      return usage_error(error);
  }
  if (options.file.empty() || options.kernel.empty() || options.out_dir.empty())
    return usage_error("give the input FILE, --kernel NAME and --out-dir DIR");
  if (!llvm::sys::fs::is_regular_file(options.file))
    return usage_error("no such file: '" + options.file + "'");
  return options;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

int report_diagnostics(const ir::Diagnostics& diagnostics) {
  for (const auto& item : diagnostics.items())
    llvm::errs() << "seq2par tune: error: " << item.loc.file << ": " << item.message << "\n";
  return kExitUsageError;
}

// The default rules (unless --no-default-rules) and each --rules file's, evaluated together.
std::optional<tuning::RuleSet> read_rules(const TuneOptions& options) {
  tuning::RuleSet rules = options.default_rules ? tuning::default_rules() : tuning::RuleSet{};
  ir::Diagnostics diagnostics;
  for (const std::string& path : options.rules) {
    const auto text = read_file(path);
    if (!text) {
      llvm::errs() << "seq2par tune: error: cannot read the rules '" << path << "'\n";
      return std::nullopt;
    }
    if (const auto extra = tuning::rules_from_text(*text, path, diagnostics))
      rules = tuning::merge(std::move(rules), *extra);
  }
  if (diagnostics.has_errors()) {
    report_diagnostics(diagnostics);
    return std::nullopt;
  }
  return rules;
}

std::optional<tuning::KernelPlan> read_start_plan(const TuneOptions& options) {
  const auto text = read_file(options.start_plan);
  if (!text) {
    llvm::errs() << "seq2par tune: error: cannot read the plan '" << options.start_plan << "'\n";
    return std::nullopt;
  }
  ir::Diagnostics diagnostics;
  auto plan = tuning::plan_from_text(*text, options.start_plan, diagnostics);
  if (!plan) {
    report_diagnostics(diagnostics);
    return std::nullopt;
  }
  if (plan->kernel != options.kernel) {
    llvm::errs() << "seq2par tune: error: " << options.start_plan << ": a plan for kernel '"
                 << plan->kernel << "', not '" << options.kernel << "'\n";
    return std::nullopt;
  }
  return plan;
}

// `path` relative to `root`, or its file name when it lies outside.
std::string display_name_of(const std::string& path, const std::string& root) {
  llvm::StringRef rel(path);
  if (rel.consume_front(root) && !rel.empty() && llvm::sys::path::is_separator(rel.front()))
    return rel.drop_while([](char c) { return llvm::sys::path::is_separator(c); }).str();
  return llvm::sys::path::filename(path).str();
}

std::optional<TuneBuildSettings> build_settings(const TuneOptions& options, const char* argv0) {
  TuneBuildSettings settings;
  settings.source = absolute(options.file);
  settings.display_name = display_name_of(settings.source, absolute(options.in_root));
  settings.kernel = options.kernel;
  settings.flags = options.flags;
  settings.cxx = options.cxx;
  settings.failed_tiles = options.failed_tiles;
  settings.inputs = options.inputs;
  settings.store_dir = options.store.empty() ? "" : absolute(options.store);
  settings.paths = find_tool_paths(argv0);
  if (settings.paths.clang_resource_dir.empty()) {
    llvm::errs() << "seq2par tune: error: cannot find Clang's resource headers (stddef.h); set "
                    "S2P_CLANG_RESOURCE_DIR\n";
    return std::nullopt;
  }
  if (!options.fabric.empty()) {
    const auto limits = read_fabric_limits(options.fabric);
    if (const auto* error = std::get_if<std::string>(&limits)) {
      llvm::errs() << "seq2par tune: error: --fabric: " << *error << "\n";
      return std::nullopt;
    }
    const auto& fabric = std::get<FabricLimits>(limits);
    settings.options.passes.tile_sram_bytes = fabric.sram_bytes;
    settings.options.fabric = {static_cast<int>(fabric.tiles), fabric.description,
                               static_cast<std::uint32_t>(fabric.tiles_per_chip),
                               absolute(options.fabric),
                               static_cast<int>(fabric.hardware_threads)};
    settings.fabric_file = absolute(options.fabric);
  }
  return settings;
}

// DIR/<the input's path below the root, without its extension><suffix>.
std::string output_path(const TuneOptions& options, const TuneBuildSettings& settings,
                        const std::string& suffix) {
  llvm::SmallString<256> path(absolute(options.out_dir));
  llvm::sys::path::append(path, settings.display_name);
  llvm::sys::path::replace_extension(path, "");
  return std::string(path) + suffix;
}

std::string plan_text(const tuning::KernelPlan& plan) {
  return tuning::to_json(plan).dump(2) + "\n";
}

int write_outputs(const std::vector<OutputFile>& outputs, bool quiet) {
  if (const std::string error = write_all_or_nothing(outputs); !error.empty()) {
    llvm::errs() << "seq2par tune: error: " << error << "; nothing was written\n";
    return kExitUsageError;
  }
  if (!quiet)
    for (const auto& output : outputs)
      llvm::errs() << "seq2par tune: wrote " << output.path << "\n";
  return 0;
}

// --feedback --local-chips: the plan as a central plan split over the report's chips; each
// chip's part refined by one round of the rules on its own tiles' feedback (central_local.h).
// Writes each chip's local plan and the merged plan.
int apply_feedback_locally(const TuneOptions& options, const TuneBuildSettings& settings,
                           const tuning::KernelPlan& plan, const tuning::RuleSet& rules,
                           const tuning::Feedback& feedback) {
  if (feedback.tiles_per_chip <= 0)
    return usage_error(options.feedback + ": the report names no tiles per chip");
  const auto result =
      tuning::refine_locally(plan, feedback, feedback.tiles_per_chip, [&](int) { return rules; });
  std::vector<OutputFile> outputs;
  for (const auto& chip : result.chips) {
    llvm::outs() << "chip " << chip.chip << ":" << (chip.local.trace.fired.empty() ? " no rule fired" : "")
                 << "\n";
    for (const auto& firing : chip.local.trace.fired)
      llvm::outs() << "  " << firing.rule << " on " << firing.target << ": " << firing.change << "\n";
    if (options.explain)
      llvm::outs() << tuning::explain(chip.local.trace);
    outputs.push_back({output_path(options, settings,
                                   "." + options.kernel + ".chip" + std::to_string(chip.chip) + ".plan.json"),
                       plan_text(chip.local.plan)});
  }
  outputs.push_back({output_path(options, settings, "." + options.kernel + ".plan.json"),
                     plan_text(result.merged)});
  return write_outputs(outputs, options.quiet);
}

// --feedback: one round of the rules on a report produced elsewhere; writes the adjusted plan.
int apply_feedback(const TuneOptions& options, const TuneBuildSettings& settings,
                   const TuneBuilder& builder, const tuning::KernelPlan& plan,
                   const tuning::RuleSet& rules) {
  const auto text = read_file(options.feedback);
  if (!text) {
    llvm::errs() << "seq2par tune: error: cannot read the report '" << options.feedback << "'\n";
    return kExitUsageError;
  }
  ir::Diagnostics diagnostics;
  auto feedback = tuning::feedback_from_text(*text, options.kernel, options.feedback, diagnostics);
  if (!feedback)
    return report_diagnostics(diagnostics);
  feedback->failed_tiles.insert(feedback->failed_tiles.end(), options.failed_tiles.begin(),
                                options.failed_tiles.end());
  builder.add_inputs(*feedback);
  if (feedback->tiles > 0)
    for (const std::string& change : tuning::report_changes(plan, feedback->tiles))
      llvm::errs() << "seq2par tune: warning: " << options.feedback
                   << ": the report does not match the plan: " << change << "\n";
  if (options.local_chips)
    return apply_feedback_locally(options, settings, plan, rules, *feedback);
  const tuning::ApplyResult result = tuning::apply_rules(plan, rules, *feedback);
  if (options.explain)
    llvm::outs() << tuning::explain(result.trace);
  else
    for (const auto& firing : result.trace.fired)
      llvm::outs() << firing.rule << " on " << firing.target << ": " << firing.change << "\n";
  if (result.trace.fired.empty() && !options.explain)
    llvm::outs() << "no rule fired\n";
  return write_outputs({{output_path(options, settings, "." + options.kernel + ".plan.json"),
                         plan_text(result.plan)}},
                       options.quiet);
}

// The loop: build the oracle, measure and adjust until the rules stop; write the best round.
int tune_kernel(const TuneOptions& options, TuneBuilder& builder, const TuneBuildSettings& settings,
                const tuning::KernelPlan& start, const tuning::RuleSet& rules) {
  if (!builder.build_oracle())
    return builder.exit_code();
  tuning::TuneOptions loop_options;
  loop_options.rounds = options.rounds;
  double round0 = 0;
  const auto progress = [&](const tuning::TuneRound& round) {
    if (round.round == 0)
      round0 = round.measured.cycles;
    if (!options.quiet)
      llvm::errs() << "seq2par tune: " << tuning::progress_line(round, round0) << "\n";
    // A decision the rules made that the build does not apply yet is said, not skipped silently.
    if (round.reused_from < 0)
      for (const std::string& note : round.measured.notes)
        llvm::errs() << "seq2par tune: warning: round " << round.round << ": " << note << "\n";
  };
  const auto measure = [&](const tuning::KernelPlan& plan, int round) {
    return builder.measure(plan, round);
  };
  const tuning::TuneResult result = tuning::tune(start, rules, measure, loop_options, progress);
  if (result.stop == tuning::TuneStop::MeasureFailed)
    return builder.exit_code();
  llvm::outs() << tuning::tune_table(result);
  if (options.explain)
    llvm::outs() << tuning::explain(result);
  const tuning::TuneRound& best = result.rounds[static_cast<std::size_t>(result.best)];
  const RoundFiles& files = builder.files_of(best.round);
  std::vector<OutputFile> outputs = {{output_path(options, settings, ".par.cpp"), files.generated}};
  for (const auto& [suffix, content] : files.kernel_files)
    outputs.push_back({output_path(options, settings, "." + suffix), content});
  outputs.push_back(
      {output_path(options, settings, "." + options.kernel + ".plan.json"), plan_text(best.plan)});
  outputs.push_back({output_path(options, settings, "." + options.kernel + ".tune.json"),
                     tuning::to_json(result).dump(2) + "\n"});
  return write_outputs(outputs, options.quiet);
}

} // namespace

int run_tune_command(int argc, const char** argv) {
  auto parsed = parse(argc, argv);
  if (const int* exit_code = std::get_if<int>(&parsed))
    return *exit_code;
  const TuneOptions& options = std::get<TuneOptions>(parsed);
  const auto rules = read_rules(options);
  if (!rules)
    return kExitUsageError;
  std::optional<tuning::KernelPlan> start;
  if (!options.start_plan.empty()) {
    start = read_start_plan(options);
    if (!start)
      return kExitUsageError;
  }
  auto settings = build_settings(options, argv[0]);
  if (!settings)
    return kExitUsageError;
  TuneBuilder builder(*settings);
  // The kernel must be in the file (and multi-tile), whether or not a starting plan is given.
  const auto as_written = builder.start() ? builder.plan_as_written() : std::nullopt;
  if (!as_written)
    return builder.exit_code();
  if (!start)
    start = as_written;
  else
    for (const std::string& change : tuning::plan_changes(*start, *as_written))
      llvm::errs() << "seq2par tune: warning: " << options.start_plan << ": kernel '"
                   << options.kernel << "' changed since the plan was made: " << change << "\n";
  if (!options.feedback.empty())
    return apply_feedback(options, *settings, builder, *start, *rules);
  return tune_kernel(options, builder, *settings, *start, *rules);
}

} // namespace s2p::driver
