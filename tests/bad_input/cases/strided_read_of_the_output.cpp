// A forall reading its own output at twice its index: iteration i reads what iteration 2i
// writes (a strided read is a dependence like any other, found by the access relations).
#include <seq2par/seq2par.h>
#include <vector>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, double>& y) {
  auto yd = s2p::agile(y, s2p::resource_map<1>::block(y.extent(), 4));
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    if (i[0] < 8)
      yd[i] = 0.5 * yd[{2 * i[0]}];
  });
}
int main() {
  std::vector<double> data(16, 1.0);
  s2p::field<1, double> y(data.data(), {16});
  k(y);
}
// EXPECT: 9:21: error: the forall reads 'yd', the field it writes, where another iteration writes it: iteration (1) reads yd(2), which iteration (2) writes
