// <seq2par/runtime.h> — what seq2par's generated code calls. Generated kernels keep their
// signature; their body declares the pools and tensors, then launches one function per
// cooperative warp. Warps synchronize on numbered channels:
//
//   w.wait(ch, phase, site)  blocks until channel `ch` has been signalled `phase` times
//                            (phase <= 0 never blocks; a channel counts signals monotonically,
//                            so a wait can never consume a signal meant for someone else)
//   w.signal(ch)             one more signal on `ch`
//   w.step(site, cycles)     the warp finished CDFG node `site`, which cost `cycles`
//                            (virtual time on the simulator; progress for the watchdog)
//
// The backend is chosen at run time with S2P_BACKEND (see backend_name()).
// This header is C++17 so generated code builds wherever the sequential input does.
#pragma once

#include <seq2par/seq2par.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace s2p::rt {

// One CDFG node of a kernel, for diagnostics ("warp 0 waits before p4 at foo.cpp:30").
struct site {
  const char* label;
  int line;
};

struct kernel_info {
  const char* name;       // kernel function name
  const char* source;     // input file the kernel came from
  int warp_count;         // number of warp functions passed to launch()
  const int* warp_ids;    // the user's warp number of each warp function
  int channel_count;          // channels are numbered 1..channel_count
  const char* channel_kinds; // channel c is channel_kinds[c - 1]: 'd' data, 'r' buffer reuse (resource),
                             // 'f' the fence between regions (before and after loops kept as loops)
  const site* sites;         // CDFG nodes (or loop-body calls), indexed by `site` arguments
  int site_count;
  long long pool_bytes;   // on-tile memory the kernel's pools need
};

// Thrown by launch() when every live warp is blocked on a channel nobody can signal.
class deadlock_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class warp {
public:
  virtual ~warp() = default;
  virtual void wait(int channel, std::int64_t phase, int site) = 0;
  virtual void signal(int channel) = 0;
  virtual void step(int site, std::int64_t cycles) = 0;
  virtual int id() const = 0;
};

// Type-erased warp function: the generated lambdas are passed through this.
struct warp_function {
  void* closure;
  void (*invoke)(void* closure, warp& w);
};

// Runs the warps of one kernel invocation to completion on the selected backend.
// Rethrows the first exception a warp threw; throws deadlock_error on deadlock.
void run_kernel(const kernel_info& info, const warp_function* warps);

// Seed 001 Fig. 6b: a queue of `depth` buffer slots between one producer warp and one
// consumer warp, made of two channels: `filled` (data) and `freed` (resource). The
// producer calls dequeue_buffer (waits for a free slot) -> fills it -> queue_buffer; the
// consumer acquire_buffer (waits for a filled slot) -> consumes it -> release_buffer.
// Each side's counter is only touched by that side's warp.
class buffer_queue {
public:
  buffer_queue(int filled_channel, int freed_channel, int depth, int site = -1)
      : filled_(filled_channel), freed_(freed_channel), depth_(depth), site_(site) {
    if (depth <= 0) throw std::invalid_argument("s2p::rt::buffer_queue: depth must be positive");
  }
  // Producer: the slot to fill next, once its previous contents have been released.
  int dequeue_buffer(warp& producer) {
    producer.wait(freed_, produced_ + 1 - depth_, site_);
    return static_cast<int>(produced_ % depth_);
  }
  void queue_buffer(warp& producer) {
    producer.signal(filled_);
    ++produced_;
  }
  // Consumer: the slot to read next, once it has been filled.
  int acquire_buffer(warp& consumer) {
    consumer.wait(filled_, consumed_ + 1, site_);
    return static_cast<int>(consumed_ % depth_);
  }
  void release_buffer(warp& consumer) {
    consumer.signal(freed_);
    ++consumed_;
  }
  int depth() const { return depth_; }

private:
  int filled_, freed_, depth_, site_;
  std::int64_t produced_ = 0;
  std::int64_t consumed_ = 0;
};

// Iterations of `for (i = init; i < bound; i += step)` (step > 0).
inline std::int64_t trip_count(std::int64_t init, std::int64_t bound, std::int64_t step) {
  return bound > init ? (bound - init + step - 1) / step : 0;
}

// Everything the `sim` backend measured so far in this process, as the JSON report that
// S2P_REPORT would receive at exit ("{}" if no kernel ran on the simulator).
std::string sim_report_json();

// The backend S2P_BACKEND selects ("threads", "sim"); throws on an unknown name.
std::string backend_name();

template <class... Warps> void launch(const kernel_info& info, Warps&&... warps) {
  static_assert(sizeof...(Warps) > 0, "a kernel needs at least one warp");
  const warp_function table[] = {
      warp_function{const_cast<void*>(static_cast<const void*>(&warps)), [](void* closure, warp& w) {
                      (*static_cast<std::remove_reference_t<Warps>*>(closure))(w);
                    }}...};
  if (info.warp_count != static_cast<int>(sizeof...(Warps)))
    throw std::logic_error("s2p::rt::launch: kernel_info.warp_count does not match the warp functions");
  run_kernel(info, table);
}

} // namespace s2p::rt
