// <seq2par/memory_overlap.h> — whether two field views share a byte: what a forall's
// refusals ask of its fields (an input may not share memory with the output it writes, since
// each tile reads its inputs as they were before the forall). Views of one buffer (sections,
// transposes) are compared run by run, not just by their spans.
// C++17, like the rest of what generated code includes.
#pragma once

#include <seq2par/distribution.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace s2p::rt::forall_detail {

// The bytes from a view's lowest element to the end of its highest; empty without elements.
struct byte_span {
  std::uintptr_t lo = 0, hi = 0;
};
template <int N, class T> byte_span field_span(const field<N, T>& f) {
  if (f.size() == 0)
    return {};
  std::int64_t first = 0, last = 0; // element offsets of the lowest and the highest element
  for (int d = 0; d < N; ++d) {
    const std::int64_t reach = (f.extent()[d] - 1) * f.strides()[static_cast<std::size_t>(d)];
    (reach < 0 ? first : last) += reach;
  }
  const auto base = reinterpret_cast<std::uintptr_t>(f.data());
  const auto size = static_cast<std::int64_t>(sizeof(T));
  return {base + static_cast<std::uintptr_t>(first * size),
          base + static_cast<std::uintptr_t>((last + 1) * size)};
}

// A view's elements as runs of adjacent bytes, in increasing address order. Views of one
// row-major buffer (sections, transposes) have nested strides: sorted by stride, each
// dimension's step passes over all of the next one's elements, so counting through the
// sorted dimensions visits increasing addresses. Innermost dimensions that are contiguous
// form one run (a row, or the whole view).
template <int N> class byte_runs {
public:
  template <class T>
  explicit byte_runs(const field<N, T>& f)
      : element_(static_cast<std::int64_t>(sizeof(T))),
        base_(reinterpret_cast<std::uintptr_t>(f.data())) {
    for (int d = 0; d < N; ++d) {
      const std::int64_t e = f.extent()[d];
      done_ = done_ || e == 0;
      if (e > 1)
        dim(count_++) = {f.strides()[static_cast<std::size_t>(d)], e};
    }
    // Outermost (largest stride) first; an insertion sort, as there are at most N.
    for (int i = 1; i < count_; ++i)
      for (int j = i; j > 0 && dim(j - 1).first < dim(j).first; --j)
        std::swap(dim(j - 1), dim(j));
    for (int d = 0; d + 1 < count_; ++d)
      nested_ = nested_ && dim(d).first >= dim(d + 1).first * dim(d + 1).second;
    nested_ = nested_ && (count_ == 0 || dim(count_ - 1).first >= 1);
    for (; count_ > 0 && dim(count_ - 1).first == run_; --count_)
      run_ *= dim(count_ - 1).second;
  }
  bool nested() const { return nested_; }
  bool done() const { return done_; }
  std::uintptr_t lo() const { return base_ + static_cast<std::uintptr_t>(offset_ * element_); }
  std::uintptr_t hi() const { return lo() + static_cast<std::uintptr_t>(run_ * element_); }
  void next() {
    for (int d = count_ - 1; d >= 0; --d) {
      const auto [stride, e] = dim(d);
      auto& at = at_[static_cast<std::size_t>(d)];
      offset_ += stride;
      if (++at < e)
        return;
      offset_ -= e * stride;
      at = 0;
    }
    done_ = true;
  }

private:
  std::pair<std::int64_t, std::int64_t>& dim(int d) { return dims_[static_cast<std::size_t>(d)]; }

  std::array<std::pair<std::int64_t, std::int64_t>, N> dims_{}; // (stride, extent) beyond a run
  std::array<std::int64_t, N> at_{};
  int count_ = 0;
  std::int64_t run_ = 1;    // elements per run
  std::int64_t offset_ = 0; // elements from base_ to the current run
  std::int64_t element_;
  std::uintptr_t base_;
  bool nested_ = true, done_ = false;
};

// Whether two views have a byte in common. Views whose spans are apart (distinct buffers,
// disjoint rows of one) are told at once; views of one buffer whose spans interleave (a
// column each) are compared run by run in address order, at most one pass over both, like
// the forall's own copies. Strides that are not nested (no s2p::field view has them) count
// as sharing.
template <int N, class A, class B> bool share_memory(const field<N, A>& a, const field<N, B>& b) {
  const byte_span x = field_span(a), y = field_span(b);
  if (x.lo >= y.hi || y.lo >= x.hi)
    return false;
  byte_runs<N> p(a), q(b);
  if (!p.nested() || !q.nested())
    return true;
  while (!p.done() && !q.done()) {
    if (p.lo() < q.hi() && q.lo() < p.hi())
      return true;
    if (p.hi() <= q.lo())
      p.next();
    else
      q.next();
  }
  return false;
}

} // namespace s2p::rt::forall_detail
