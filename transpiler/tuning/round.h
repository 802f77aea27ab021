// One tuning round from file contents: the plan, the rule files (evaluated together with the
// default set) and a simulator report in; the adjusted plan, rule set and trace out. This is
// what `seq2par tune` runs after each simulation, and what `--feedback report.json` (one round
// on a report produced elsewhere) will run; the driver reads the files and maps a failed
// round to exit code 2 with the diagnostics' messages.
#pragma once

#include "ir/diagnostic.h"
#include "tuning/apply.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace s2p::tuning {

struct SourceText {
  std::string source; // a path, for messages
  std::string text;
};

struct RoundInputs {
  SourceText plan;
  std::vector<SourceText> rules; // each file's rules follow the default set's (tuning::merge)
  bool default_rules = true;
  SourceText report;
  std::vector<int> failed_tiles;         // tiles the caller knows have failed
  std::map<std::string, double> inputs;  // input sizes and other facts: `input.<name>`
  ApplyOptions options;
};

// Every input is read before anything is applied, and every malformed one is reported
// (one error each, naming the file and the field); nothing is returned then.
std::optional<ApplyResult> run_round(const RoundInputs& inputs, ir::Diagnostics& diagnostics);

} // namespace s2p::tuning
