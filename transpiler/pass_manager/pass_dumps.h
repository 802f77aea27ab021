// `--dump-after=PASS,...`: the IR as each named pass leaves it, beside the generated file as
// <kernel>.after-<pass>.json and .dot (the JSON and DOT of the dump that shows that IR: the
// schedule tree or tile steps after a kernel rewrite, the CDFG, CDRFG, channels or warps after
// a warp-split pass, the tile steps with their templates after planning).
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"
#include "passes/warp_split.h"
#include "schedules/tile_schedules.h"
#include "pass_manager/transpile_options.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace s2p::pass_manager {

using DumpFiles = std::vector<std::pair<std::string, std::string>>; // (file suffix, content)

class PassDumps {
public:
  PassDumps(const TranspileOptions& options, DumpFiles& files) : options_(options), files_(files) {}

  bool wanted(std::string_view pass) const;
  // After a pass over the kernel's IR (a rewrite): its schedule tree, or its tile steps. Both
  // return false after an internal error (tile steps cannot fail to dump for what the front
  // end accepted; if they do, that is seq2par's bug, reported at `declared_at`).
  bool kernel(std::string_view pass, const std::string& stem, const ir::Kernel& kernel,
              const ir::SourceLocation& declared_at, ir::Diagnostics& diags);
  void warp_plan(passes::WarpSplitPass pass, const std::string& stem, const ir::Kernel& kernel,
                 const passes::WarpSplit& plan);
  bool tile_kernel(std::string_view pass, const std::string& stem, const ir::Kernel& kernel,
                   const schedules::TileSchedules& schedules, const ir::SourceLocation& declared_at,
                   ir::Diagnostics& diags);
  // A kernel planned twice (its long constant loops kept on the second try) keeps the dumps of
  // the plan it uses: mark() before each try, then drop(from, to) the other try's files.
  std::size_t mark() const { return files_.size(); }
  void drop(std::size_t from, std::size_t to) {
    files_.erase(files_.begin() + static_cast<std::ptrdiff_t>(from),
                 files_.begin() + static_cast<std::ptrdiff_t>(to));
  }

private:
  void add(std::string_view pass, const std::string& stem, const std::string& json,
           std::string dot);
  const TranspileOptions& options_;
  DumpFiles& files_;
};

} // namespace s2p::pass_manager
