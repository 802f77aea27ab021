// `seq2par tune FILE --kernel NAME ...`: feedback-driven re-optimization of one multi-tile
// kernel's plan. Each round transpiles the input with the plan (as `seq2par --plan`), builds
// and runs it on the simulator (driver/tune_build.h), checks it against the sequential build,
// and lets the rules (tuning/) adjust the plan from the report; the loop's decisions are
// tuning/tune_loop.h's. `--feedback report.json` applies one round to a report produced
// elsewhere, without building anything.
//
// Writes into --out-dir (mirroring the input below --in-root, as a transpile does), all or
// nothing: the best round's `foo.par.cpp` and schedule templates, its plan
// `foo.<kernel>.plan.json`, and the record of every round `foo.<kernel>.tune.json`.
// Exit codes: 0, 1 (errors in the input, a failed build, a tuned program that differs from the
// sequential one), 2 (usage: a bad option, a kernel not in the file, a malformed rule or plan).
#pragma once

namespace s2p::driver {

// argv[1] is "tune".
int run_tune_command(int argc, const char** argv);

} // namespace s2p::driver
