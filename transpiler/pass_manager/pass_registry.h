// Every pass seq2par runs on a kernel, by name, in the order it runs them: the kernel rewrites
// `--plan` asks for, the warp-split passes of a warp kernel (and of a task split into warps),
// and the planning of a multi-tile kernel. `seq2par --print-passes` prints this list;
// `--dump-after=NAME` writes the IR as each named pass leaves it (pass_manager/pass_dumps.h).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace s2p::pass_manager {

// What a pass works on, and so which dump shows the IR after it.
enum class PassUnit {
  Kernel,    // the kernel's IR, either kind (a schedule tree or the tile steps)
  WarpPlan,  // a warp kernel's regions: graphs, channels, warp programs
  TileKernel // a multi-tile kernel's steps and their schedule templates
};
std::string_view name_of(PassUnit unit);

struct PassInfo {
  std::string_view name;
  PassUnit unit;
  std::string_view summary; // what it does, and when it is skipped
};

// In run order.
const std::vector<PassInfo>& registered_passes();
std::optional<PassInfo> find_pass(std::string_view name);

} // namespace s2p::pass_manager
