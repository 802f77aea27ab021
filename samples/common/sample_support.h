// Shared by the samples: printing results exactly (so the sequential and parallel runs
// can be compared byte for byte), and a scheduling jitter that makes missing
// synchronization show up as wrong results instead of hiding behind lucky timing.
#pragma once

#include <seq2par/seq2par.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>

namespace sample {

// Yields the calling thread now and then. Sequentially it changes nothing; its counter
// changes no result, whatever order warps call it in.
S2P_HARMLESS_STATE inline void jitter() {
  static std::atomic<unsigned> calls{0};
  if (calls.fetch_add(1, std::memory_order_relaxed) % 3 == 0)
    std::this_thread::yield();
}

inline std::uint64_t fnv1a(std::uint64_t hash, const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i)
    hash = (hash ^ p[i]) * 1099511628211ull;
  return hash;
}

// Prints every value exactly (hex floats) plus a checksum of the bytes.
template <class T> void print_array(const char* name, const T* values, std::size_t count) {
  std::printf("%s[%zu] =", name, count);
  for (std::size_t i = 0; i < count; ++i) {
    if constexpr (sizeof(T) == sizeof(float) && std::is_floating_point_v<T>)
      std::printf(" %a", static_cast<double>(values[i]));
    else if constexpr (std::is_floating_point_v<T>)
      std::printf(" %a", values[i]);
    else
      std::printf(" %lld", static_cast<long long>(values[i]));
  }
  std::printf(
      "\n%s checksum %016llx\n", name,
      static_cast<unsigned long long>(fnv1a(1469598103934665603ull, values, count * sizeof(T))));
}

} // namespace sample
