// One `seq2par tune` measurement: transpile the input with a plan (the same path as
// `seq2par --plan`, in process), build the generated program with a C++ compiler against the
// runtime, run it on the simulator (S2P_BACKEND=sim, S2P_REPORT) and check that it prints
// exactly what the sequential build of the input prints (the oracle, built and run once).
//
// Where the tools come from:
//   - the compiler: --cxx, else $S2P_CXX, else the C++ compiler seq2par was configured with
//     (SEQ2PAR_TUNE_CXX, recorded at configure time), else `c++` on the PATH;
//   - the runtime's headers and libraries: those `seq2par --cxxflags / --ldflags` print (the
//     install prefix next to the binary, else the build tree), plus the sanitizer flags the
//     runtime was built with;
//   - the input's own headers: `-iquote <the input's directory>` and the flags after `--`.
// With --store, each round's variant comes from the operation store when it has it
// (driver/operation_store.h) and goes into it when it is built.
// Everything is built and run in a work directory that is removed afterwards.
#pragma once

#include "driver/operation_store.h"
#include "driver/run_tools.h"
#include "driver/tool_paths.h"
#include "pass_manager/transpile_options.h"
#include "tuning/plan.h"
#include "tuning/tune_loop.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace s2p::driver {

struct TuneBuildSettings {
  std::string source;       // absolute
  std::string display_name; // relative to the input root: how outputs and messages name it
  std::string kernel;
  std::vector<std::string> flags; // after `--`: for the transpile and both builds
  std::string cxx;                // empty: the default chain above
  std::string fabric_file;        // S2P_FABRIC of the runs; empty: the built-in chip
  std::vector<int> failed_tiles;  // fabric tiles the rules are told have failed
  std::map<std::string, double> inputs; // --input NAME=VALUE: input.<name> for the rules
  std::string store_dir;          // --store: the operation store; empty: none
  pass_manager::TranspileOptions options;
  ToolPaths paths;
};

// What a round generated: the .par.cpp and the kernels' files (schedule templates).
struct RoundFiles {
  std::string generated;
  std::vector<std::pair<std::string, std::string>> kernel_files; // (suffix, content)
};

class TuneBuilder {
public:
  explicit TuneBuilder(TuneBuildSettings settings);
  ~TuneBuilder(); // removes the work directory
  TuneBuilder(const TuneBuilder&) = delete;
  TuneBuilder& operator=(const TuneBuilder&) = delete;

  // Each returns false / nothing after printing why; exit_code() then says how to exit.
  bool start();                                        // the work directory
  std::optional<tuning::KernelPlan> plan_as_written(); // transpiles once, reads the kernel's IR
  bool build_oracle();                                 // builds and runs the sequential program
  std::optional<tuning::Measurement> measure(const tuning::KernelPlan& plan, int round);

  const RoundFiles& files_of(int round) const { return files_.at(round); }
  // The rules' input.<name> variables: the element count of each field parameter whose extent
  // the kernel's calls fix (read by plan_as_written), then each --input (which wins).
  void add_inputs(tuning::Feedback& feedback) const;
  int exit_code() const { return exit_code_; }
  std::string plan_file_name() const; // <stem>.<kernel>.plan.json

private:
  std::optional<TranspiledFile> transpile(const pass_manager::TranspileOptions& options,
                                          const KernelObserver& observe);
  std::optional<pass_manager::TranspileOptions> options_for(const tuning::KernelPlan& plan, int round,
                                                        const std::string& dir,
                                                        std::vector<std::string>& notes);
  bool matches_oracle(const std::string& dir, int round, int status);
  std::string oracle_difference(const std::string& dir, int round, int status) const;
  bool compile(const std::string& source, const std::string& binary, const std::string& log);
  bool run(const std::string& binary, const std::string& dir, int& exit_status);
  bool fail(int exit_code, const std::string& message);
  nlohmann::ordered_json store_inputs() const;
  // Transpiles and builds the round's variant into `dir`, or takes it from the store.
  std::optional<std::string> variant(const tuning::KernelPlan& plan, int round,
                                     const std::string& dir, std::vector<std::string>& notes,
                                     bool& from_store);

  TuneBuildSettings settings_;
  std::string work_;
  std::string oracle_output_;
  int oracle_status_ = 0;
  std::map<int, RoundFiles> files_;
  std::map<std::string, double> input_sizes_; // field parameter -> elements
  std::optional<OperationStore> store_;
  nlohmann::ordered_json store_inputs_; // the key's inputs every round shares
  int exit_code_ = 0;
};

// The compiler `seq2par tune` builds with when --cxx is not given.
std::string default_tune_compiler();

} // namespace s2p::driver
