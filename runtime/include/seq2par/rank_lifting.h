// <seq2par/rank_lifting.h> — a forall over fields of different ranks (a vector read in a
// matrix kernel, a matrix row read in a vector kernel) run by the one-rank machinery of
// owner-copy, work stealing and the in-place backends: every field of rank M below the
// forall's largest rank R is seen as rank R with R - M leading axes of extent 1 (the same
// elements, owners and blocks), the forall runs over its output lifted the same way, and the
// body the user wrote gets its own ranks back through thin views. seq2par emits the lifting;
// nothing here is written by hand.
#pragma once

#include <seq2par/distribution.h>

#include <cstddef>
#include <tuple>
#include <utility>

namespace s2p::rt {

// Index i of rank M as the index (0, ..., 0, i) of rank R, and back.
template <int R, int M> index<R> lift_index(const index<M>& i) {
  static_assert(R >= M, "lifting adds axes");
  index<R> out;
  for (int d = 0; d < M; ++d)
    out[R - M + d] = i[d];
  return out;
}
template <int M, int R> index<M> drop_index(const index<R>& i) {
  static_assert(R >= M, "dropping removes axes");
  index<M> out;
  for (int d = 0; d < M; ++d)
    out[d] = i[R - M + d];
  return out;
}
template <int M, int R> extent<M> drop_extent(const extent<R>& e) {
  extent<M> out;
  for (int d = 0; d < M; ++d)
    out[d] = e[R - M + d];
  return out;
}

// An agile field of rank M as rank R (its data and its dealing, lifted).
template <int R, int M, class T> agile_field<R, T> lifted(const agile_field<M, T>& a) {
  return agile_field<R, T>(a.data().template lifted<R>(), a.map().template lifted<R>());
}

// A rank-R view (a field, a tile's view of one) used as the rank-M one the body names.
template <int M, int R, class View> class rank_view {
public:
  explicit rank_view(View& view) : view_(&view) {}
  decltype(auto) operator[](const index<M>& i) const { return (*view_)[lift_index<R>(i)]; }
  template <class... I> decltype(auto) operator()(I... coords) const {
    static_assert(sizeof...(I) == M, "wrong number of coordinates for this field");
    return (*this)[index<M>{static_cast<std::int64_t>(coords)...}];
  }
  s2p::extent<M> extent() const { return drop_extent<M>(view_->extent()); }

private:
  View* view_;
};

// The body as the user wrote it, over index<N> and views of ranks Ranks... (the output's, then
// each input's), called as the rank-R machinery calls a body: (index<R>, views of rank R...,
// shared structures...). Arguments past the fields (S2P_SHARED copies) pass through.
template <int N, int R, class Body, int... Ranks> class ranked_body {
public:
  explicit ranked_body(Body body) : body_(std::move(body)) {}
  template <class... Args> void operator()(const index<R>& i, Args&... args) const {
    static_assert(sizeof...(Args) >= sizeof...(Ranks), "a view per field");
    call(drop_index<N>(i), std::make_index_sequence<sizeof...(Args)>{},
         std::forward_as_tuple(args...));
  }

private:
  template <std::size_t K> static constexpr int rank_of() {
    constexpr int ranks[] = {Ranks...};
    return ranks[K];
  }
  template <std::size_t K, class Arg> static decltype(auto) adapt(Arg& arg) {
    if constexpr (K < sizeof...(Ranks))
      return rank_view<rank_of<K>(), R, Arg>(arg);
    else
      return static_cast<Arg&>(arg);
  }
  template <std::size_t... K, class Tuple>
  void call(const index<N>& i, std::index_sequence<K...>, Tuple args) const {
    std::tuple<decltype(adapt<K>(std::get<K>(args)))...> views{adapt<K>(std::get<K>(args))...};
    std::apply([&](auto&... v) { body_(i, v...); }, views);
  }
  mutable Body body_; // a `mutable` lambda is called too
};

// ranked<N, R, output rank, input ranks...>(body): what seq2par passes as the forall's body.
template <int N, int R, int... Ranks, class Body> auto ranked(Body body) {
  return ranked_body<N, R, Body, Ranks...>(std::move(body));
}

} // namespace s2p::rt
