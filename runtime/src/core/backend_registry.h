// Backends a generated kernel can run on, selected by S2P_BACKEND at run time.
#pragma once

#include <seq2par/runtime.h>

#include <string_view>

namespace s2p::rt {

// Each backend runs all warps of one kernel invocation to completion.
void run_on_threads(const kernel_info& info, const warp_function* warps);
void run_on_sim(const kernel_info& info, const warp_function* warps);

inline constexpr std::string_view kDefaultBackend = "sim";

} // namespace s2p::rt
