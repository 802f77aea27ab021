// A lambda that captures by reference, passed to a helper: the body reads memory behind it.
#include <seq2par/seq2par.h>
template <class F> long apply(const F& f, long v) { return f(v); }
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, long>& C, const s2p::field<1, long>& A) {
  auto map = s2p::resource_map<1>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  long calls = 0;
  auto count = [&calls](long v) { return v + calls; };
  s2p::forall(Cd.extent(), [&](s2p::index<1> i) { Cd[i] = apply(count, Ad[i]); });
}
// EXPECT: 10:65: error: the forall body reads 'count', a class that reaches other memory (a capture of the lambda is a pointer or reference)
