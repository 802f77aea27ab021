// The s2p-sim commands. Each returns the process exit code: 0 ok, 1 bad input (schedule or
// fabric errors, a failed --verify), 2 usage or I/O errors (thrown as UsageError / IoError).
#pragma once

#include <string>
#include <vector>

#include "seq2par/sim/ranks.h"

namespace s2p::sim::cli {

int run_gen(const std::vector<std::string>& argv);
int run_check(const std::vector<std::string>& argv);
int run_resolve(const std::vector<std::string>& argv);
/// `ranks`: this process's job when mpirun started it (null: a single process). Every rank
/// simulates; rank 0 alone prints and writes files.
int run_run(const std::vector<std::string>& argv, Ranks* ranks = nullptr);
int run_html(const std::vector<std::string>& argv);

/// The full usage text, or one command's.
[[nodiscard]] std::string usage(const std::string& command = "");

} // namespace s2p::sim::cli
