// Happens-before race detection for the `sim` backend (vector clocks, as in FastTrack).
//
// Each warp has a vector clock. A step increments the warp's own component, so every
// access gets a fresh epoch (warp, clock value). A signal records the signaller's clock as
// the channel's n-th signal; a wait for phase p joins the cumulative clock of signals 1..p
// (a wait guarantees only that those happened: on `threads` a later signal may not have).
// Access e by warp u is ordered before a later access by warp t iff t's clock has
// u-component >= e's clock. Two accesses conflict when they touch a common element from
// different warps, one writes, and the earlier is not ordered before the later.
//
// Memory stays proportional to what is still unordered, not to the run's length (a
// pipelined loop of millions of iterations holds a few cells and phases; see the test
// SimRaceCheck.LongSymbolicLoopsStayExact):
// - Shadow cells whose accesses every other warp has already ordered after itself can
//   never conflict again; a sweep drops them whenever a space's cells doubled.
// - A channel keeps cum(p) only for phases a wait may still ask for. A warp's waits on a
//   channel ask for non-decreasing phases (a symbolic loop's family has one waiting warp
//   and phase t - d; fences go region by region; expanded code numbers a channel's edges in
//   happens-before order), and a wait for p <= what the warp already joined adds nothing.
//   So phases below the lowest phase any waiting warp has joined are dropped. A warp that
//   starts waiting later asks for a phase at least as high. Should a wait still ask for a
//   dropped phase, it joins the floor cum(first - 1), which contains more: that can hide a
//   race, never report a false one.
// What is unordered can still grow with the run when a warp never blocks: a producer that
// streams into a tensor_ref with no buffer to wait for runs to its end before its consumer
// starts. Then every phase its consumer will wait for, and every element it wrote, is kept
// (warps x 8 bytes a phase, against the simulator's 16 bytes a signal), since dropping
// them would hide races exactly there.
#include "warp/sim/race_checker.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

namespace s2p::rt {
namespace {

constexpr std::size_t kFirstSweep = 1024;

} // namespace

bool race_check_enabled(const kernel_info& info) {
  const char* text = std::getenv("S2P_RACE_CHECK");
  const std::string value = text ? text : "";
  if (value == "0" || value == "off" || value == "false")
    return false;
  if (!value.empty() && value != "1" && value != "on" && value != "true")
    throw std::invalid_argument("seq2par: S2P_RACE_CHECK must be 1/on/true or 0/off/false, not '" +
                                value + "'");
  return info.accesses != nullptr;
}

race_checker::race_checker(const kernel_info& info)
    : info_(info), warps_(static_cast<std::size_t>(info.warp_count)), clocks_(warps_ * warps_, 0),
      by_site_(static_cast<std::size_t>(info.site_count)),
      executions_(static_cast<std::size_t>(info.site_count), 0),
      spaces_(static_cast<std::size_t>(info.space_count), space_shadow{{}, kFirstSweep}),
      channels_(static_cast<std::size_t>(info.channel_count) + 1) {
  validate();
  for (int a = 0; a < info.access_count; ++a)
    by_site_[static_cast<std::size_t>(info.accesses[a].site)].push_back(a);
  for (auto& h : channels_) {
    h.floor.assign(warps_, 0);
    h.joined.assign(warps_, 0);
  }
}

// Declarations come from generated code: a bad one is a seq2par bug, reported as such.
void race_checker::validate() const {
  for (int a = 0; a < info_.access_count; ++a) {
    const site_access& x = info_.accesses[a];
    const char* wrong = nullptr;
    if (x.site < 0 || x.site >= info_.site_count)
      wrong = "its site is not one of the kernel's";
    else if (x.space < 0 || x.space >= info_.space_count)
      wrong = "its space is not one of the kernel's";
    else if (x.period < 1 || x.residue < 0 || x.residue >= x.period)
      wrong = "it needs period >= 1 and 0 <= residue < period";
    if (wrong)
      throw std::logic_error("s2p runtime: kernel '" + std::string(info_.name) +
                             "' declares access " + std::to_string(a) + " wrongly: " + wrong);
  }
}

// --- channels ---------------------------------------------------------------------------

void race_checker::on_signal(int warp, int channel) {
  channel_history& h = channels_[static_cast<std::size_t>(channel)];
  const bool empty = h.cumulative.empty();
  const std::size_t last = empty ? 0 : h.cumulative.size() - warps_;
  for (std::size_t u = 0; u < warps_; ++u) {
    const std::int64_t before = empty ? h.floor[u] : h.cumulative[last + u];
    h.cumulative.push_back(std::max(before, clock(warp, static_cast<int>(u))));
  }
  ++h.signals;
  peak_phases_ = std::max(peak_phases_, h.signals - h.first + 1);
}

void race_checker::on_wait(int warp, int channel, std::int64_t phase) {
  channel_history& h = channels_[static_cast<std::size_t>(channel)];
  std::int64_t& joined = h.joined[static_cast<std::size_t>(warp)];
  // phase <= 0 orders nothing; a phase the warp has joined (or passed) adds nothing.
  if (phase <= 0 || phase <= joined || phase > h.signals)
    return;
  const bool kept = phase >= h.first;
  const std::size_t at = kept ? static_cast<std::size_t>(phase - h.first) * warps_ : 0;
  for (std::size_t u = 0; u < warps_; ++u) {
    std::int64_t& mine = clock(warp, static_cast<int>(u));
    mine = std::max(mine, kept ? h.cumulative[at + u] : h.floor[u]);
  }
  joined = phase;
  prune(h);
}

// Drops the phases below the lowest one a waiting warp has joined (see the top).
void race_checker::prune(channel_history& h) const {
  std::int64_t horizon = std::numeric_limits<std::int64_t>::max();
  for (const std::int64_t joined : h.joined)
    if (joined > 0)
      horizon = std::min(horizon, joined);
  if (horizon != std::numeric_limits<std::int64_t>::max() && horizon > h.first)
    drop_oldest(h, horizon - h.first);
}

void race_checker::drop_oldest(channel_history& h, std::int64_t phases) const {
  const auto count = static_cast<std::size_t>(phases) * warps_;
  std::copy(h.cumulative.begin() + static_cast<std::ptrdiff_t>(count - warps_),
            h.cumulative.begin() + static_cast<std::ptrdiff_t>(count), h.floor.begin());
  h.cumulative.erase(h.cumulative.begin(),
                     h.cumulative.begin() + static_cast<std::ptrdiff_t>(count));
  h.first += phases;
}

// --- accesses ---------------------------------------------------------------------------

void race_checker::on_step(int warp, int site) {
  const std::int64_t now = ++clock(warp, warp);
  if (site < 0 || site >= info_.site_count)
    return;
  const std::int64_t k = executions_[static_cast<std::size_t>(site)]++;
  for (const int a : by_site_[static_cast<std::size_t>(site)]) {
    const site_access& x = info_.accesses[a];
    if (k % x.period != x.residue)
      continue;
    check(mark{now, k / x.period, warp, a});
  }
}

// Checks one access against the shadow state of its space, then records it there.
void race_checker::check(const mark& m) {
  const site_access& x = info_.accesses[m.access];
  const std::int64_t lo = x.lo + m.round * x.stride, hi = x.hi + m.round * x.stride;
  if (lo >= hi)
    return;
  ++checked_;
  space_shadow& s = spaces_[static_cast<std::size_t>(x.space)];
  const std::size_t before = s.cells.size();
  // Fast paths, one lookup each: elements past everything touched so far (a stream's
  // next one), and exactly the range of an existing cell (a buffer slot again).
  const bool past_end = s.cells.empty() || s.cells.rbegin()->second.hi <= lo;
  const auto same = past_end ? s.cells.end() : s.cells.find(lo);
  if (past_end) {
    note(s.cells.emplace_hint(s.cells.end(), lo, cell{hi, mark{}, {}})->second, m, x.write);
  } else if (same != s.cells.end() && same->second.hi == hi) {
    bool earlier_writes = false;
    if (const mark* e = unordered(same->second, m.warp, x.write, earlier_writes))
      report(x.space, m, conflict{*e, earlier_writes, lo, hi});
    note(same->second, m, x.write);
  } else {
    if (conflict c{}; find_conflict(s, lo, hi, m.warp, x.write, c))
      report(x.space, m, c);
    if (x.write)
      record_write(s, lo, hi, m);
    else
      record_read(s, lo, hi, m);
  }
  if (s.cells.size() > s.sweep_at)
    sweep(s);
  cells_ = cells_ + s.cells.size() - before;
  peak_cells_ = std::max(peak_cells_, cells_);
}

nlohmann::ordered_json race_checker::report_json() const {
  return {{"accesses_checked", checked_},
          {"peak_intervals", peak_cells_},
          {"peak_retained_phases", peak_phases_}};
}

bool race_checker::ordered_before(const mark& earlier, int warp) const {
  return earlier.warp == warp || earlier.clock <= clocks_[static_cast<std::size_t>(warp) * warps_ +
                                                          static_cast<std::size_t>(earlier.warp)];
}

// The access of `c` that a new access by `warp` would race with, if any.
const race_checker::mark* race_checker::unordered(const cell& c, int warp, bool write,
                                                  bool& earlier_writes) const {
  earlier_writes = true;
  if (c.write.warp >= 0 && !ordered_before(c.write, warp))
    return &c.write;
  earlier_writes = false;
  if (write)
    for (const mark& r : c.reads)
      if (!ordered_before(r, warp))
        return &r;
  return nullptr;
}

// The first conflict over [lo, hi), widened over the adjacent cells where the same earlier
// access conflicts, so the report names the whole range the two share.
bool race_checker::find_conflict(const space_shadow& s, std::int64_t lo, std::int64_t hi, int warp,
                                 bool write, conflict& found) const {
  auto it = s.cells.upper_bound(lo);
  if (it != s.cells.begin() && std::prev(it)->second.hi > lo)
    --it;
  bool any = false;
  for (; it != s.cells.end() && it->first < hi; ++it) {
    bool earlier_writes = false;
    const mark* e = unordered(it->second, warp, write, earlier_writes);
    const std::int64_t from = std::max(lo, it->first), to = std::min(hi, it->second.hi);
    if (!any) {
      if (e)
        found = conflict{*e, earlier_writes, from, to};
      any = e != nullptr;
      continue;
    }
    const bool same = e && e->warp == found.earlier.warp && e->clock == found.earlier.clock &&
                      e->access == found.earlier.access;
    if (!same || from != found.hi)
      break;
    found.hi = to;
  }
  return any;
}

std::string race_checker::describe(const mark& m) const {
  const site_access& x = info_.accesses[m.access];
  const site s = info_.sites ? info_.sites[x.site] : site{"call", 0};
  std::string where = std::to_string(s.line);
  if (x.period != 1 || x.stride != 0)
    where += ", execution k=" + std::to_string(m.round * x.period + x.residue);
  const int id = info_.warp_ids ? info_.warp_ids[m.warp] : m.warp;
  return "warp " + std::to_string(id) + "'s " + s.label + " (line " + where + ") " +
         (x.write ? "writes " : "reads ");
}

void race_checker::report(int space, const mark& later, const conflict& c) const {
  const std::string name = info_.spaces && info_.spaces[space] ? std::string(info_.spaces[space])
                                                               : "space " + std::to_string(space);
  auto range = [&](std::int64_t lo, std::int64_t hi) {
    return name + "[" + std::to_string(lo) + "," + std::to_string(hi) + ")";
  };
  auto declared = [&](const mark& m) {
    const site_access& x = info_.accesses[m.access];
    return range(x.lo + m.round * x.stride, x.hi + m.round * x.stride);
  };
  throw race_error("seq2par: data race in kernel '" + std::string(info_.name) + "' (" +
                   info_.source + ") on the sim backend: " + describe(later) + declared(later) +
                   " while " + describe(c.earlier) + declared(c.earlier) +
                   ", and no channel or fence orders them; both touch " + range(c.lo, c.hi));
}

// --- shadow state ------------------------------------------------------------------------

// Makes `at` a cell boundary: the cell containing it (if any) is cut in two.
void race_checker::split(space_shadow& s, std::int64_t at) {
  auto it = s.cells.upper_bound(at);
  if (it == s.cells.begin())
    return;
  auto& [lo, c] = *std::prev(it);
  if (lo < at && at < c.hi) {
    cell right = c;
    c.hi = at;
    s.cells.emplace_hint(it, at, std::move(right));
  }
}

// Records access `m` in a cell it covers: a write supersedes the cell's accesses (they were
// checked against it), a read becomes its warp's latest read there.
void race_checker::note(cell& c, const mark& m, bool write) {
  if (write) {
    c.write = m;
    c.reads.clear();
    return;
  }
  auto mine =
      std::find_if(c.reads.begin(), c.reads.end(), [&](const mark& r) { return r.warp == m.warp; });
  if (mine != c.reads.end())
    *mine = m;
  else
    c.reads.push_back(m);
}

// A write over several cells or gaps: one cell holding only it.
void race_checker::record_write(space_shadow& s, std::int64_t lo, std::int64_t hi, const mark& m) {
  split(s, lo);
  split(s, hi);
  auto it = s.cells.erase(s.cells.lower_bound(lo), s.cells.lower_bound(hi));
  s.cells.emplace_hint(it, lo, cell{hi, m, {}});
}

// A read over several cells or gaps: noted in each, new cells in the gaps.
void race_checker::record_read(space_shadow& s, std::int64_t lo, std::int64_t hi, const mark& m) {
  split(s, lo);
  split(s, hi);
  auto it = s.cells.lower_bound(lo);
  for (std::int64_t at = lo; at < hi;) {
    if (it == s.cells.end() || it->first > at) { // elements nobody touched yet
      const std::int64_t to = it == s.cells.end() ? hi : std::min(hi, it->first);
      s.cells.emplace_hint(it, at, cell{to, mark{}, {m}});
      at = to;
      continue;
    }
    note(it->second, m, false);
    at = it->second.hi;
    ++it;
  }
}

// Drops the accesses every other warp has ordered after itself: they can never conflict
// again (clocks only grow). Runs when a space's cells doubled, so it costs O(1) per access.
void race_checker::sweep(space_shadow& s) const {
  std::vector<std::int64_t> known(warps_, std::numeric_limits<std::int64_t>::max());
  for (std::size_t u = 0; u < warps_; ++u)
    for (std::size_t t = 0; t < warps_; ++t)
      if (t != u)
        known[u] = std::min(known[u], clocks_[t * warps_ + u]);
  auto retired = [&](const mark& m) {
    return m.warp >= 0 && m.clock <= known[static_cast<std::size_t>(m.warp)];
  };
  for (auto it = s.cells.begin(); it != s.cells.end();) {
    cell& c = it->second;
    if (retired(c.write))
      c.write = mark{};
    std::erase_if(c.reads, retired);
    it = c.write.warp < 0 && c.reads.empty() ? s.cells.erase(it) : std::next(it);
  }
  s.sweep_at = std::max(kFirstSweep, 2 * s.cells.size());
}

} // namespace s2p::rt
