#include <seq2par/seq2par.h>
// A vector reversed in place: iteration i reads the element iteration 39 - i writes, so the
// forall's iterations need each other's old values. The relations read the reflected index
// (a negative scale) and find the pair; the sequential loop form is the fix.
S2P_KERNEL S2P_TILES(4) void reverse(s2p::field<1, double>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Xd.extent(), [&](s2p::index<1> i) { Xd[i] = Xd[{39 - i[0]}]; });
}
// The same about the extent, a value of the kernel.
S2P_KERNEL S2P_TILES(4) void reverse_all(s2p::field<1, double>& x) {
  const long n = x.extent()[0];
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Xd.extent(), [&](s2p::index<1> i) { Xd[i] = Xd[{n - 1 - i[0]}]; });
}
// EXPECT: 8:59: error: the forall reads 'Xd', the field it writes, where another iteration writes it
// EXPECT: 8:59: note: a loop whose iterations need each other's results is a sequential 'for'
// EXPECT: 15:59: error: the forall reads 'Xd', the field it writes, where another iteration writes it: iteration (0) reads x(1), which iteration (1) writes (with n = 2
