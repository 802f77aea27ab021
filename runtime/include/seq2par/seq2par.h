// <seq2par/seq2par.h> — the annotations of seq2par's input language, each with its
// sequential meaning, so an annotated kernel compiles and runs with any C++17 compiler.
// That sequential run is the oracle every generated program is compared against.
//
// The spellings here are a contract (see docs/language.md): add, never rename.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <seq2par/index_checks.h>

// `#pragma s2p ...` is read by seq2par; other compilers ignore it. Keep them quiet about it.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wunknown-pragmas"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif

#define S2P_DETAIL_STRINGIFY(...) #__VA_ARGS__

#if defined(__clang__)
// Annotations are how seq2par's AST matchers find kernels and intrinsics.
#define S2P_KERNEL [[clang::annotate("s2p.kernel")]]
#define S2P_INTRINSIC [[clang::annotate("s2p.intrinsic")]]
// Cost hint in cycles for the simulator; may use the intrinsic's parameter names.
#define S2P_COST(...) [[clang::annotate("s2p.cost", S2P_DETAIL_STRINGIFY(__VA_ARGS__))]]
// Number of tiles a multi-tile kernel spans.
#define S2P_TILES(n) [[clang::annotate("s2p.tiles", n)]]
// The move_memory(C, B) annotation of a multi-tile kernel: the blocks of B that C's tasks
// need move to C's owners once, at task start. seq2par checks that a forall of the kernel
// writes C and reads B.
#define S2P_MOVE_MEMORY(...)                                                                       \
  [[clang::annotate("s2p.move_memory", S2P_DETAIL_STRINGIFY(__VA_ARGS__))]]
// On a function an intrinsic or forall body calls: it keeps state (a call counter, a log,
// scheduling jitter) whose order between warps and tiles changes no result, so seq2par
// does not look inside it for global or static variables. The user vouches for it.
#define S2P_HARMLESS_STATE [[clang::annotate("s2p.harmless_state")]]
// On a read-only s2p::field parameter of a multi-tile kernel (a lookup table, filter
// weights): every tile's compute reads it and nothing writes it for the whole kernel, so a few
// master tiles may hold it and multicast it to the others before each forall that reads it,
// instead of a copy on every tile for the whole kernel. No effect on the sequential program.
#define S2P_SHARED [[clang::annotate("s2p.shared")]]
#else
#define S2P_KERNEL
#define S2P_INTRINSIC
#define S2P_COST(...)
#define S2P_TILES(n)
#define S2P_MOVE_MEMORY(...)
#define S2P_HARMLESS_STATE
#define S2P_SHARED
#endif

// Macro form of `#pragma s2p warp(N)`: applies to the next statement.
#define S2P_WARP(N) _Pragma(S2P_DETAIL_STRINGIFY(s2p warp(N)))

// A tunable constant, a knob a tuning plan may turn without editing the source:
//   constexpr int kDepth = S2P_TUNABLE(2);        // any value
//   constexpr int kDepth = S2P_TUNABLE(2, 1, 8);  // a value in [1, 8]
// The first argument is the value as written, the one the sequential program (the oracle)
// always uses; `seq2par --plan` compiles the kernel with the plan's value instead (its
// "tunables"). Arguments are integer literals. A value outside [min, max] does not compile.
#define S2P_TUNABLE(...) (::s2p::detail::tunable(__VA_ARGS__))

// Interchangeable implementations of one intrinsic, among which a tuning plan may choose
// without editing the kernel (operation substitution):
//   S2P_INTRINSIC S2P_COST(4 * n) void dot(s2p::in<float> a, s2p::in<float> b, s2p::out<float> r, int n);
//   S2P_INTRINSIC S2P_COST(n) void dot_unrolled(s2p::in<float> a, s2p::in<float> b, s2p::out<float> r, int n);
//   S2P_VARIANTS(dot, dot_unrolled);   // at namespace scope, after the declarations
// The kernel calls the first; the sequential program (the oracle) always runs what is written,
// and `seq2par --plan` substitutes the plan's choice (its "variants") in the kernel's calls.
// Every variant must be an intrinsic with the first one's signature (seq2par checks).
#define S2P_VARIANTS(...)                                                                          \
  static_assert(::s2p::detail::variants(__VA_ARGS__), "S2P_VARIANTS(" #__VA_ARGS__ ")")

namespace s2p {

namespace detail {
[[noreturn]] inline void fail(const std::string& what) {
  throw std::out_of_range("s2p: " + what);
}
// S2P_VARIANTS: names the variants for seq2par, which finds this call; no run-time effect.
template <class... F> constexpr bool variants(const F&...) {
  return true;
}
// S2P_TUNABLE's value, checked against its range in constant evaluation (a throw there is a
// compile error).
template <class T> constexpr T tunable(T value) {
  return value;
}
template <class T, class L, class H> constexpr T tunable(T value, L min, H max) {
  return value < min || value > max ? throw std::out_of_range("s2p: S2P_TUNABLE outside its range")
                                    : value;
}
} // namespace detail

// A sub-tensor: a contiguous run of elements. Views never own memory.
template <class T> class view {
public:
  using value_type = T;
  constexpr view() = default;
  constexpr view(T* data, std::size_t size) : data_(data), size_(size) {}
  template <class U, class = std::enable_if_t<std::is_convertible_v<U (*)[], T (*)[]>>>
  constexpr view(const view<U>& other) : data_(other.data()), size_(other.size()) {}

  constexpr std::size_t size() const { return size_; }
  constexpr T* data() const { return data_; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }
  T& operator[](std::size_t i) const {
#if S2P_CHECK_INDICES
    if (i >= size_)
      detail::fail("view index " + std::to_string(i) + " out of range [0," + std::to_string(size_) +
                   ")");
#endif
    return data_[i];
  }

private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// Intrinsic parameter wrappers: the access mode seq2par derives dependencies from.
// They convert implicitly from any view (sub-tensor) of T.
template <class T> class in {
public:
  in(view<T> v) : v_(v) {}
  in(view<const T> v) : v_(v) {}
  std::size_t size() const { return v_.size(); }
  const T* data() const { return v_.data(); }
  const T* begin() const { return v_.begin(); }
  const T* end() const { return v_.end(); }
  const T& operator[](std::size_t i) const { return v_[i]; }

private:
  view<const T> v_;
};

template <class T> class out {
public:
  out(view<T> v) : v_(v) {}
  std::size_t size() const { return v_.size(); }
  T* data() const { return v_.data(); }
  T* begin() const { return v_.begin(); }
  T* end() const { return v_.end(); }
  T& operator[](std::size_t i) const { return v_[i]; }

private:
  view<T> v_;
};

// Read and write: same interface as out<T>; a distinct type so the mode is visible.
template <class T> class inout : public out<T> {
public:
  using out<T>::out;
};

// A grid of equally sized sub-tensors laid out contiguously in a pool, row-major.
// The last template argument is the sub-tensor size; the ones before it the grid shape.
template <class T, std::size_t... Dims> class pool_tensor;

template <class T, std::size_t... Dims> class pool_tensor {
  static_assert(sizeof...(Dims) >= 2,
                "tensor<Count..., Size>: give the grid shape and the sub-tensor size");
  static constexpr std::size_t dims[] = {Dims...};
  static constexpr std::size_t rank = sizeof...(Dims) - 1;

public:
  static constexpr std::size_t sub_size = dims[rank];
  static constexpr std::size_t count() {
    std::size_t n = 1;
    for (std::size_t d = 0; d < rank; ++d)
      n *= dims[d];
    return n;
  }

  explicit pool_tensor(T* base) : base_(base) {}

  template <class... I> view<T> operator()(I... coords) const {
    static_assert(sizeof...(I) == rank, "wrong number of coordinates for this tensor");
    const std::size_t c[] = {static_cast<std::size_t>(coords)...};
    const long long signed_c[] = {static_cast<long long>(coords)...};
    std::size_t linear = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      if (signed_c[d] < 0 || c[d] >= dims[d])
        detail::fail("coordinate " + std::to_string(signed_c[d]) + " out of range [0," +
                     std::to_string(dims[d]) + ")");
      linear = linear * dims[d] + c[d];
    }
    return view<T>(base_ + linear * sub_size, sub_size);
  }
  view<T> operator[](long long i) const { return (*this)(i); }
  // The whole tensor as one view.
  view<T> all() const { return view<T>(base_, count() * sub_size); }

private:
  T* base_;
};

// On-tile buffer memory: THE resource seq2par schedules. N elements of T.
template <class T, std::size_t N> class pool {
public:
  pool() : storage_(new T[N]()) {}
  pool(const pool&) = delete;
  pool& operator=(const pool&) = delete;

  static constexpr std::size_t size() { return N; }
  T* data() { return storage_.get(); }

  // Count... sub-tensors of Size elements each, starting at `offset`: [offset, offset +
  // count*Size).
  template <std::size_t... Shape> pool_tensor<T, Shape...> tensor(std::size_t offset) {
    const std::size_t end =
        offset + pool_tensor<T, Shape...>::count() * pool_tensor<T, Shape...>::sub_size;
    if (end > N)
      detail::fail("tensor [" + std::to_string(offset) + "," + std::to_string(end) +
                   ") overflows a pool of " + std::to_string(N) + " elements");
    return pool_tensor<T, Shape...>(storage_.get() + offset);
  }

private:
  std::unique_ptr<T[]> storage_;
};

// Off-tile data entering a kernel: `count` sub-tensors of `size` elements at `base`.
// Carries data dependencies only (no pool resource).
template <class T> class tensor_ref {
public:
  tensor_ref(T* base, std::size_t count, std::size_t size)
      : base_(base), count_(count), size_(size) {}
  view<T> operator[](long long i) const {
    if (i < 0 || static_cast<std::size_t>(i) >= count_)
      detail::fail("tensor_ref index " + std::to_string(i) + " out of range [0," +
                   std::to_string(count_) + ")");
    return view<T>(base_ + static_cast<std::size_t>(i) * size_, size_);
  }
  std::size_t count() const { return count_; }
  std::size_t size() const { return size_; }
  T* data() const { return base_; }
  view<T> all() const { return view<T>(base_, count_ * size_); }

private:
  T* base_;
  std::size_t count_;
  std::size_t size_;
};

namespace detail {
inline thread_local int current_tile = 0; // set by the runtime around each tile's work
inline thread_local int current_chip = 0;
} // namespace detail

// The tile a multi-tile kernel's image runs on (0 in the sequential run, which plays every
// tile's part itself).
inline int tile_index() {
  return detail::current_tile;
}

// The chip that tile sits on (tile t on chip t / tiles per chip of the fabric; 0 in the
// sequential run and on a one-chip fabric).
inline int chip_index() {
  return detail::current_chip;
}

} // namespace s2p

#include <seq2par/collectives.h>
#include <seq2par/distribution.h>
