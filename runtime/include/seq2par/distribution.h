// <seq2par/distribution.h> — data spread over tiles (the agile communication
// operator): index / extent / grid, fields (N-d views over 1-d buffers), resource maps
// (which tile owns which part of a field, with the three nested decompositions), agile
// fields, forall, and the tile-index queries of a multi-tile kernel. Every type has its
// sequential meaning here, so multi-tile kernels still run as the oracle; seq2par's
// planner uses the same resource-map arithmetic, so both agree on who owns what.
//
// The resource-map arithmetic as designed, not as first listed (that listing recursed in
// transpose_range, used a ceiling where a floor is needed and numbered nodes from 1); tiles
// are numbered from 0 here.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <seq2par/index_checks.h>
#include <seq2par/map_rules.h>

namespace s2p {

template <int N> struct index {
  static_assert(N > 0, "rank must be > 0");
  std::array<std::int64_t, N> v{};

  constexpr index() = default;
  constexpr index(std::initializer_list<std::int64_t> values) {
    std::size_t k = 0;
    for (auto x : values)
      if (k < static_cast<std::size_t>(N))
        v[k++] = x;
  }
  constexpr std::int64_t& operator[](int d) { return v[static_cast<std::size_t>(d)]; }
  constexpr std::int64_t operator[](int d) const { return v[static_cast<std::size_t>(d)]; }
  friend constexpr bool operator==(const index& a, const index& b) { return a.v == b.v; }
  friend constexpr bool operator!=(const index& a, const index& b) { return a.v != b.v; }
  friend constexpr bool operator<(const index& a, const index& b) { return a.v < b.v; }
  friend constexpr index operator+(index a, const index& b) {
    for (int d = 0; d < N; ++d)
      a[d] += b[d];
    return a;
  }
  friend constexpr index operator-(index a, const index& b) {
    for (int d = 0; d < N; ++d)
      a[d] -= b[d];
    return a;
  }
};

template <int N> struct extent {
  std::array<std::int64_t, N> v{};

  constexpr extent() = default;
  constexpr extent(std::initializer_list<std::int64_t> values) {
    std::size_t k = 0;
    for (auto x : values)
      if (k < static_cast<std::size_t>(N))
        v[k++] = x;
  }
  constexpr std::int64_t& operator[](int d) { return v[static_cast<std::size_t>(d)]; }
  constexpr std::int64_t operator[](int d) const { return v[static_cast<std::size_t>(d)]; }
  constexpr std::int64_t size() const {
    std::int64_t n = 1;
    for (auto x : v)
      n *= x;
    return n;
  }
  // Component-wise 0 <= i < extent (both bounds: an index below a block's
  // offset is outside it too).
  constexpr bool contains(const index<N>& i) const {
    for (int d = 0; d < N; ++d)
      if (i[d] < 0 || i[d] >= v[static_cast<std::size_t>(d)])
        return false;
    return true;
  }
  friend constexpr bool operator==(const extent& a, const extent& b) { return a.v == b.v; }
  friend constexpr bool operator!=(const extent& a, const extent& b) { return a.v != b.v; }
};

// A rectangle of a parent index space: extent + offset.
template <int N> struct grid {
  extent<N> size;
  index<N> offset;

  constexpr std::int64_t total_extent() const { return size.size(); }
  constexpr bool contains(const index<N>& i) const { return size.contains(i - offset); }
};

// Row-major linear number of `i` in `e`.
template <int N> constexpr std::int64_t linearize(const index<N>& i, const extent<N>& e) {
  std::int64_t k = 0;
  for (int d = 0; d < N; ++d)
    k = k * e[d] + i[d];
  return k;
}
template <int N> constexpr index<N> delinearize(std::int64_t k, const extent<N>& e) {
  index<N> i;
  for (int d = N - 1; d >= 0; --d) {
    i[d] = k % e[d];
    k /= e[d];
  }
  return i;
}

// An N-d view of a 1-d buffer: element i is data[offset + sum(i[d] * stride[d])]. Derived
// views (transpose, sub-grids) share the buffer; nothing is copied.
template <int N, class T> class field {
public:
  field() = default;
  field(T* data, s2p::extent<N> e) : data_(data), extent_(e) {
    std::int64_t stride = 1;
    for (int d = N - 1; d >= 0; --d) {
      stride_[static_cast<std::size_t>(d)] = stride;
      stride *= e[d];
    }
  }
  // A read-only view of a field: field<N, const T> from field<N, T>.
  template <class U, class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  field(const field<N, U>& writable)
      : data_(writable.data()), extent_(writable.extent()), stride_(writable.strides()) {}
  const std::array<std::int64_t, N>& strides() const { return stride_; }

  const s2p::extent<N>& extent_of() const { return extent_; }
  s2p::extent<N> extent() const { return extent_; }
  std::int64_t size() const { return extent_.size(); }
  T* data() const { return data_; }

  T& operator[](const index<N>& i) const {
#if S2P_CHECK_INDICES
    if (!extent_.contains(i))
      throw std::out_of_range("s2p::field: index outside the field's extent");
#endif
    return data_[offset_of(i)];
  }
  template <class... I> T& operator()(I... coords) const {
    static_assert(sizeof...(I) == N, "wrong number of coordinates for this field");
    return (*this)[index<N>{static_cast<std::int64_t>(coords)...}];
  }

  // The transposed view (rank 2): (i, j) of the result is (j, i) of this field.
  field transpose() const {
    static_assert(N == 2, "transpose is defined for rank-2 fields");
    field t = *this;
    std::swap(t.extent_[0], t.extent_[1]);
    std::swap(t.stride_[0], t.stride_[1]);
    return t;
  }
  // The sub-field of a grid (shares memory). The grid must lie inside the field: a section
  // is how an intrinsic gets part of a tile block, and writing past it would write another
  // block's memory.
  field section(const grid<N>& g) const {
    for (int d = 0; d < N; ++d)
      if (g.offset[d] < 0 || g.size[d] < 0 || g.offset[d] + g.size[d] > extent_[d])
        throw std::out_of_range("s2p::field::section: the grid leaves the field's extent");
    field s = *this;
    s.data_ = data_ + offset_of(g.offset);
    s.extent_ = g.size;
    return s;
  }
  // This field seen with R - N leading axes of extent 1: element (0, ..., 0, i) is element i.
  template <int R> field<R, T> lifted() const {
    static_assert(R >= N, "lifting adds axes");
    field<R, T> out;
    out.data_ = data_;
    for (int d = 0; d < R; ++d) {
      out.extent_[d] = d < R - N ? 1 : extent_[d - (R - N)];
      out.stride_[static_cast<std::size_t>(d)] =
          d < R - N ? 0 : stride_[static_cast<std::size_t>(d - (R - N))];
    }
    return out;
  }
  std::int64_t offset_of(const index<N>& i) const {
    std::int64_t k = 0;
    for (int d = 0; d < N; ++d)
      k += i[d] * stride_[static_cast<std::size_t>(d)];
    return k;
  }

private:
  template <int, class> friend class field;
  T* data_ = nullptr;
  s2p::extent<N> extent_;
  std::array<std::int64_t, N> stride_{};
};

template <class T> class in; // <seq2par/seq2par.h>: the wrappers over sub-tensors
template <class T> class out;

// Intrinsic parameters over N-d blocks (a tile's block of a distributed field, Xt(b), or a
// section of one): the access modes of s2p::in / out / inout over sub-tensors, for blocks
// that need not be contiguous. `S2P_INTRINSIC void mma(s2p::in<s2p::field<2, float>> a, ...)`
// reads element (i, j) as a(i, j); s2p::inout<s2p::field<N, T>> is out's interface.
template <int N, class T> class in<field<N, T>> {
public:
  in(const field<N, T>& f) : f_(f) {}
  template <class U = T, class = std::enable_if_t<!std::is_const_v<U>>>
  in(const field<N, const U>& f) : f_(f) {}
  s2p::extent<N> extent() const { return f_.extent(); }
  std::int64_t size() const { return f_.size(); }
  const T& operator[](const index<N>& i) const { return f_[i]; }
  template <class... I> const T& operator()(I... coords) const { return f_(coords...); }
  const field<N, const T>& block() const { return f_; }

private:
  field<N, const T> f_;
};

template <int N, class T> class out<field<N, T>> {
public:
  out(const field<N, T>& f) : f_(f) {}
  s2p::extent<N> extent() const { return f_.extent(); }
  std::int64_t size() const { return f_.size(); }
  T& operator[](const index<N>& i) const { return f_[i]; }
  template <class... I> T& operator()(I... coords) const { return f_(coords...); }
  const field<N, T>& block() const { return f_; }

private:
  field<N, T> f_;
};

// Axis order in which segments are enumerated for assignment: rows = row-major,
// columns = column-major (for column-major layouts).
enum class axis { rows, columns };

// Where a field's data lives: the parent index space cut into
// compute-node segments (a regular grid of equal blocks, the last one per axis possibly
// smaller, or cut at explicit split points), each assigned to a tile by a protocol, plus
// two finer decompositions: memory blocks (the granularity data moves at) and algorithmic
// blocks (the granularity tasks compute at). Every decomposition covers the parent
// without overlap by construction; `validate()` checks the nesting.
template <int N> class resource_map {
public:
  struct segment {
    int id; // 1-based, in enumeration order (segment 1, segment 2, ... of the map)
    grid<N> child;
    int tile;
  };

  // Contiguous runs of segments (of `block` elements) to tiles, in `order`.
  static resource_map block_block(extent<N> parent, extent<N> block, int tiles,
                                  axis order = axis::rows) {
    return resource_map(parent, regular_cuts(parent, block), tiles, order, protocol::runs);
  }
  // Segments dealt out to tiles in turn: segment s goes to tile s mod tiles.
  static resource_map block_cyclic(extent<N> parent, extent<N> block, int tiles,
                                   axis order = axis::rows) {
    return resource_map(parent, regular_cuts(parent, block), tiles, order, protocol::cyclic);
  }
  // Element granularity: contiguous runs of elements (row-block / column-block).
  static resource_map block(extent<N> parent, int tiles, axis order = axis::rows) {
    return block_block(parent, unit(), tiles, order);
  }
  // Element granularity: element k (in `order`) to tile k mod tiles (row-cyclic).
  static resource_map cyclic(extent<N> parent, int tiles, axis order = axis::rows) {
    return block_cyclic(parent, unit(), tiles, order);
  }
  // Segments cut at explicit points per axis (unequal sizes), assigned cyclically.
  static resource_map split_points(extent<N> parent,
                                   const std::array<std::vector<std::int64_t>, N>& splits,
                                   int tiles, axis order = axis::rows) {
    std::array<std::vector<std::int64_t>, N> cuts;
    for (int d = 0; d < N; ++d) {
      cuts[static_cast<std::size_t>(d)].push_back(0);
      for (auto p : splits[static_cast<std::size_t>(d)]) {
        enforce(map_rules::split_point(d, p, cuts[static_cast<std::size_t>(d)].back(),
                                       parent[d]));
        cuts[static_cast<std::size_t>(d)].push_back(p);
      }
      cuts[static_cast<std::size_t>(d)].push_back(parent[d]);
    }
    return resource_map(parent, cuts, tiles, order, protocol::cyclic);
  }

  // Faster tiles get more segments: tile t receives a share of the segments proportional
  // to weights[t] -- as contiguous runs (block, block_block) or dealt in turn (cyclic,
  // block_cyclic: each next segment to the tile furthest below its share).
  resource_map& weights(const std::vector<double>& w) {
    enforce(map_rules::weight_count(static_cast<std::int64_t>(w.size()), tiles_));
    for (double x : w)
      enforce(map_rules::weight(x));
    weights_ = w;
    assign();
    return *this;
  }
  // Tiles that get no segment (failed tiles, or tiles kept free): the segments are dealt to the
  // other tiles only, by the same protocol and weights, as if the excluded tiles' weights were
  // zero. The map keeps its tile count, so tile numbers (and the kernel's tiles) do not change.
  resource_map& exclude_tiles(const std::vector<int>& excluded) {
    std::vector<bool> out(static_cast<std::size_t>(tiles_), false);
    for (int t : excluded) {
      enforce(map_rules::excluded_tile(t, tiles_));
      out[static_cast<std::size_t>(t)] = true;
    }
    enforce(map_rules::tiles_left(std::count(out.begin(), out.end(), true), tiles_));
    excluded_ = std::move(out);
    assign();
    return *this;
  }
  // The granularity data moves at; must divide the segments (checked by validate()).
  resource_map& memory_blocks(extent<N> block) {
    memory_ = block;
    if (!algorithmic_set_)
      algorithmic_ = block; // default: tasks as large as memory blocks
    validate();
    return *this;
  }
  // The granularity tasks compute at; must divide the memory blocks.
  resource_map& algorithmic_blocks(extent<N> block) {
    algorithmic_ = block;
    algorithmic_set_ = true;
    validate();
    return *this;
  }

  const extent<N>& parent() const { return parent_; }
  int tiles() const { return tiles_; }
  const extent<N>& memory_block() const { return memory_; }
  const extent<N>& algorithmic_block() const { return algorithmic_; }
  std::int64_t segment_count() const { return segment_count_; }
  bool equal_segments() const { return equal_; }

  // The tile that owns element `i`: O(1) arithmetic for equal segments, a binary search per
  // axis for split points (with the floor the original's ceiling meant).
  int tile_of(const index<N>& i) const {
    return segment_owner(segment_number(i));
  }
  // 0-based number of the segment holding `i`, in enumeration order.
  std::int64_t segment_number(const index<N>& i) const {
    if (!parent_.contains(i))
      throw std::out_of_range("s2p::resource_map: index outside the parent extent");
    index<N> s;
    for (int d = 0; d < N; ++d) {
      const auto& c = cuts_[static_cast<std::size_t>(d)];
      if (equal_)
        s[d] = i[d] / (c[1] - c[0]);
      else
        s[d] =
            static_cast<std::int64_t>(std::upper_bound(c.begin(), c.end(), i[d]) - c.begin()) - 1;
    }
    return enumerate(s);
  }
  // The segment's rectangle.
  grid<N> segment_grid(std::int64_t number) const {
    const index<N> s = segment_coordinates(number);
    grid<N> g;
    for (int d = 0; d < N; ++d) {
      const auto& c = cuts_[static_cast<std::size_t>(d)];
      g.offset[d] = c[static_cast<std::size_t>(s[d])];
      g.size[d] = c[static_cast<std::size_t>(s[d] + 1)] - g.offset[d];
    }
    return g;
  }
  std::vector<segment> segments() const {
    std::vector<segment> out;
    for (std::int64_t n = 0; n < segment_count(); ++n)
      out.push_back(
          {static_cast<int>(n + 1), segment_grid(n), segment_owner(n)});
    return out;
  }
  int segment_tile(std::int64_t number) const {
    if (number < 0 || number >= segment_count_)
      throw std::out_of_range("s2p::resource_map: segment number out of range");
    return segment_owner(number);
  }

  // Blocks of a decomposition (memory or algorithmic): the rectangle of block `b`
  // (block coordinates), clipped to the parent.
  static grid<N> block_grid(const extent<N>& parent, const extent<N>& block, const index<N>& b) {
    grid<N> g;
    for (int d = 0; d < N; ++d) {
      g.offset[d] = b[d] * block[d];
      g.size[d] = std::min(block[d], parent[d] - g.offset[d]);
    }
    return g;
  }
  static extent<N> block_counts(const extent<N>& parent, const extent<N>& block) {
    extent<N> n;
    for (int d = 0; d < N; ++d)
      n[d] = (parent[d] + block[d] - 1) / block[d];
    return n;
  }

  // Nesting of the three decompositions: algorithmic blocks inside memory blocks inside
  // segments. Throws std::invalid_argument naming the axis that does not divide.
  void validate() const {
    for (int d = 0; d < N; ++d) {
      enforce(map_rules::block_extent(memory_[d]));
      enforce(map_rules::block_extent(algorithmic_[d]));
      enforce(map_rules::nesting(d, memory_[d] % algorithmic_[d] == 0,
                                 "algorithmic block " + std::to_string(algorithmic_[d]),
                                 "memory block " + std::to_string(memory_[d])));
      const auto& c = cuts_[static_cast<std::size_t>(d)];
      for (std::size_t k = 0; k + 1 < c.size(); ++k)
        enforce(map_rules::nesting(
            d,
            c[k] % memory_[d] == 0 &&
                ((c[k + 1] - c[k]) % memory_[d] == 0 || c[k + 1] == parent_[d]),
            "memory block " + std::to_string(memory_[d]),
            "segment [" + std::to_string(c[k]) + ", " + std::to_string(c[k + 1]) + ")"));
    }
  }

  // The same dealing seen with R - N leading axes of extent 1 (a rank-N field read beside
  // rank-R ones: a vector in a matrix kernel). Element (0, ..., 0, i) lives where i lives here,
  // memory and algorithmic blocks keep their elements, segments their numbers.
  template <int R> resource_map<R> lifted() const {
    static_assert(R >= N, "lifting adds axes");
    constexpr int pad = R - N;
    extent<R> parent;
    std::array<std::vector<std::int64_t>, R> cuts;
    for (int d = 0; d < pad; ++d) {
      parent[d] = 1;
      cuts[static_cast<std::size_t>(d)] = {0, 1};
    }
    for (int d = 0; d < N; ++d) {
      parent[pad + d] = parent_[d];
      cuts[static_cast<std::size_t>(pad + d)] = cuts_[static_cast<std::size_t>(d)];
    }
    resource_map<R> out(parent, std::move(cuts), tiles_, order_,
                        protocol_ == protocol::runs ? resource_map<R>::protocol::runs
                                                    : resource_map<R>::protocol::cyclic);
    for (int d = 0; d < R; ++d) {
      out.memory_[d] = d < pad ? 1 : memory_[d - pad];
      out.algorithmic_[d] = d < pad ? 1 : algorithmic_[d - pad];
    }
    out.equal_ = equal_;
    out.algorithmic_set_ = algorithmic_set_;
    out.weights_ = weights_;
    out.excluded_ = excluded_;
    out.assign();
    return out;
  }

private:
  template <int> friend class resource_map;
  enum class protocol { runs, cyclic };

  // A broken rule (see map_rules) as the exception a misuse throws.
  static void enforce(const std::string& what) {
    if (!what.empty())
      throw std::invalid_argument("s2p::resource_map: " + what);
  }

  static extent<N> unit() {
    extent<N> e;
    for (int d = 0; d < N; ++d)
      e[d] = 1;
    return e;
  }
  static std::array<std::vector<std::int64_t>, N> regular_cuts(const extent<N>& parent,
                                                               const extent<N>& block) {
    std::array<std::vector<std::int64_t>, N> cuts;
    for (int d = 0; d < N; ++d) {
      enforce(map_rules::block_extent(block[d]));
      if (parent[d] <= 0)
        throw std::invalid_argument("s2p::resource_map: extents must be positive");
      for (std::int64_t x = 0; x < parent[d]; x += block[d])
        cuts[static_cast<std::size_t>(d)].push_back(x);
      cuts[static_cast<std::size_t>(d)].push_back(parent[d]);
    }
    return cuts;
  }

  resource_map(extent<N> parent, std::array<std::vector<std::int64_t>, N> cuts, int tiles,
               axis order, protocol p)
      : parent_(parent), cuts_(std::move(cuts)), tiles_(tiles), order_(order), protocol_(p) {
    enforce(map_rules::tile_count(tiles));
    // Equal segments (the last per axis may be smaller): owners by division, else by search.
    equal_ = true;
    for (const auto& c : cuts_) {
      for (std::size_t k = 0; k + 2 < c.size(); ++k)
        if (c[k + 1] - c[k] != c[1] - c[0])
          equal_ = false;
      if (c[c.size() - 1] - c[c.size() - 2] > c[1] - c[0])
        equal_ = false;
    }
    for (int d = 0; d < N; ++d) {
      memory_[d] = cuts_[static_cast<std::size_t>(d)][1] - cuts_[static_cast<std::size_t>(d)][0];
      algorithmic_[d] = memory_[d];
    }
    if (!equal_) { // unequal segments: blocks of one element unless set
      for (int d = 0; d < N; ++d)
        memory_[d] = algorithmic_[d] = 1;
    }
    assign();
  }

  extent<N> segment_extent() const {
    extent<N> e;
    for (int d = 0; d < N; ++d)
      e[d] = static_cast<std::int64_t>(cuts_[static_cast<std::size_t>(d)].size()) - 1;
    return e;
  }
  std::int64_t enumerate(const index<N>& s) const {
    const extent<N> n = segment_extent();
    std::int64_t k = 0;
    if (order_ == axis::rows)
      for (int d = 0; d < N; ++d)
        k = k * n[d] + s[d];
    else
      for (int d = N - 1; d >= 0; --d)
        k = k * n[d] + s[d];
    return k;
  }
  index<N> segment_coordinates(std::int64_t k) const {
    const extent<N> n = segment_extent();
    index<N> s;
    if (order_ == axis::rows) {
      for (int d = N - 1; d >= 0; --d) {
        s[d] = k % n[d];
        k /= n[d];
      }
    } else {
      for (int d = 0; d < N; ++d) {
        s[d] = k % n[d];
        k /= n[d];
      }
    }
    return s;
  }
  // The weight each tile's share is dealt by: its weight (1 without weights), 0 if excluded.
  std::vector<double> dealing_weights() const {
    std::vector<double> w =
        weights_.empty() ? std::vector<double>(static_cast<std::size_t>(tiles_), 1.0) : weights_;
    for (std::size_t t = 0; t < excluded_.size(); ++t)
      if (excluded_[t])
        w[t] = 0;
    return w;
  }
  // Who owns segment s, as assign() dealt it: arithmetic for runs and plain turns, the table
  // for weighted turns (a map of element granularity has a segment per element, so only a
  // dealing that needs one keeps a table of them).
  int segment_owner(std::int64_t s) const {
    if (!dealt_owner_.empty())
      return dealt_owner_[static_cast<std::size_t>(s)];
    if (run_starts_.empty())
      return static_cast<int>(s % tiles_);
    // The last tile whose run starts at or before s (a tile with an empty run starts where
    // the next one does).
    return static_cast<int>(std::upper_bound(run_starts_.begin(), run_starts_.end() - 1, s) -
                            run_starts_.begin()) -
           1;
  }
  void assign() {
    const std::int64_t count = segment_extent().size();
    segment_count_ = count;
    dealt_owner_.clear();
    run_starts_.clear();
    const bool excluding = std::find(excluded_.begin(), excluded_.end(), true) != excluded_.end();
    if (protocol_ == protocol::cyclic && weights_.empty() && !excluding)
      return; // segment s to tile s mod tiles
    const std::vector<double> w = dealing_weights();
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    if (protocol_ == protocol::cyclic) { // weighted round robin, deterministic (ties: lower tile)
      dealt_owner_.assign(static_cast<std::size_t>(count), 0);
      // A tile of weight 0 never has the largest deficit: the deficits sum to 1 and its is 0.
      std::vector<std::int64_t> dealt(static_cast<std::size_t>(tiles_), 0);
      for (std::int64_t s = 0; s < count; ++s) {
        int best = 0;
        double best_deficit = -1e300;
        for (int t = 0; t < tiles_; ++t) {
          const double deficit =
              w[static_cast<std::size_t>(t)] / total * static_cast<double>(s + 1) -
              static_cast<double>(dealt[static_cast<std::size_t>(t)]);
          if (deficit > best_deficit + 1e-12)
            best = t, best_deficit = deficit;
        }
        dealt_owner_[static_cast<std::size_t>(s)] = best;
        ++dealt[static_cast<std::size_t>(best)];
      }
      return;
    }
    // Contiguous runs; tile t gets [floor(S * W_t / W), floor(S * W_{t+1} / W)) with W_t the
    // cumulative weight (equal weights: as even as possible, the larger runs last).
    double cumulative = 0;
    std::int64_t start = 0;
    for (int t = 0; t < tiles_; ++t) {
      run_starts_.push_back(start);
      cumulative += w[static_cast<std::size_t>(t)];
      const std::int64_t end =
          t + 1 == tiles_
              ? count
              : static_cast<std::int64_t>(static_cast<double>(count) * cumulative / total);
      start = std::max(start, end);
    }
    run_starts_.push_back(count);
  }

  extent<N> parent_;
  std::array<std::vector<std::int64_t>, N> cuts_;
  int tiles_;
  axis order_;
  protocol protocol_;
  bool equal_ = true;
  extent<N> memory_;
  extent<N> algorithmic_;
  bool algorithmic_set_ = false;
  std::vector<double> weights_;
  std::vector<bool> excluded_; // exclude_tiles; empty: none
  std::int64_t segment_count_ = 0;
  std::vector<std::int64_t> run_starts_; // runs: where each tile's run starts, then the count
  std::vector<int> dealt_owner_;         // weighted or excluding turns: each segment's tile
};

// A field together with where its data lives (the agile indexable type): same rank
// and element type, no copy. Indexing it is the full global view -- in a multi-tile
// kernel seq2par finds every accessed element's owner and moves data (owner-copy).
template <int N, class T> class agile_field {
public:
  agile_field(field<N, T> f, resource_map<N> map) : field_(f), map_(std::move(map)) {
    if (field_.extent() != map_.parent())
      throw std::invalid_argument(
          "s2p::agile: the resource map's parent extent differs from the field's extent");
  }
  s2p::extent<N> extent() const { return field_.extent(); }
  T& operator[](const index<N>& i) const { return field_[i]; }
  const field<N, T>& data() const { return field_; }
  const resource_map<N>& map() const { return map_; }

private:
  field<N, T> field_;
  resource_map<N> map_;
};

template <int N, class T>
agile_field<N, T> agile(const field<N, T>& f, const resource_map<N>& map) {
  return agile_field<N, T>(f, map);
}

// The local-global view (block by block): tiles(x)(b) is algorithmic block b of x as
// a field; elements inside are accessed without owner lookups.
template <int N, class T> class tile_blocks {
public:
  explicit tile_blocks(const agile_field<N, T>& a) : agile_(a) {}
  // The view keeps a reference: of a temporary it would dangle (name the agile field first).
  explicit tile_blocks(const agile_field<N, T>&&) = delete;
  field<N, T> operator()(const index<N>& block) const {
    return agile_.data().section(
        resource_map<N>::block_grid(agile_.extent(), agile_.map().algorithmic_block(), block));
  }
  s2p::extent<N> blocks() const {
    return resource_map<N>::block_counts(agile_.extent(), agile_.map().algorithmic_block());
  }
  const agile_field<N, T>& agile() const { return agile_; }

private:
  const agile_field<N, T>& agile_;
};
template <int N, class T> tile_blocks<N, T> tiles(const agile_field<N, T>& a) {
  return tile_blocks<N, T>(a);
}
// s2p::tiles(s2p::agile(X, map)) would view a temporary that is gone by the next statement:
// write `auto Xd = s2p::agile(X, map); auto Xt = s2p::tiles(Xd);`.
template <int N, class T> tile_blocks<N, T> tiles(const agile_field<N, T>&&) = delete;

namespace detail {
template <int D, int N, class Body>
void for_each_index_from(index<N>& i, const grid<N>& g, Body& body) {
  const std::int64_t end = g.offset[D] + g.size[D];
  for (i[D] = g.offset[D]; i[D] < end; ++i[D])
    if constexpr (D + 1 == N)
      body(index<N>(i)); // a copy: the body's index is its own, as a value parameter
    else
      for_each_index_from<D + 1>(i, g, body);
}
} // namespace detail

// Runs body(i) for every index of grid `g`, in row-major order, as nested loops (the inner
// loop is what a plain loop nest's would be, so the compiler optimizes the body as it would
// the loop's).
template <int N, class Body> void for_each_index(const grid<N>& g, Body&& body) {
  index<N> i;
  detail::for_each_index_from<0>(i, g, body);
}

// Runs body(i) for every index of `e`, in row-major order (the sequential meaning; a
// multi-tile kernel runs each output block on the tile that owns it).
template <int N, class Body> void forall(const extent<N>& e, Body&& body) {
  for_each_index(grid<N>{e, index<N>{}}, body);
}

} // namespace s2p
