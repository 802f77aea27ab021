// Where each warp of a kernel is: shared by the backends' deadlock and watchdog reports.
#pragma once

#include <seq2par/runtime.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace s2p::rt {

enum class warp_status { running, blocked, finished };

struct warp_state {
  warp_status status = warp_status::running;
  int channel = 0;
  std::int64_t phase = 0;
  std::atomic<int> last_site{-1};
};

struct warp_snapshot {
  int warp_id;
  warp_status status;
  int site;
  int channel;
  std::int64_t phase;
  std::int64_t channel_count;
};

// "seq2par: deadlock in kernel 'k' (foo.cpp) on the threads backend: <why>\n  warp 0: ..."
std::string describe_warps(const kernel_info& info, const std::vector<warp_snapshot>& warps,
                           const std::string& backend, const std::string& why);

} // namespace s2p::rt
