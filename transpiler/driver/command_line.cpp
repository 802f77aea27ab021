#include "driver/command_line.h"

#include "driver/compilation_database.h"
#include "driver/extents_option.h"
#include "driver/fabric_option.h"
#include "driver/plan_option.h"
#include "dump/dumps.h"
#include "pass_manager/pass_registry.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <seq2par/sim/machine_defaults.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <thread>

namespace s2p::driver {
namespace {

namespace cl = llvm::cl;

cl::OptionCategory category("seq2par options");

// Defaults come from the built-in machine (sim/include/seq2par/sim/machine_defaults.h).
const std::string kTileSramHelp =
    "SRAM of one tile in bytes: a kernel's pools must fit (default: " +
    std::to_string(s2p::sim::kDefaultTileSramBytes) + ", " +
    std::to_string(s2p::sim::kDefaultTileSramBytes / 1024) + " KiB)";
const std::string kFabricTilesHelp =
    "Tiles of the fabric a multi-tile kernel (S2P_TILES) may span (default: " +
    std::to_string(s2p::sim::kDefaultTilesPerChip) + ", one chip)";

cl::opt<std::string> out_dir("out-dir",
                             cl::desc("Directory for generated files (default: current directory)"),
                             cl::value_desc("dir"), cl::init("."), cl::cat(category));
cl::opt<std::string> in_root("in-root",
                             cl::desc("Output paths mirror input paths relative to this directory "
                                      "(default: current directory)"),
                             cl::value_desc("dir"), cl::init("."), cl::cat(category));
cl::list<std::string>
    dumps("dump",
          cl::desc("Write pass results as JSON and Graphviz DOT beside the output: "
                   "schedule-tree,cdfg,cdrfg,channels,warps (warp kernels), tile-steps, access (multi-tile kernels) or all"),
          cl::value_desc("passes"), cl::CommaSeparated, cl::cat(category));
cl::list<std::string>
    dump_after("dump-after",
               cl::desc("Write the IR as each named pass leaves it, as <kernel>.after-<pass>.json "
                        "and .dot beside the output (all: after every pass; --print-passes lists them)"),
               cl::value_desc("passes"), cl::CommaSeparated, cl::cat(category));
cl::opt<bool> print_passes("print-passes",
                           cl::desc("Print the passes in the order they run, one per line, and exit"),
                           cl::cat(category));
cl::opt<bool>
    keep_redundant("keep-redundant",
                   cl::desc("Skip redundant-edge removal (correct, with more synchronization)"),
                   cl::cat(category));
cl::opt<std::string> style("style",
                           cl::desc("libFormat style for generated code (default: file, i.e. the "
                                    "input's .clang-format, else LLVM)"),
                           cl::value_desc("style"), cl::init("file"), cl::cat(category));
cl::opt<long long>
    max_calls("max-calls",
              cl::desc("Refuse kernels whose expanded loops exceed this many intrinsic calls "
                       "(default: 1000000)"),
              cl::init(1'000'000), cl::cat(category));
cl::opt<long long> tile_sram(
    "tile-sram",
    cl::desc(kTileSramHelp), cl::init(static_cast<long long>(s2p::sim::kDefaultTileSramBytes)), cl::cat(category));
cl::opt<int> fabric_tiles(
    "fabric-tiles",
    cl::desc(kFabricTilesHelp), cl::init(static_cast<int>(s2p::sim::kDefaultTilesPerChip)), cl::cat(category));
cl::opt<std::string> fabric_file(
    "fabric",
    cl::desc("Fabric file (the simulator's format) multi-tile kernels are compiled for: sets "
             "the tiles S2P_TILES may span (chips x tiles per chip) and the SRAM pools may use; "
             "--fabric-tiles and --tile-sram override it"),
    cl::value_desc("file.json"), cl::cat(category));
cl::list<std::string>
    extents("extents",
            cl::desc("Plan a multi-tile kernel's forall schedule templates for these field extents "
                     "instead of those its calls in the file pass (repeatable)"),
            cl::value_desc("kernel:param=AxB,param=AxB"), cl::cat(category));
cl::list<std::string>
    plan_files("plan",
               cl::desc("Transpile a kernel with the decisions of this tuning plan: map weights, "
                        "usable tiles, tunables, warps, fusions, splits, variants (repeatable)"),
               cl::value_desc("foo.kernel.plan.json"), cl::cat(category));
cl::opt<std::string> auto_warps(
    "auto-warps", cl::ValueOptional,
    cl::desc("Give intrinsic calls without '#pragma s2p warp(N)' a warp by role (load, compute, "
             "store), balanced by estimated cost over at most N warps (default: one per call "
             "site, at most the 6 hardware threads of a tile)"),
    cl::value_desc("N"), cl::cat(category));
cl::opt<bool> no_verify("no-verify",
                        cl::desc("Skip the self-checks of each warp split (the IR after every pass; races, deadlock)"),
                        cl::cat(category));
cl::opt<bool>
    print_cxxflags("cxxflags",
                   cl::desc("Print the flags needed to compile generated code, then exit"),
                   cl::cat(category));
cl::opt<bool> print_ldflags("ldflags",
                            cl::desc("Print the flags needed to link generated code, then exit"),
                            cl::cat(category));
cl::opt<int> jobs("jobs",
                  cl::desc("Transpile this many files at once; 0 means one per core (default: 1)"),
                  cl::value_desc("n"), cl::init(1), cl::cat(category));
// -j N, -jN (as make users type it): a prefix option of its own, since an alias of --jobs
// would read -j2 as a group of one-letter flags.
cl::opt<int> jobs_short("j", cl::desc("Same as --jobs (-j N or -jN)"), cl::value_desc("n"),
                        cl::Prefix, cl::init(1), cl::cat(category));
cl::opt<bool> quiet("quiet", cl::desc("Only print diagnostics"), cl::cat(category));
cl::opt<bool> force("force",
                    cl::desc("Transpile every input even if OUT/.seq2par-cache.json says it is up "
                             "to date"),
                    cl::cat(category));
cl::opt<bool> no_cache("no-cache",
                       cl::desc("Neither read nor write OUT/.seq2par-cache.json (for build systems "
                                "that track dependencies themselves)"),
                       cl::cat(category));
cl::alias out_root("out-root", cl::desc("Alias for --out-dir"), cl::aliasopt(out_dir),
                   cl::cat(category));
cl::opt<std::string> report_file(
    "report",
    cl::desc("Write an account of the run: every input transpiled, skipped, up to date, refused "
             "or not written, with kernels and diagnostics (JSON; SARIF if FILE ends in .sarif)"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<std::string>
    depfile("depfile",
            cl::desc("Write a Makefile-style depfile listing every file the compile read, for "
                     "build systems (one input only)"),
            cl::value_desc("file.d"), cl::cat(category));
cl::opt<bool> write_unchanged(
    "write-unchanged",
    cl::desc("Write OUT/foo.par.cpp for an input without kernels too (the input unchanged), so a "
             "build rule that declares it always gets it (seq2par_generate passes this)"),
    cl::cat(category));
cl::opt<std::string> manifest_file(
    "manifest",
    cl::desc("Write the list of every file this run wrote (JSON), for build systems that "
             "declare one output per input; files an earlier manifest listed and this run no "
             "longer writes are removed"),
    cl::value_desc("file.json"), cl::cat(category));

void print_version(llvm::raw_ostream& os) {
  os << "seq2par " << SEQ2PAR_VERSION << " (LLVM " << LLVM_VERSION_STRING << ")\n";
}

std::optional<std::vector<dump::DumpKind>> parse_dumps() {
  std::vector<dump::DumpKind> kinds;
  bool ok = true;
  for (const auto& name : dumps) {
    if (name == "all") {
      kinds = dump::all_dump_kinds();
      continue;
    }
    auto kind = dump::parse_dump_kind(name);
    if (!kind) {
      llvm::errs() << "seq2par: error: unknown --dump '" << name
                   << "'; choose from schedule-tree, cdfg, cdrfg, channels, warps, tile-steps, access, all\n";
      ok = false;
      continue;
    }
    if (std::find(kinds.begin(), kinds.end(), *kind) == kinds.end())
      kinds.push_back(*kind);
  }
  if (!ok)
    return std::nullopt;
  return kinds;
}

// --dump-after's pass names, checked against the registry ("all": every pass).
std::optional<std::vector<std::string>> parse_dump_after() {
  std::vector<std::string> names;
  bool ok = true;
  for (const auto& name : dump_after) {
    if (name == "all") {
      for (const auto& pass : pass_manager::registered_passes())
        names.emplace_back(pass.name);
      continue;
    }
    if (!pass_manager::find_pass(name)) {
      llvm::errs() << "seq2par: error: unknown pass '" << name
                   << "' in --dump-after; seq2par --print-passes lists them\n";
      ok = false;
      continue;
    }
    if (std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  if (!ok)
    return std::nullopt;
  return names;
}

int print_pass_list() {
  std::size_t width = 0;
  for (const auto& pass : pass_manager::registered_passes())
    width = std::max(width, pass.name.size());
  for (const auto& pass : pass_manager::registered_passes())
    llvm::outs() << pass.name << std::string(width + 2 - pass.name.size(), ' ')
                 << pass_manager::name_of(pass.unit) << ": " << pass.summary << "\n";
  return 0;
}

// The deepest directory holding every input: the default input root when the inputs do not
// all lie below the current directory (a build's database used from elsewhere).
std::string common_directory(const std::vector<std::string>& files) {
  std::string common;
  for (const auto& file : files) {
    const std::string dir = llvm::sys::path::parent_path(absolute(file)).str();
    if (common.empty()) {
      common = dir;
      continue;
    }
    // Whether `above` is `dir` or a directory above it.
    const auto holds_dir = [&dir](const std::string& above) {
      return llvm::StringRef(dir).starts_with(above) &&
             (dir.size() == above.size() || llvm::sys::path::is_separator(dir[above.size()]));
    };
    while (!common.empty() && !holds_dir(common))
      common = llvm::sys::path::parent_path(common).str();
  }
  return common;
}

bool all_below(const std::vector<std::string>& files, const std::string& root) {
  return std::all_of(files.begin(), files.end(), [&](const std::string& file) {
    const std::string path = absolute(file);
    return llvm::StringRef(path).starts_with(root) && path.size() > root.size() &&
           llvm::sys::path::is_separator(path[root.size()]);
  });
}


// --cxxflags / --ldflags need no inputs: answered before the inputs are checked.
std::optional<int> answer_flag_queries(int argc, const char** argv, const ToolPaths& paths) {
  auto print = [](const std::vector<std::string>& flags) {
    for (std::size_t i = 0; i < flags.size(); ++i)
      llvm::outs() << (i ? " " : "") << flags[i];
    llvm::outs() << "\n";
    return 0;
  };
  for (int i = 1; i < argc; ++i) {
    const llvm::StringRef arg(argv[i]);
    if (arg == "--cxxflags" || arg == "-cxxflags")
      return print(compile_flags(paths));
    if (arg == "--ldflags" || arg == "-ldflags")
      return print(link_flags(paths));
    if (arg == "--print-passes" || arg == "-print-passes")
      return print_pass_list();
  }
  return std::nullopt;
}

constexpr const char* kOverview =
    "seq2par: annotated sequential C++ -> warp-split parallel C++\n\n"
    "  Writes OUT/<path>/foo.par.cpp for every input foo.cpp that has S2P_KERNEL functions:\n"
    "  the same translation unit with each kernel's body replaced by a launch of its\n"
    "  cooperative warps. Files without kernels are skipped. Build generated code with\n"
    "    c++ $(seq2par --cxxflags) out/foo.par.cpp $(seq2par --ldflags)\n"
    "  and choose the backend at run time with S2P_BACKEND=threads|sim.\n\n"
    "  seq2par tune FILE --kernel NAME --out-dir DIR [...] tunes a multi-tile kernel's plan\n"
    "  from simulator feedback (seq2par tune --help).\n\n"
    "  Exit codes: 0 success, 1 errors in the input, 2 usage or I/O errors.\n"
    "  Nothing is written unless every input succeeds.\n";

// Clang's option parser over `args`; without -p or `--`, Clang's defaults are the compile
// command instead of a database searched for (with a warning that there is none).
std::optional<clang::tooling::CommonOptionsParser> parse_options(std::vector<const char*>& args) {
  const bool has_database = std::any_of(args.begin(), args.end(), [](const char* a) {
    const llvm::StringRef arg(a);
    return arg == "--" || arg == "-p" || arg.starts_with("-p=") || arg == "--p" ||
           arg.starts_with("--p=");
  });
  if (!has_database)
    args.push_back("--");
  int arg_count = static_cast<int>(args.size());
  auto parsed = clang::tooling::CommonOptionsParser::create(arg_count, args.data(), category,
                                                            cl::ZeroOrMore, kOverview);
  if (!parsed) {
    llvm::errs() << "seq2par: error: " << llvm::toString(parsed.takeError()) << "\n";
    return std::nullopt;
  }
  return std::move(*parsed);
}

std::optional<int> job_count() {
  const int requested = jobs_short.getNumOccurrences() ? jobs_short : jobs;
  if (requested < 0) {
    llvm::errs() << "seq2par: error: --jobs must be 0 (one per core) or more, got " << requested
                 << "\n";
    return std::nullopt;
  }
  return requested == 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                        : requested;
}

// The inputs and their compile commands. With a file list the parser loaded the database;
// with `-p` alone it did not (Clang's parser stops early when no source is given), so the
// build's database is loaded here.
bool find_inputs(RunSettings& run, const std::vector<const char*>& args) {
  run.sources = run.parser->getSourcePathList();
  if (!run.sources.empty()) {
    run.database = &run.parser->getCompilations();
  } else if (const auto build_path = build_path_argument(args)) {
    std::string error;
    run.loaded = clang::tooling::CompilationDatabase::autoDetectFromDirectory(*build_path, error);
    if (!run.loaded) {
      llvm::errs() << "seq2par: error: -p " << *build_path << ": " << error << "\n";
      return false;
    }
    run.database = run.loaded.get();
    run.sources = run.database->getAllFiles();
  }
  if (run.sources.empty()) {
    llvm::errs() << "seq2par: error: no input files (give files, or -p <build-dir> with a "
                    "compile_commands.json)\n";
    return false;
  }
  run.sources = unique_inputs(run.sources);
  if (!depfile.empty() && run.sources.size() != 1) {
    llvm::errs() << "seq2par: error: --depfile takes one input file, got " << run.sources.size()
                 << "\n";
    return false;
  }
  for (const auto& source : run.sources) {
    if (!llvm::sys::fs::is_regular_file(source)) {
      llvm::errs() << "seq2par: error: no such file: '" << source << "'\n";
      return false;
    }
  }
  return true;
}

// The fabric multi-tile kernels are compiled for: --fabric, overridden by --fabric-tiles
// and --tile-sram.
bool resolve_fabric(pass_manager::TranspileOptions& options) {
  options.fabric.tiles = fabric_tiles;
  if (fabric_file.empty())
    return true;
  const auto limits = read_fabric_limits(fabric_file);
  if (const auto* error = std::get_if<std::string>(&limits)) {
    llvm::errs() << "seq2par: error: --fabric: " << *error << "\n";
    return false;
  }
  const auto& fabric = std::get<FabricLimits>(limits);
  if (tile_sram.getNumOccurrences() == 0)
    options.passes.tile_sram_bytes = fabric.sram_bytes;
  options.fabric.tiles_per_chip = static_cast<std::uint32_t>(fabric.tiles_per_chip);
  options.fabric.hardware_threads = static_cast<int>(fabric.hardware_threads);
  options.fabric.file = fabric_file.getValue();
  if (fabric_tiles.getNumOccurrences() == 0) {
    options.fabric.tiles = static_cast<int>(fabric.tiles);
    options.fabric.description = fabric.description;
  }
  return true;
}

// --auto-warps (0: the default count) or --auto-warps=N.
std::optional<int> parse_auto_warps(const std::string& value) {
  constexpr int kMaxAutoWarps = 64;
  if (value.empty())
    return 0;
  int warps = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), warps);
  if (error != std::errc{} || end != value.data() + value.size() || warps < 1 ||
      warps > kMaxAutoWarps) {
    llvm::errs() << "seq2par: error: --auto-warps=" << value << ": the warp count must be a "
                 << "number from 1 to " << kMaxAutoWarps << "\n";
    return std::nullopt;
  }
  return warps;
}

std::optional<pass_manager::TranspileOptions> transpile_options(std::vector<dump::DumpKind> dump_kinds,
                                                            std::vector<std::string> after_passes) {
  pass_manager::TranspileOptions options;
  options.passes.keep_redundant = keep_redundant;
  options.passes.cdfg.max_nodes = max_calls;
  options.passes.tile_sram_bytes = tile_sram;
  options.passes.verify = !no_verify;
  if (auto_warps.getNumOccurrences() > 0) {
    const auto warps = parse_auto_warps(auto_warps);
    if (!warps)
      return std::nullopt;
    options.passes.auto_warps = passes::AutoWarpOptions{*warps};
  }
  if (!resolve_fabric(options))
    return std::nullopt;
  const auto given_extents = parse_extents(extents);
  if (const auto* error = std::get_if<std::string>(&given_extents)) {
    llvm::errs() << "seq2par: error: " << *error << "\n";
    return std::nullopt;
  }
  options.given_extents = std::get<GivenExtents>(given_extents);
  const auto plans = read_plan_files(plan_files);
  if (const auto* error = std::get_if<std::string>(&plans)) {
    llvm::errs() << "seq2par: error: " << *error << "\n";
    return std::nullopt;
  }
  for (const auto& warning : std::get<PlanFiles>(plans).warnings)
    llvm::errs() << "seq2par: warning: " << warning << "\n";
  options.decisions = std::get<PlanFiles>(plans).decisions;
  options.dumps = std::move(dump_kinds);
  options.dump_after = std::move(after_passes);
  options.style = style.getValue();
  return options;
}

} // namespace

std::vector<clang::tooling::ArgumentsAdjuster> argument_adjusters(const ToolPaths& paths) {
  return {clang::tooling::getInsertArgumentAdjuster({"-resource-dir", paths.clang_resource_dir},
                                                    clang::tooling::ArgumentInsertPosition::BEGIN),
          clang::tooling::getInsertArgumentAdjuster({"-isystem", paths.include_dir,
                                                     "-Wno-unknown-warning-option",
                                                     "-Wno-unused-command-line-argument"},
                                                    clang::tooling::ArgumentInsertPosition::END)};
}

std::string absolute(const std::string& path) {
  llvm::SmallString<256> abs(path);
  (void)llvm::sys::fs::make_absolute(abs); // on failure (no working directory): as given
  llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
  return std::string(abs);
}

std::variant<std::unique_ptr<RunSettings>, int> parse_command_line(int argc, const char** argv) {
  cl::SetVersionPrinter(print_version);
  auto run = std::make_unique<RunSettings>();
  run->paths = find_tool_paths(argv[0]);
  if (const auto answered = answer_flag_queries(argc, argv, run->paths))
    return *answered;
  std::vector<const char*> args(argv, argv + argc);
  run->parser = parse_options(args);
  if (!run->parser)
    return kExitUsageError;
  // A bad --dump is reported before a bad --jobs.
  auto dump_kinds = parse_dumps();
  auto after_passes = parse_dump_after();
  if (!dump_kinds || !after_passes)
    return kExitUsageError;
  const auto jobs_to_run = job_count();
  if (!jobs_to_run || !find_inputs(*run, args))
    return kExitUsageError;
  run->jobs = *jobs_to_run;
  if (run->paths.clang_resource_dir.empty()) {
    llvm::errs()
        << "seq2par: error: cannot find Clang's resource headers (stddef.h); install clang-"
        << LLVM_VERSION_MAJOR << " or set S2P_CLANG_RESOURCE_DIR\n";
    return kExitUsageError;
  }
  run->adjusters = argument_adjusters(run->paths);
  // Outputs mirror the inputs below the root: by default the current directory, or, when
  // the inputs lie elsewhere (-p with a build tree's database), the directory holding them all.
  run->root = absolute(in_root);
  if (in_root.getNumOccurrences() == 0 && !all_below(run->sources, run->root))
    run->root = common_directory(run->sources);
  auto options = transpile_options(std::move(*dump_kinds), std::move(*after_passes));
  if (!options)
    return kExitUsageError;
  run->options = std::move(*options);
  // Absolute before any tool runs: Clang's tools work in each compile command's directory.
  run->out_base = absolute(out_dir);
  run->out_dir_as_given = out_dir.getValue();
  run->quiet = quiet;
  run->force = force;
  run->no_cache = no_cache;
  run->write_unchanged = write_unchanged;
  for (auto [from, to] : {std::pair{&report_file, &run->report_file},
                          std::pair{&depfile, &run->depfile},
                          std::pair{&manifest_file, &run->manifest_file}})
    if (!from->empty())
      *to = absolute(*from);
  return run;
}

} // namespace s2p::driver
