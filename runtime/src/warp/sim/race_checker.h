// The `sim` backend's data-race check. The simulator runs one warp at a time, so a missing
// wait never shows in its results; this check finds it anyway, deterministically: vector
// clocks over the channels (happens-before) against the elements each site declares it
// touches (kernel_info::accesses). On by default when a kernel declares accesses;
// S2P_RACE_CHECK=0 turns it off.
#pragma once

#include <seq2par/runtime.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace s2p::rt {

// Whether launches of `info` on `sim` are checked: it declares its accesses and
// S2P_RACE_CHECK is not 0/off/false (anything else but 1/on/true is an error).
bool race_check_enabled(const kernel_info& info);

// The check of one launch. The sim backend calls it under its lock, in the order the warps
// run: on_wait when a wait returns, on_signal with each signal, on_step with each site's
// step (where the site's accesses happen); on_step throws race_error on a conflict.
class race_checker {
public:
  // Throws std::logic_error when the declared accesses do not fit the kernel_info.
  explicit race_checker(const kernel_info& info);

  void on_wait(int warp, int channel, std::int64_t phase);
  void on_signal(int warp, int channel);
  void on_step(int warp, int site);
  // A predicated site that does not run this time: its next execution is the one after.
  void on_skip(int site) {
    if (site >= 0 && site < static_cast<int>(executions_.size()))
      ++executions_[static_cast<std::size_t>(site)];
  }
  // What was checked, for the launch's report: accesses compared, and the most shadow
  // intervals (all spaces) and cumulative clocks (one channel) held at once.
  nlohmann::ordered_json report_json() const;

private:
  // One access in the shadow state: which warp did it at which value of its own clock,
  // through which declared access and in which round (k / period) of it. warp < 0: none.
  struct mark {
    std::int64_t clock = 0;
    std::int64_t round = 0;
    int warp = -1;
    int access = -1;
  };
  // Elements [key, hi) of a space: the last write and, per warp, the latest read since.
  // Earlier writes and reads need no keeping: the last write was checked against them, and
  // a warp's later read is ordered after whatever its earlier one was.
  struct cell {
    std::int64_t hi;
    mark write;
    std::vector<mark> reads;
  };
  struct space_shadow {
    std::map<std::int64_t, cell> cells;
    std::size_t sweep_at;
  };
  // cum(p), the join of the clocks of signals 1..p, for p = first..signals (warp_count_
  // entries each); floor is cum(first - 1), the join of every phase dropped (see prune).
  struct channel_history {
    std::int64_t signals = 0;
    std::int64_t first = 1;
    std::deque<std::int64_t> cumulative;
    std::vector<std::int64_t> floor;
    std::vector<std::int64_t> joined; // per warp: the highest phase it has joined (0: none)
  };
  struct conflict {
    mark earlier;
    bool earlier_writes = false;
    std::int64_t lo = 0, hi = 0; // the elements both touch, over adjacent cells
  };

  void validate() const;
  void check(const mark& m);
  std::int64_t& clock(int warp, int of) {
    return clocks_[static_cast<std::size_t>(warp) * warps_ + static_cast<std::size_t>(of)];
  }
  bool ordered_before(const mark& earlier, int warp) const;
  const mark* unordered(const cell& c, int warp, bool write, bool& earlier_writes) const;
  bool find_conflict(const space_shadow& s, std::int64_t lo, std::int64_t hi, int warp, bool write,
                     conflict& found) const;
  [[noreturn]] void report(int space, const mark& later, const conflict& c) const;
  std::string describe(const mark& m) const;
  static void note(cell& c, const mark& m, bool write);
  static void split(space_shadow& s, std::int64_t at);
  static void record_read(space_shadow& s, std::int64_t lo, std::int64_t hi, const mark& m);
  static void record_write(space_shadow& s, std::int64_t lo, std::int64_t hi, const mark& m);
  void sweep(space_shadow& s) const;
  void drop_oldest(channel_history& h, std::int64_t phases) const;
  void prune(channel_history& h) const;

  const kernel_info& info_;
  std::size_t warps_;
  std::vector<std::int64_t> clocks_;      // warp w's vector clock: [w * warps_, +warps_)
  std::vector<std::vector<int>> by_site_; // indices into info_.accesses, per site
  std::vector<std::int64_t> executions_;  // per site: its executions so far (k)
  std::vector<space_shadow> spaces_;      // per space
  std::vector<channel_history> channels_; // index = channel number (0 unused)
  std::int64_t checked_ = 0;
  std::size_t cells_ = 0, peak_cells_ = 0;
  std::int64_t peak_phases_ = 0;
};

} // namespace s2p::rt
