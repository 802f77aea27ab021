// s2p::tiles of a temporary agile field: the view would outlive what it views (the sequential
// build computed nothing and the simulator read freed memory). Refused where it is written.
#include <seq2par/seq2par.h>
#include <vector>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, float>& Y) {
  auto map = s2p::resource_map<2>::block(Y.extent(), 4);
  auto Yt = s2p::tiles(s2p::agile(Y, map));
  s2p::forall(Yt.blocks(), [&](s2p::index<2> b) {
    auto y = Yt(b);
    s2p::forall(y.extent(), [&](s2p::index<2> j) { y[j] = 1.0f; });
  });
}
int main() {
  std::vector<float> data(8 * 8, 0.0f);
  s2p::field<2, float> Y(data.data(), {8, 8});
  k(Y);
}
// EXPECT: 7:13: error: call to deleted function 'tiles'
