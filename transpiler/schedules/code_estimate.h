// The code a multi-tile forall puts on each tile that runs its tasks: an estimate, per image,
// of the bytes its instructions take, so that the tile memory layout and the fit check hold
// the code beside the data (a tile's SRAM holds both). A plain task body is one image; a task
// body split into warps is one image per warp. The estimate is a named base per image (entry,
// exit, the call into the runtime) plus a named cost per operation: a statement of a plain
// body, a call, wait or signal of a warp. Both are planning parameters, not measurements of
// a real instruction set.
#pragma once

#include "ir/kernel.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace s2p::schedules {

struct CodeCostModel {
  std::int64_t image_base_bytes = 512;    // per image, whatever it does
  std::int64_t bytes_per_operation = 32;  // per statement or warp operation
};

struct CodeImage {
  std::string name;            // "body", or "warp<w>" for warp w of a split task
  std::int64_t operations = 0; // what the estimate counts
  std::int64_t bytes = 0;      // base + operations x cost
};

// The statements of a C++ body as written: each ';' outside parentheses (a for header's are
// inside) and each control statement (if, for, while, do, switch), strings and comments
// skipped.
std::int64_t count_statements(std::string_view body);

// The images of a kernel's warps, from their operations ("warp<k>" for the k-th).
std::vector<CodeImage> warp_code_images(const std::vector<std::int64_t>& warp_operations,
                                        const CodeCostModel& model = {});

// A forall step's code images (none for a collective step).
std::vector<CodeImage> code_images(const ir::TileStep& step, const CodeCostModel& model = {});

} // namespace s2p::schedules
