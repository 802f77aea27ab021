// seq2par: annotated sequential C++ -> warp-split parallel C++.
//
//   seq2par [options] <files...> [-- <compiler flags>]
//
// Exit codes: 0 success, 1 errors in the input (Clang-style diagnostics), 2 usage or I/O
// errors. Nothing is written unless every input succeeded.
#include "driver/compilation_database.h"
#include "driver/extents_option.h"
#include "driver/fabric_option.h"
#include "driver/incremental_cache.h"
#include "driver/kernel_prescan.h"
#include "driver/output_files.h"
#include "driver/run_report.h"
#include "driver/run_tools.h"
#include "driver/tool_paths.h"
#include "dump/dumps.h"
#include "frontend/transpile_action.h"

#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CommonOptionsParser.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace cl = llvm::cl;

cl::OptionCategory category("seq2par options");

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
                   "schedule-tree,cdfg,cdrfg,channels,warps or all"),
          cl::value_desc("passes"), cl::CommaSeparated, cl::cat(category));
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
    cl::desc("SRAM of one tile in bytes: a kernel's pools must fit (default: 638976, 624 KiB)"),
    cl::init(624 * 1024), cl::cat(category));
cl::opt<int> fabric_tiles(
    "fabric-tiles",
    cl::desc(
        "Tiles of the fabric a multi-tile kernel (S2P_TILES) may span (default: 1472, one chip)"),
    cl::init(1472), cl::cat(category));
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
cl::opt<bool> no_verify("no-verify",
                        cl::desc("Skip the self-check of each warp split (races, deadlock)"),
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

constexpr int kExitInputError = 1;
constexpr int kExitUsageError = 2;

std::string absolute(const std::string& path) {
  llvm::SmallString<256> abs(path);
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
  return std::string(abs);
}

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
    while (!common.empty() && !(llvm::StringRef(dir).starts_with(common) &&
                                (dir.size() == common.size() ||
                                 llvm::sys::path::is_separator(dir[common.size()]))))
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

void print_version(llvm::raw_ostream& os) {
  os << "seq2par " << SEQ2PAR_VERSION << " (LLVM " << LLVM_VERSION_STRING << ")\n";
}

std::vector<s2p::dump::DumpKind> parse_dumps(bool& ok) {
  std::vector<s2p::dump::DumpKind> kinds;
  for (const auto& name : dumps) {
    if (name == "all") {
      kinds = s2p::dump::all_dump_kinds();
      continue;
    }
    auto kind = s2p::dump::parse_dump_kind(name);
    if (!kind) {
      llvm::errs() << "seq2par: error: unknown --dump '" << name
                   << "'; choose from schedule-tree, cdfg, cdrfg, channels, warps, all\n";
      ok = false;
      continue;
    }
    if (std::find(kinds.begin(), kinds.end(), *kind) == kinds.end())
      kinds.push_back(*kind);
  }
  return kinds;
}

// What changes every input's output, apart from its compile command and file contents: the
// same for the whole run, so it is put together (and the fabric file read) once.
std::string options_text(const s2p::frontend::TranspileOptions& options,
                         const s2p::driver::ToolPaths& paths, const std::string& root) {
  std::string text = std::string("seq2par ") + SEQ2PAR_VERSION + "\n" + paths.include_dir + "\n" +
                     paths.clang_resource_dir + "\n" + root + "\n";
  for (const auto kind : options.dumps)
    text += std::to_string(static_cast<int>(kind)) + ",";
  text += "\n" + std::to_string(options.pipeline.keep_redundant) + " " +
          std::to_string(options.pipeline.cdfg.max_nodes) + " " +
          std::to_string(options.pipeline.tile_sram_bytes) + " " +
          std::to_string(options.pipeline.verify) + " " + std::to_string(options.fabric_tiles) +
          " " + std::to_string(options.fabric_tiles_per_chip) + " " + options.fabric_description +
          " " + options.style + "\n";
  for (const auto& [kernel, parameters] : options.given_extents)
    for (const auto& [parameter, extent] : parameters) {
      text += kernel + ":" + parameter + "=";
      for (const auto value : extent)
        text += std::to_string(value) + "x";
      text += "\n";
    }
  // Forall templates are planned on the fabric: its content, not only its name, counts.
  if (!options.fabric_file.empty()) {
    std::ifstream fabric(options.fabric_file, std::ios::binary);
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
  return s2p::driver::hash_text(text);
}

} // namespace

int main(int argc, const char** argv) {
  cl::SetVersionPrinter(print_version);
  const s2p::driver::ToolPaths paths = s2p::driver::find_tool_paths(argv[0]);

  // --cxxflags / --ldflags need no inputs; answer them before the inputs are checked.
  for (int i = 1; i < argc; ++i) {
    const llvm::StringRef arg(argv[i]);
    if (arg == "--cxxflags" || arg == "-cxxflags") {
      llvm::outs() << "-I" << paths.include_dir << " -pthread\n";
      return 0;
    }
    if (arg == "--ldflags" || arg == "-ldflags") {
      llvm::outs() << "-L" << paths.library_dir << " -lseq2par_runtime -lseq2par_sim_tile"
                   << (SEQ2PAR_HAVE_FABRIC_SIM ? " -lseq2par_sim" : "") << " -pthread\n";
      return 0;
    }
  }

  // Without -p or `--`, parse with Clang's defaults instead of searching for a
  // compilation database (and warning that there is none).
  std::vector<const char*> args(argv, argv + argc);
  const bool has_database = std::any_of(args.begin(), args.end(), [](const char* a) {
    const llvm::StringRef arg(a);
    return arg == "--" || arg == "-p" || arg.starts_with("-p=") || arg == "--p" ||
           arg.starts_with("--p=");
  });
  if (!has_database)
    args.push_back("--");
  int arg_count = static_cast<int>(args.size());
  auto parsed = clang::tooling::CommonOptionsParser::create(
      arg_count, args.data(), category, cl::ZeroOrMore,
      "seq2par: annotated sequential C++ -> warp-split parallel C++\n\n"
      "  Writes OUT/<path>/foo.par.cpp for every input foo.cpp that has S2P_KERNEL functions:\n"
      "  the same translation unit with each kernel's body replaced by a launch of its\n"
      "  cooperative warps. Files without kernels are skipped. Build generated code with\n"
      "    c++ $(seq2par --cxxflags) out/foo.par.cpp $(seq2par --ldflags)\n"
      "  and choose the backend at run time with S2P_BACKEND=threads|sim.\n\n"
      "  Exit codes: 0 success, 1 errors in the input, 2 usage or I/O errors.\n"
      "  Nothing is written unless every input succeeds.\n");
  if (!parsed) {
    llvm::errs() << "seq2par: error: " << llvm::toString(parsed.takeError()) << "\n";
    return kExitUsageError;
  }
  bool dumps_ok = true;
  const auto dump_kinds = parse_dumps(dumps_ok);
  if (!dumps_ok)
    return kExitUsageError;
  const int requested_jobs = jobs_short.getNumOccurrences() ? jobs_short : jobs;
  if (requested_jobs < 0) {
    llvm::errs() << "seq2par: error: --jobs must be 0 (one per core) or more, got "
                 << requested_jobs << "\n";
    return kExitUsageError;
  }
  const int job_count = requested_jobs == 0
                            ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                            : requested_jobs;

  // With a file list the parser loaded the database; with `-p` alone it did not (Clang's
  // parser stops early when no source is given), so load the build's database here.
  std::unique_ptr<clang::tooling::CompilationDatabase> loaded;
  const clang::tooling::CompilationDatabase* base = nullptr;
  std::vector<std::string> sources = parsed->getSourcePathList();
  if (!sources.empty()) {
    base = &parsed->getCompilations();
  } else if (const auto build_path = s2p::driver::build_path_argument(args)) {
    std::string error;
    loaded = clang::tooling::CompilationDatabase::autoDetectFromDirectory(*build_path, error);
    if (!loaded) {
      llvm::errs() << "seq2par: error: -p " << *build_path << ": " << error << "\n";
      return kExitUsageError;
    }
    base = loaded.get();
    sources = base->getAllFiles();
  }
  if (sources.empty()) {
    llvm::errs() << "seq2par: error: no input files (give files, or -p <build-dir> with a "
                    "compile_commands.json)\n";
    return kExitUsageError;
  }
  const s2p::driver::FirstCommandDatabase database(*base);
  sources = s2p::driver::unique_inputs(sources);
  if (!depfile.empty() && sources.size() != 1) {
    llvm::errs() << "seq2par: error: --depfile takes one input file, got " << sources.size()
                 << "\n";
    return kExitUsageError;
  }
  for (const auto& source : sources) {
    if (!llvm::sys::fs::is_regular_file(source)) {
      llvm::errs() << "seq2par: error: no such file: '" << source << "'\n";
      return kExitUsageError;
    }
  }
  if (paths.clang_resource_dir.empty()) {
    llvm::errs()
        << "seq2par: error: cannot find Clang's resource headers (stddef.h); install clang-"
        << LLVM_VERSION_MAJOR << " or set S2P_CLANG_RESOURCE_DIR\n";
    return kExitUsageError;
  }

  const std::vector<clang::tooling::ArgumentsAdjuster> adjusters = {
      clang::tooling::getInsertArgumentAdjuster({"-resource-dir", paths.clang_resource_dir},
                                                clang::tooling::ArgumentInsertPosition::BEGIN),
      clang::tooling::getInsertArgumentAdjuster({"-isystem", paths.include_dir,
                                                 "-Wno-unknown-warning-option",
                                                 "-Wno-unused-command-line-argument"},
                                                clang::tooling::ArgumentInsertPosition::END)};

  // Outputs mirror the inputs below the root: by default the current directory, or, when
  // the inputs lie elsewhere (-p with a build tree's database), the directory holding them all.
  std::string root = absolute(in_root);
  if (in_root.getNumOccurrences() == 0 && !all_below(sources, root))
    root = common_directory(sources);
  s2p::frontend::TranspileOptions options;
  options.pipeline.keep_redundant = keep_redundant;
  options.pipeline.cdfg.max_nodes = max_calls;
  options.pipeline.tile_sram_bytes = tile_sram;
  options.fabric_tiles = fabric_tiles;
  if (!fabric_file.empty()) {
    const auto limits = s2p::driver::read_fabric_limits(fabric_file);
    if (const auto* error = std::get_if<std::string>(&limits)) {
      llvm::errs() << "seq2par: error: --fabric: " << *error << "\n";
      return kExitUsageError;
    }
    const auto& fabric = std::get<s2p::driver::FabricLimits>(limits);
    if (tile_sram.getNumOccurrences() == 0)
      options.pipeline.tile_sram_bytes = fabric.sram_bytes;
    options.fabric_tiles_per_chip = static_cast<std::uint32_t>(fabric.tiles_per_chip);
    options.fabric_file = fabric_file;
    if (fabric_tiles.getNumOccurrences() == 0) {
      options.fabric_tiles = static_cast<int>(fabric.tiles);
      options.fabric_description = fabric.description;
    }
  }
  const auto given_extents = s2p::driver::parse_extents(extents);
  if (const auto* error = std::get_if<std::string>(&given_extents)) {
    llvm::errs() << "seq2par: error: " << *error << "\n";
    return kExitUsageError;
  }
  options.given_extents = std::get<s2p::driver::GivenExtents>(given_extents);
  options.dumps = dump_kinds;
  options.style = style;
  options.pipeline.verify = !no_verify;
  // Incremental re-runs: inputs whose fingerprint, dependencies and outputs are unchanged
  // are not parsed again.
  // Absolute before any tool runs: Clang's tools work in each compile command's directory.
  const std::string out_base = absolute(out_dir);
  auto cache = s2p::driver::IncrementalCache::load(out_base);
  s2p::driver::RunAccount account;
  account.tool_version = SEQ2PAR_VERSION;
  // The report is written whatever happens to the outputs: it is how a run that wrote
  // nothing says why.
  auto finish = [&](int exit_code) {
    // In the order the inputs were given, whichever way each was decided.
    std::map<std::string, std::size_t> order;
    for (const auto& source : sources)
      order.emplace(absolute(source), order.size());
    std::sort(account.inputs.begin(), account.inputs.end(), // one entry per input
                     [&](const auto& a, const auto& b) { return order[a.file] < order[b.file]; });
    if (!report_file.empty())
      if (const std::string error = s2p::driver::write_run_report(absolute(report_file), account);
          !error.empty()) {
        llvm::errs() << "seq2par: error: " << error << "\n";
        return kExitUsageError;
      }
    return exit_code;
  };
  auto note_input = [&](const std::string& file, s2p::driver::InputStatus status,
                        std::string reason) {
    account.inputs.push_back({absolute(file), status, std::move(reason), {}, {}, {}});
  };
  const bool had_cache = !cache.empty();
  std::map<std::string, std::string> fingerprints;
  const std::string how = options_text(options, paths, root);
  std::vector<std::string> to_run;
  int up_to_date = 0, prescan_skipped = 0;
  for (const auto& source : sources) {
    const std::string key = absolute(source);
    fingerprints[key] = fingerprint(source, database, how);
    bool skipped_before = false;
    if (!force && !no_cache && cache.up_to_date(key, fingerprints[key], skipped_before)) {
      ++up_to_date;
      note_input(key, s2p::driver::InputStatus::UpToDate, "");
      if (!quiet)
        llvm::errs() << "seq2par: up to date: " << relative_to_root(key, root)
                     << (skipped_before ? " (no S2P_KERNEL)" : "") << "\n";
      continue;
    }
    // A file whose text cannot declare a kernel is skipped without building an AST.
    const auto commands = database.getCompileCommands(source);
    if (!commands.empty()) {
      const auto scan = s2p::driver::prescan_for_kernels(source, commands.front(), paths.include_dir);
      if (!scan.may_declare_kernel) {
        ++prescan_skipped;
        note_input(key, s2p::driver::InputStatus::Skipped,
                   "S2P_KERNEL appears neither in the file, its compile command nor the project "
                   "headers it includes (not parsed)");
        if (!quiet)
          llvm::errs() << "seq2par: skipped " << relative_to_root(key, root)
                       << ": no S2P_KERNEL to transpile\n";
        if (!no_cache)
          cache.record(key, fingerprints[key], scan.files_read, {});
        continue;
      }
    }
    to_run.push_back(source);
  }
  if (to_run.empty()) {
    // As below: a run that writes nothing else leaves no new cache behind.
    if (!no_cache && prescan_skipped > 0 && had_cache) {
      const std::vector<s2p::driver::OutputFile> cache_file{{cache.path(), cache.text()}};
      if (const std::string error = s2p::driver::write_all_or_nothing(cache_file); !error.empty()) {
        llvm::errs() << "seq2par: error: " << error << "\n";
        return kExitUsageError;
      }
    }
    if (!quiet && sources.size() > 1)
      llvm::errs() << "seq2par: 0 transpiled, " << prescan_skipped << " skipped"
                   << (up_to_date ? ", " + std::to_string(up_to_date) + " up to date" : "")
                   << "\n";
    account.written = true;
    return finish(0);
  }
  const auto run = s2p::driver::run_tools(
      database, to_run, adjusters, options,
      [&](const std::string& file) { return relative_to_root(absolute(file), root); }, job_count,
      !quiet && sources.size() > 1);

  // Collect outputs; any failed input means nothing is written.
  std::vector<s2p::driver::OutputFile> outputs;
  std::vector<std::string> summaries;
  std::set<std::string> seen;
  int failed = 0, skipped = prescan_skipped, transpiled = 0;
  const std::size_t first_ran = account.inputs.size();
  for (const auto& source : to_run) {
    note_input(source, s2p::driver::InputStatus::Refused, "it could not be parsed");
    account.inputs.back().diagnostics = run.diagnostics.count(source) ? run.diagnostics.at(source)
                                                                     : std::vector<s2p::driver::ReportedDiagnostic>{};
  }
  auto account_of = [&](const std::string& input) -> s2p::driver::InputAccount& {
    for (std::size_t i = first_ran; i < account.inputs.size(); ++i)
      if (account.inputs[i].file == absolute(input))
        return account.inputs[i];
    note_input(input, s2p::driver::InputStatus::Refused, "");
    return account.inputs.back();
  };
  for (const auto& result : run.files) {
    if (!seen.insert(result.input).second)
      continue;
    auto& entry = account_of(result.input);
    if (!result.ok) {
      ++failed;
      entry.reason = "errors in the input";
      continue;
    }
    const std::string key = absolute(result.input);
    if (result.output.empty()) {
      entry.status = s2p::driver::InputStatus::Skipped;
      entry.reason = "no S2P_KERNEL function in the translation unit";
      ++skipped;
      if (!quiet)
        llvm::errs() << "seq2par: skipped " << result.display_name
                     << ": no S2P_KERNEL to transpile\n";
      if (fingerprints.count(key))
        cache.record(key, fingerprints[key], result.dependencies, {});
      continue;
    }
    ++transpiled;
    entry.status = s2p::driver::InputStatus::Transpiled;
    entry.reason.clear();
    for (const auto& kernel : result.kernels)
      entry.kernels.push_back(
          {kernel.name, kernel.tiles, kernel.warps, kernel.channels, kernel.calls});
    const std::size_t first_output = outputs.size();
    const std::string path = output_path(out_dir, result.display_name, ".par.cpp");
    outputs.push_back({output_path(out_base, result.display_name, ".par.cpp"), result.output});
    for (const auto& kernel : result.kernels) {
      summaries.push_back(
          "seq2par: " + path + ": kernel '" + kernel.name + "': " +
          (kernel.tiles > 0
               ? std::to_string(kernel.tiles) + " tiles, " + std::to_string(kernel.calls) +
                     (kernel.calls == 1 ? " step" : " steps")
               : std::to_string(kernel.warps) + " warps, " + std::to_string(kernel.channels) +
                     " channels, " + std::to_string(kernel.calls) + " calls"));
      for (const auto& [suffix, content] : kernel.dumps)
        outputs.push_back({output_path(out_base, result.display_name, "." + suffix), content});
    }
    if (!depfile.empty())
      outputs.push_back({absolute(depfile), depfile_text(outputs[first_output].path,
                                                         result.dependencies)});
    std::vector<s2p::driver::CachedOutput> written;
    for (std::size_t k = first_output; k < outputs.size(); ++k) {
      written.push_back({absolute(outputs[k].path), outputs[k].content});
      entry.outputs.push_back(absolute(outputs[k].path));
    }
    if (fingerprints.count(key))
      cache.record(key, fingerprints[key], result.dependencies, written);
    else
      cache.forget(key);
  }
  // Inputs that transpiled in a run that writes nothing say so, and why.
  auto not_written = [&](const std::string& why) {
    for (auto& entry : account.inputs)
      if (entry.status == s2p::driver::InputStatus::Transpiled) {
        entry.status = s2p::driver::InputStatus::NotWritten;
        entry.reason = why;
        entry.outputs.clear();
      }
  };
  if (failed > 0 || run.tool_failed || run.files.empty()) {
    llvm::errs() << "seq2par: " << (failed ? failed : 1) << " file" << (failed > 1 ? "s" : "")
                 << " with errors; nothing was written\n";
    not_written("another input has errors, and nothing is written unless every input succeeds");
    return finish(kExitInputError);
  }
  // The cache is written with the outputs (a run that writes nothing leaves no cache behind).
  if (!no_cache && (!outputs.empty() || had_cache))
    outputs.push_back({cache.path(), cache.text()});
  if (const std::string error = s2p::driver::write_all_or_nothing(outputs); !error.empty()) {
    llvm::errs() << "seq2par: error: " << error << "; nothing was written\n";
    not_written(error);
    return finish(kExitUsageError);
  }
  account.written = true;
  if (!quiet) {
    for (const auto& line : summaries)
      llvm::errs() << line << "\n";
    if (sources.size() > 1)
      llvm::errs() << "seq2par: " << transpiled << " transpiled, " << skipped << " skipped"
                   << (up_to_date ? ", " + std::to_string(up_to_date) + " up to date" : "") << "\n";
  }
  return finish(0);
}
